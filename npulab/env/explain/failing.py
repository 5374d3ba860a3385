"""The failing component: the package, source tree or Ascend component an error was raised in, and its version.

Read from the log's own structure, never from a thread's words (issue 36, round 18):

- a Python traceback's innermost frame in an installed package (``File ".../site-packages/<pkg>/…"``) or in a source
  checkout (``File "/workspace/vllm/vllm/…"``: a folder holding a package of its own name, an editable install) —
  the frame just above the root error line, read by :class:`npulab.env.explain.root.RootFinder`;
- pybind11's frame list under a C++ exception raised through Python (``At:`` then ``  <file>(<line>): <function>``,
  the deepest frame first: pybind11 include/pybind11/detail/type_caster_base.h at v2.11.1, ``error_string()``);
- a compiler's error line (``<file>:<line>:<column>: error:``, GCC's and Clang's diagnostic format:
  https://gcc.gnu.org/onlinedocs/gcc/Diagnostic-Message-Formatting-Options.html): the source tree is the folder above
  the first of the tree's own source folders in the file's path (``/llama.cpp/ggml/src/…`` → ``llama.cpp``);
- a frame or an error line in an Ascend component installed under ``/usr/local/Ascend/<component>/``
  (``atb-models``, ``mindie``, ``nnal`` …: the default install paths of the Ascend documentation);
- the existing readings of ``explain``: the module a ``No module named`` line names, the framework whose C++ sources
  or logger the error lines quote (``triage.native_component``), the extension a crashed import loaded;
- the message itself (round 20): a root error line that is one of the messages the NPU stack's released code raises
  or logs (:mod:`npulab.env.explain.stack`, ``npulab/data/npu_messages.yaml``) names its component, when no frame or
  place does.

A log with no error line at all whose call stack (a traceback's ``File`` frames, pybind11's ``At:`` list) runs
through an Ascend install (``/usr/local/Ascend/…``, ``atb_llm``, ``atb-models``, ``mindie``) gets its innermost such
frame as its root (:meth:`ComponentScanner.ascend_frame`): the error line was cut off, the stack says where.

Its version, when the log prints it: a package listing row (``name  1.2.3``, ``name==1.2.3``, ``Version: 1.2.3``
under ``Name: name``, as ``pip list``, ``pip freeze`` and ``pip show`` print them) or a wheel's file name
(``name-1.2.3-….whl``, PEP 427). Import names map to distribution names through ``explain_rules.yaml`` ``module.pypi``
(``vllm_ascend`` → ``vllm-ascend``), as ``importlib.metadata.packages_distributions()`` maps them in an installed
environment (https://docs.python.org/3/library/importlib.metadata.html#package-distributions).

The finding (category ``failing_component``, :func:`finding`) is due when no catalog family and no documented entry
spoke: "the error is raised inside <component> <version>", with the remedy of its kind — ``pip install --upgrade``
for a pip package (torch and torch_npu only through :mod:`npulab.env.torch_install`), update and rebuild for a source
tree, the release paired with CANN for an Ascend component — its release notes and issue tracker, and the pin it may
hold on a dependency the error line names.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from npulab.core.i18n import t
from npulab.env import torch_install
from npulab.env.explain.matcher import Evidence, Finding
from npulab.env.explain.reader import decode_line, shorten
from npulab.env.explain.root import RootLine
from npulab.env.explain.rules import module
from npulab.env.explain.stack import Template
from npulab.env.explain.subsystem import Subsystem
from npulab.env.explain.subsystem import of as subsystem_of

CATEGORY = "failing_component"
SOURCES = [
    "https://docs.python.org/3/library/traceback.html",
    "https://github.com/pybind/pybind11/blob/v2.11.1/include/pybind11/detail/type_caster_base.h",
    "https://gcc.gnu.org/onlinedocs/gcc/Diagnostic-Message-Formatting-Options.html",
    "https://pip.pypa.io/en/stable/cli/pip_install/#cmdoption-U",
    "https://docs.python.org/3/library/importlib.metadata.html#package-distributions",
]
PACKAGES = ("torch", "torch-npu")  # installed only through npulab.env.torch_install (tests/test_install_commands.py)
REACH = 40  # lines between a frame list, a path or a listing row and the root error line it explains, at most

# pybind11's frame list: "At:" alone on its line, then "  <file>(<line>): <function>" lines, the deepest first
_AT = re.compile(rb"(?m)^\s*At:\s*$")
_AT_FRAME = re.compile(rb"(?m)^\s+(\S[^\n(]*)\((\d+)\): [\w<>.]+\s*$")
_PACKAGE_PATH = re.compile(r"[/\\](?:site|dist)-packages[/\\]([A-Za-z_]\w*)")
# a source checkout: a folder holding the package of its own name (/workspace/vllm/vllm/…, /code/verl/verl/…)
_FILE_FRAME = re.compile(rb'File "([^"\n]{1,1000})", line \d+')  # a path longer than that is no frame to read
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
# a compiler's diagnostic: "<file>:<line>:<column>: error:" (or "fatal error:")
_COMPILER = re.compile(rb"(?m)^\s*(/[^\s:]+|[A-Za-z]:[\\/][^\s:]+|[\w.-]+/[^\s:]+):\d+(?::\d+)?:\s*(?:fatal )?error:")
# the folders a C/C++ tree keeps its sources in: the tree is the folder just above the first of them
_SOURCE_DIRS = frozenset({"src", "source", "csrc", "ggml", "include", "lib", "libs", "backends", "third_party",
                          "common", "tools", "examples", "core", "kernels", "ops", "cmake"})
_NOT_A_TREE = frozenset({"", "home", "root", "usr", "local", "opt", "tmp", "mnt", "data", "workspace", "work", "code",
                         "build", "projects", "project", "repos", "git", "app", "apps", "var", "srv"})
# an Ascend component in its default install path (/usr/local/Ascend/<component>/…); the toolkit and the driver are
# the CANN stack itself, which the catalog's families and the generic finding cover
_ASCEND_PATH = re.compile(rb"/Ascend/(atb-models|mindie|nnal|mindie-[\w-]+|mindspeed[\w-]*|mindx[\w-]*)/")
_ASCEND_SKIP = frozenset({"ascend-toolkit", "driver", "firmware", "latest", "cann"})
# a traceback frame in an installed package, every one (the innermost is the last before the exception line)
_PACKAGE_FRAME = re.compile(rb'File "[^"\n]*[/\\](?:site|dist)-packages[/\\]([A-Za-z_]\w*)[/\\]')
FRAME_GAP = 6  # lines between two frames of one traceback, at most (a frame, its source line, a caret line …)
# the libraries other packages call with their own arguments: an error raised in their code (torch's argument checks,
# NumPy's) is the caller's, whose frame is the next one outward. Python's own library has no site-packages frame.
FOUNDATION = frozenset({"torch", "numpy", "typing_extensions", "functools", "contextlib"})
# a shared object inside a package that a load or symbol error names ("ImportError: …/site-packages/vllm_ascend/
# vllm_ascend_C.cpython-311-aarch64-linux-gnu.so: undefined symbol: …"; ld.so(8))
_SHARED_OBJECT = re.compile(rb"[/\\](?:site|dist)-packages[/\\]([A-Za-z_]\w*)[/\\][^\s:'\"]{0,300}\.so\b[^\n]{0,300}?"
                            rb"(?:undefined symbol|cannot open shared object|wrong ELF class|version `[^']+' not found)")
_ERROR_WORD = re.compile(rb'(?i)error|exception|undefined symbol|cannot open|failed|File "|\(\d+\): [\w<>.]+\s*$')
# a call-stack frame (a traceback's File line, a pybind11 At: frame) in an Ascend install: the default install path of
# the Ascend documentation (/usr/local/Ascend/<component>/) or the folders of MindIE's model code (atb_llm, atb-models)
_ASCEND_FRAME = re.compile(rb'(?m)^[^\n]*?(?:File "[^"\n]*(?:/Ascend/|/atb_llm/|/atb-models/|/mindie[\w-]*/)[^"\n]*", line \d+|'
                           rb'^\s+\S*(?:/Ascend/|/atb_llm/|/atb-models/|/mindie[\w-]*/)[^\n(]*\(\d+\): [\w<>.]+)[^\n]*$')
# a listing row or a wheel name that gives a package's version
_ROW = re.compile(r"^\s*(?:[-*|]\s*)?([A-Za-z][\w.-]*?)\s*(?:==|\s{2,}|\s*\|\s*|\s*[:：]\s*)v?(\d+(?:\.\d+)+[\w.+-]*)\s*\|?\s*"
                  r"(?:/\S*)?$")
# a container image's tag ("quay.io/ascend/vllm-ascend:v0.9.1", "…/mindie:2.1.RC1-800I-A2-py311"): the image's
# last path part is the component, its tag begins with the release
_IMAGE = re.compile(r"[\w.-]+/([a-z][\w.-]*):v?(\d+(?:\.\d+)+(?:rc\d+|\.?RC\d+)?)")
_SHOW_NAME = re.compile(r"^Name:\s*([A-Za-z][\w.-]*)\s*$")
_SHOW_VERSION = re.compile(r"^Version:\s*(\d+(?:\.\d+)+[\w.+-]*)\s*$")
_WHEEL = re.compile(r"\b([A-Za-z][\w.]*?)-(\d+(?:\.\d+)+[\w.+]*?)-(?:cp|py)\d")
_LISTING_NEEDLES = (b"==", b"  ", b"Version:", b".whl", b"|", b":")
MAX_VERSIONS = 400  # listing rows kept, at most (a pip list of a large environment)
MAX_FRAMES = 400  # package frames kept, the last ones
# a dependency the error line names, whose version the component may pin: "module 'numpy' has no attribute",
# "np.float_", "<package> … requires", "import of transformers" — the module names, mapped to pip names
_DEPENDENCY = re.compile(r"\bmodule '([A-Za-z_]\w*)'|(?<![\w.])(np|pd)\.\w+|\b(numpy|transformers|protobuf|"
                         r"huggingface_hub|tokenizers|accelerate|safetensors|pydantic|triton)\b")
_ALIASES = {"np": "numpy", "pd": "pandas"}


@dataclass(frozen=True)
class Component:
    """The failing component: its name (import name, tree or Ascend folder), how it is installed (``pip``, ``tree``
    or ``ascend``), its pip name and its version when the log prints it, and the line that shows it."""

    name: str
    kind: str
    pip: str | None = None
    version: str | None = None
    line: int = 0
    text: str = ""
    follows: bool = False  # a place printed below the error it belongs to (pybind11's "At:" list ends its message)
    via: str | None = None  # the foundation library (torch, NumPy) whose frame is innermost, when it called this one
    origin: str = "frame"  # what showed it: frame, native (C++ sources or logger), at (pybind11), shared, tree, ascend,
    # message (the NPU stack's own message: npulab.env.explain.stack)

    @property
    def label(self) -> str:
        """Its name as it is installed (the pip name of a package), with the version the log prints."""
        name = self.pip or self.name
        return f"{name} {self.version}" if self.version else name


def checkout_of(path: str) -> str | None:
    """The package of a Python file in a source checkout: a folder holding the package of its own name."""
    parts = path.replace("\\", "/").split("/")
    if not parts[-1].endswith(".py"):
        return None
    return next((a for a, b in zip(parts[:-2], parts[1:-1], strict=True) if a == b and _IDENTIFIER.fullmatch(a)), None)


def tree_of(path: str) -> str | None:
    """The source tree a compiled file belongs to: the folder just above the first source folder of its path."""
    parts = path.replace("\\", "/").split("/")
    for i, part in enumerate(parts[:-1]):
        if part in _SOURCE_DIRS and i > 0 and parts[i - 1].lower() not in _NOT_A_TREE:
            return parts[i - 1]
    return None


class ComponentScanner:
    """Collects, over the blocks of a log, the places that name a component (pybind11 frame lists, source-checkout
    frames, compiler errors, Ascend component paths) and the versions the log lists."""

    def __init__(self):
        self.places: list[Component] = []  # in log order, at most a few of each kind
        self.versions: dict[str, str] = {}  # pip name (lower case, "_" as "-") → version
        self._show: str | None = None  # the last "Name:" of a pip show block
        self.frames: list[tuple[int, str]] = []  # every installed package's traceback frame: (line, import name)
        self._at = 0  # the line of the last pybind11 "At:" seen
        self._ascend: tuple[int, str, bool] | None = None  # the innermost Ascend frame: (line, text, of an At: list)

    def _add(self, found: Component) -> None:
        if len(self.places) < 64:
            self.places.append(found)

    def feed(self, first_line: int, block: bytes) -> None:
        def number(pos: int) -> int:
            return first_line + block.count(b"\n", 0, pos)

        for at in _AT.finditer(block):
            frame = _AT_FRAME.match(block, at.end() + 1)
            if frame:
                path = frame.group(1).decode("utf-8", "replace")
                pkg = _PACKAGE_PATH.search(path)
                pkg = pkg.group(1) if pkg else checkout_of(path)
                if pkg:
                    self._add(Component(pkg, "pip", line=number(frame.start()), text=shorten(path), follows=True,
                                        origin="at"))
        for m in _AT.finditer(block):
            self._at = number(m.start())
        for m in _ASCEND_FRAME.finditer(block):
            line, text = number(m.start()), decode_line(m.group(0)).strip()
            at = self._at > 0 and 0 < line - self._at <= REACH
            # pybind11 lists the deepest frame first (the first after "At:"); a traceback lists it last
            if not (at and self._ascend is not None and self._ascend[2] and self._ascend[0] > self._at):
                self._ascend = (line, text, at)
        for m in _FILE_FRAME.finditer(block):
            pkg = checkout_of(m.group(1).decode("utf-8", "replace"))
            if pkg:
                self._add(Component(pkg, "pip", line=number(m.start()), text=""))
        for m in _PACKAGE_FRAME.finditer(block):
            self.frames.append((number(m.start()), m.group(1).decode()))
        del self.frames[:-MAX_FRAMES]
        for m in _SHARED_OBJECT.finditer(block) if b".so" in block else ():
            self._add(Component(m.group(1).decode(), "pip", line=number(m.start()), text="", origin="shared"))
        for m in _COMPILER.finditer(block):
            tree = tree_of(m.group(1).decode("utf-8", "replace"))
            if tree:
                self._add(Component(tree, "tree", line=number(m.start()), text=shorten(decode_line(m.group(0))),
                                    origin="tree"))
        for m in _ASCEND_PATH.finditer(block):
            name = m.group(1).decode()
            start, end = block.rfind(b"\n", 0, m.start()) + 1, block.find(b"\n", m.end())
            line = block[start:len(block) if end < 0 else end]
            if name.lower() not in _ASCEND_SKIP and _ERROR_WORD.search(line):  # a frame or an error, not a setting
                self._add(Component(name, "ascend", line=number(m.start()), text="", origin="ascend"))
        if len(self.versions) < MAX_VERSIONS and any(n in block for n in _LISTING_NEEDLES):
            self._listing(block)

    def _listing(self, block: bytes) -> None:
        for raw in block.split(b"\n"):
            if not raw.strip() or len(raw) > 300:
                continue
            line = decode_line(raw)
            show = _SHOW_NAME.match(line)
            if show:
                self._show = show.group(1)
                continue
            version = _SHOW_VERSION.match(line)
            if version and self._show:
                self._note(self._show, version.group(1))
                self._show = None
                continue
            for m in [_ROW.match(line), *_WHEEL.finditer(line), *_IMAGE.finditer(line)]:
                if m:
                    self._note(m.group(1), m.group(2))

    def _note(self, name: str, version: str) -> None:
        key = name.lower().replace("_", "-")
        self.versions.setdefault(key, version)

    def near(self, root: RootLine) -> Component | None:
        """The nearest place that names a component within ``REACH`` lines above the root error line (or on it), or
        the first pybind11 frame list within ``REACH`` lines below it."""
        before = [p for p in self.places if 0 <= root.line - p.line <= REACH]
        if before:
            return max(before, key=lambda p: p.line)
        after = [p for p in self.places if p.follows and 0 < p.line - root.line <= REACH]
        return min(after, key=lambda p: p.line) if after else None

    def caller(self, line: int, innermost: str) -> str | None:
        """The package that called a foundation library whose frame is the innermost above ``line``: the next frame
        outward, in the same traceback, of a package that is not a foundation library (None when there is none)."""
        if innermost not in FOUNDATION:
            return None
        last = line
        for at, package in reversed([f for f in self.frames if f[0] < line]):
            if last - at > (REACH if last == line else FRAME_GAP):
                return None
            if package not in FOUNDATION:
                return package
            last = at
        return None

    def ascend_frame(self) -> RootLine | None:
        """The innermost call-stack frame in an Ascend install, as a root for a log that has no error line."""
        if self._ascend is None:
            return None
        line, text, _ = self._ascend
        return RootLine(line, shorten(text), 1, text, frame=True)

    def version_of(self, pip: str | None) -> str | None:
        return self.versions.get(pip.lower().replace("_", "-")) if pip else None


def read(root: RootLine, frame: str | None, named: str | None, native: tuple[str, str] | None, crashed: str | None,
         scanner: ComponentScanner, others: tuple[tuple[RootLine, str | None], ...] = (),
         said: tuple[str, str] | None = None) -> tuple[Component | None, bool]:
    """The failing component of the root error line, from the most direct reading to the least: its traceback frame's
    package, the module it names, the framework whose sources it quotes, the extension a crashed import loaded,
    pybind11's frame list, a compiler error's tree or an Ascend component path above it; then the same readings
    (frame, places) of the other strongest error lines (``others``: each line with its frame's package), in log
    order — a report that quotes its error first and the traceback below it; last, the component of the NPU stack
    whose own message the root error line is (``said``: import name, pip name). Also whether the process crashed
    while importing it."""
    caller = scanner.caller(root.line, frame) if frame else None
    if caller:  # the innermost frame is torch's or NumPy's, called with the arguments of the package outward
        found = Component(caller, "pip", module.pip_name(caller), line=root.line, via=frame)
    elif frame or named:
        found = Component(frame or named, "pip", module.pip_name(frame or named), line=root.line)
    elif native:
        found = Component(native[0], "pip", native[1], line=root.line, origin="native")
    elif crashed:
        return Component(crashed, "pip", module.pip_name(crashed), line=root.line), True
    else:
        found = scanner.near(root)
        for line, package in others:
            if found is not None:
                break
            found = Component(package, "pip", line=line.line) if package else scanner.near(line)
        if found is None and said is not None:
            found = Component(said[0], "pip", said[1], line=root.line, origin="message")
        if found is None:
            return None, False
        if found.kind == "pip" and found.pip is None:
            found = Component(found.name, "pip", module.pip_name(found.name), line=found.line, text=found.text,
                              origin=found.origin)
    return Component(found.name, found.kind, found.pip, scanner.version_of(found.pip or found.name), found.line,
                     found.text, via=found.via, origin=found.origin), False


def npu_stack(found: Component | None) -> bool:
    """Whether the component is part of the NPU stack (an Ascend component, an NPU package, a tree with a CANN back
    end): a log whose error is raised there is an Ascend log."""
    if found is None:
        return False
    return found.kind == "ascend" or module.npu_stack({"module": found.name}) or (
        found.kind == "tree" and "cann" in found.text.lower())


def dependency(root: RootLine, found: Component) -> str | None:
    """A package other than the component that the root error line names (its version the component may pin)."""
    for m in _DEPENDENCY.finditer(root.whole or root.text):
        name = m.group(1) or _ALIASES.get(m.group(2) or "") or m.group(3)
        pip = module.pip_name(name) if name else None
        if pip and pip != (found.pip or found.name) and name not in ("builtins", "__main__"):
            return pip
    return None


def remedy(found: Component, dep: str | None) -> str:
    """The fix in the reader's language: the remedy of the component's kind, its releases and issues, a pin."""
    if found.kind == "tree":
        fix = t("explain.failing.fix_tree", tree=found.name)
    elif found.kind == "ascend":
        fix = t("explain.failing.fix_ascend", component=found.name)
    elif found.pip in PACKAGES:
        word = torch_install.PLACEHOLDER
        fix = t("explain.failing.fix_torch", component=found.name, install=torch_install.pair_text(word, word))
    else:
        fix = t("explain.failing.fix_pip", component=found.name, pip=found.pip or found.name)
    if dep:
        fix += t("explain.failing.fix_pin", component=found.name, pip=found.pip or found.name, dependency=dep)
    return fix + t("explain.failing.fix_issues", component=found.name)


def raised_note(raised: Template, part: Subsystem | None) -> str:
    """Where the component raises the message: the file and function (a library's file alone), and the subsystem
    that file belongs to (round 30)."""
    place = (t("explain.failing.place_function", path=raised.path, function=raised.function) if raised.function
             else t("explain.failing.place_file", path=raised.path))
    if part is None:
        return t("explain.failing.raised_at", place=place)
    return t("explain.failing.raised_in", product=part.product, subsystem=part.name(), place=place)


def subsystem_fix(part: Subsystem | None) -> str:
    """The subsystem's own documentation, when the table names a page."""
    if part is None or not part.doc:
        return ""
    return t("explain.failing.fix_doc", product=part.product, subsystem=part.name(), doc=part.doc)


def finding(root: RootLine, found: Component, raised: Template | None = None) -> Finding:
    """The ``failing_component`` finding: the error is raised inside the component; the remedy of its kind. When
    the root line is one of the component's own messages (``raised``), where it raises it and which subsystem that
    is, with the subsystem's page."""
    where = {"frame": t("explain.failing.where_frame"), "native": t("explain.failing.where_native"),
             "at": t("explain.failing.where_at"), "shared": t("explain.failing.where_shared"),
             "tree": t("explain.failing.where_tree"), "ascend": t("explain.failing.where_ascend"),
             "message": t("explain.failing.where_message")}[found.origin]
    if found.via:
        where = t("explain.failing.where_caller", library=found.via)
    cause = t("explain.failing.cause", component=found.label, where=where)
    fix = remedy(found, dependency(root, found))
    sources = list(SOURCES)
    if raised is not None and raised.pip == (found.pip or found.name):
        part = subsystem_of(raised)
        cause += raised_note(raised, part)
        fix += subsystem_fix(part)
        sources += [part.doc] if part is not None and part.doc else []
    evidence = {root.line: Evidence(root.line, root.text)}
    if found.text and found.line != root.line:
        evidence[found.line] = Evidence(found.line, found.text)
    return Finding(CATEGORY, t("explain.failing.title", component=found.label), [], cause, fix,
                   sorted(evidence.values(), key=lambda e: e.line), sources, priority=0, casebook="read-a-code", kind="rule", rule=CATEGORY)
