"""Extract the messages the NPU stack's released code raises or logs → ``npulab/data/npu_messages.yaml`` (issue 36, round 20).

The index lets ``explain`` recognise an error of the NPU stack by its message alone, in a log that shows no machine
(``npulab/env/explain/stack.py``). Every template comes from a pinned artifact, never from a log:

- MindSpore (the wheel installed in the project's environment): its Python sources' ``raise X(<message>)`` and
  logger / ``warnings.warn`` format strings, and the printable strings of its own C++ libraries
  (``_c_expression*.so``, ``_c_dataengine*.so``, ``_c_mindrecord*.so``, ``lib/libmindspore_*.so`` without the bundled
  gRPC / upb libraries);
- torch_npu (the wheel in ``~/.cache/npulab/torch_npu/``): its Python sources and the strings of its ``lib/*.so``;
- vLLM-Ascend (a bare git mirror, ``HEAD``): its Python sources' raise and logger strings.

A placeholder (``%s``, ``{}``, ``{name}``, an f-string's field, a non-literal operand of ``+`` or ``%``) becomes the
wildcard ``<*>``; a C++ message streamed with ``<<`` is split by the compiler into its literal parts, each a string of
its own in the library, so each part is a template matched anywhere in a line. Kept only distinctive templates: at
least ``MIN_WORDS`` words of letters in the literal parts, a literal part of at least ``MIN_PART`` characters, and not
generic: a template whose word trigrams all occur in torch 2.13.0's own strings (its ``lib/*.so`` and its Python
sources' string literals) is dropped, so a phrase like "No such file or directory" never counts.

Usage: ``PYTHONPATH=. python scripts/extract_npu_messages.py [--out FILE]`` (needs ``strings`` from binutils).
"""

from __future__ import annotations

import argparse
import ast
import importlib.metadata
import importlib.util
import re
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "npulab" / "data" / "npu_messages.yaml"
Places = dict[str, set[str]]  # template → where it is raised: a file path, ":function" added for a Python source
WHEEL_DIR = Path.home() / ".cache" / "npulab" / "torch_npu"
VLLM_ASCEND = Path("/work/.mirror/vllm-project+vllm-ascend/repo")
WILD = "<*>"
BESIDE = ("numpy", "scipy", "transformers")  # installed beside torch: their messages are not the NPU stack's own
# a vLLM-Ascend file whose head says it was taken from another project (vLLM's code, patched) carries that project's
# messages, not vLLM-Ascend's own
_ADAPTED = re.compile(r"(?i)\b(?:adapted|copied|modified|borrowed|mostly|ported|derived) from\b")
ADAPTED_HEAD = 2000  # characters of a file's head read for that note
_RELEASE = re.compile(r"v\d+(?:\.\d+)+(?:\.post\d+)?")
MIN_WORDS = 4  # words of prose in the literal parts (a library string, whose level is unknown: NATIVE_WORDS)
MIN_PART = 16  # characters of the longest literal part
MAX_LEN = 40  # characters of a template, at most (cut at a word before it: the first words are distinctive already)
NATIVE_WORDS = 5
MIN_NOVEL = 1  # word trigrams that torch's own strings lack, at least (a library string: NATIVE_NOVEL)
NATIVE_NOVEL = 2
# a library string's level is not known: kept only when it reads as an error — a word of failure, refusal or
# requirement, or a prefix that ends in ":" before a streamed value (``MS_EXCEPTION(TypeError) << "…: " << name``)
_ERROR_WORDS = re.compile(r"(?i)\b(?:not|no|cannot|can't|failed|fail(?:s|ure)?|errors?|invalid|illegal|unsupported|must|"
                          r"should|only|expect(?:s|ed)?|got|mismatch(?:ed)?|exceeds?|empty|null|missing|unknown|wrong|"
                          r"duplicated?|conflicts?|required?|allowed|please|unable|abnormal|timeout|overflow|out of)\b")
LOG_CALLS = frozenset({"error", "critical", "exception", "fatal", "warning", "warn", "warning_once", "error_once",
                       "info_once", "warning_one_time"})
# printf-style conversions, {fmt} fields, and the "%(name)s" form
_PLACEHOLDER = re.compile(r"%(?:\([\w.]+\))?[-+ #0]*\d*(?:\.\d+)?(?:hh|h|ll|l|z|j|t|L)?[diouxXeEfFgGcsp]|\{[^{}]{0,40}\}")
_WORD = re.compile(r"[A-Za-z]{2,}")
# a word of prose (not an identifier, a type or a signature part): letters only, maybe closed by punctuation
_PROSE = re.compile(r"(?<![\w.'\"`(<\[])[A-Za-z][a-z]+[,.;:!?]?(?=\s|$)")
# an identifier inside a message (an operator, a parameter, a file name part): snake_case or with digits
_IDENT = re.compile(r"(?<![\w<*])[A-Za-z_]*(?:_[A-Za-z0-9]|[A-Za-z][0-9])\w*")
# a C++ string that reads as a message: printable, letters and spaces, at least three spaces
_PRINTABLE = re.compile(r"^[\x20-\x7e]+$")
_NOT_MESSAGE = re.compile(r"_Z[A-Z0-9]|::\w+::|\.(?:cc|cpp|h|hpp|py|so)\b|https?://|/[\w.-]+/|\\n|^\W*$|[{};]\s*$|"
                          r"\b(?:const|void|std|template|typename|unsigned)\b|GLIBC")


def template_of(parts: list[str | None]) -> str:
    """A template from literal parts (``None`` for a value): placeholders inside literals become wildcards too."""
    out = []
    for part in parts:
        if part is None:
            out.append(WILD)
        else:
            out.append(_PLACEHOLDER.sub(WILD, part.replace("{{", "{").replace("}}", "}")))
    text = re.sub(r"\s+", " ", "".join(out)).strip()
    text = re.sub(r"(?:<\*>\s*){2,}", WILD + " ", text).strip()
    return text


def literal_parts(template: str) -> list[str]:
    return [p for p in template.split(WILD) if p.strip()]


def distinctive(template: str, words: int = MIN_WORDS) -> bool:
    """Several words and one long literal part, not only placeholders and punctuation."""
    parts = literal_parts(template)
    if not parts or max(len(p.strip()) for p in parts) < MIN_PART:
        return False
    return sum(len(_PROSE.findall(p)) for p in parts) >= words


def _parts(node: ast.AST) -> list[str | None] | None:
    """The literal parts of a message expression, ``None`` for each value; None when it holds no literal."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.JoinedStr):
        return [v.value if isinstance(v, ast.Constant) and isinstance(v.value, str) else None for v in node.values]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _parts(node.left), _parts(node.right)
        if left is None and right is None:
            return None
        return (left or [None]) + (right or [None])
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        return _parts(node.left)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format":
        return _parts(node.func.value)
    return None


def python_templates(source: str) -> dict[str, str]:
    """The messages of ``raise X(<message>)``, ``assert c, <message>``, logger calls and ``warnings.warn`` in one
    Python source, each with the qualified name of the function it is raised in (``<module>`` at module level; the
    first occurrence by line when a file raises it twice)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return {}
    found: dict[str, tuple[int, str]] = {}
    for node, scope in _scoped(tree):
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and node.exc.args:
            message = node.exc.args[0]
        elif isinstance(node, ast.Assert) and node.msg is not None:
            message = node.msg
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args and (
                node.func.attr in LOG_CALLS):
            message = node.args[0]
        else:
            continue
        parts = _parts(message)
        if parts:
            template = template_of(parts)
            found[template] = min(found.get(template, (node.lineno, scope)), (node.lineno, scope))
    return {template: scope for template, (_, scope) in found.items()}


def _scoped(tree: ast.AST):
    """Every node of the tree with the qualified name of the function or class that holds it (``<module>``)."""
    pending = [(tree, "")]
    while pending:
        node, scope = pending.pop()
        yield node, scope or "<module>"
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            scope = f"{scope}.{node.name}" if scope else node.name
        pending.extend((child, scope) for child in ast.iter_child_nodes(node))


def string_literals(source: str) -> list[str]:
    """Every string literal of a Python source (the torch corpus that marks a phrase generic)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    return [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)]


def binary_strings(path: Path, minimum: int = 12) -> list[str]:
    out = subprocess.run(["strings", "-n", str(minimum), str(path)], capture_output=True, check=True).stdout
    return out.decode("ascii", "replace").splitlines()


def binary_templates(path: Path) -> set[str]:
    """The printable strings of a C++ library that read as messages, as templates."""
    found = set()
    for s in binary_strings(path, MIN_PART):
        if not _PRINTABLE.match(s) or s.count(" ") < 3 or _NOT_MESSAGE.search(s):
            continue
        letters = sum(c.isalpha() or c == " " for c in s)
        if letters < 0.8 * len(s):
            continue
        found.add(template_of([s]))
    return found


def trigrams(text: str) -> set[tuple[str, ...]]:
    words = _WORD.findall(text.lower())
    return {tuple(words[i:i + 3]) for i in range(len(words) - 2)}


def torch_corpus(site: Path) -> set[tuple[str, ...]]:
    """The word trigrams of torch's own strings (its C++ libraries and its Python sources' literals) and of the Python
    sources of the libraries the stack reimplements or wraps (``mindspore.numpy`` and ``mindspore.scipy`` keep NumPy's
    and SciPy's messages; model code keeps transformers')."""
    grams: set[tuple[str, ...]] = set()
    for lib in sorted((site / "torch" / "lib").glob("*.so*")):
        for s in binary_strings(lib, 8):
            if " " in s:
                grams |= trigrams(s)
    for package in ("torch",) + BESIDE:
        for py in (site / package).rglob("*.py"):
            for s in string_literals(py.read_text("utf-8", "replace")):
                if " " in s:
                    grams |= trigrams(s)
    return grams


def generic(template: str, torch_grams: set[tuple[str, ...]], novel: int = MIN_NOVEL) -> bool:
    """Whether fewer than ``novel`` word trigrams of the template's literal parts are missing from torch's strings."""
    grams = set().union(*(trigrams(p) for p in literal_parts(template)))
    return len(grams - torch_grams) < novel


def cut(template: str) -> str:
    if len(template) <= MAX_LEN:
        return template
    return template[:MAX_LEN].rsplit(" ", 1)[0]


def _merge(into: Places, found: dict[str, str] | set[str], where: str) -> None:
    """Adds the templates of one file (``where``: its path, and for a Python source each template's function)."""
    for template in found:
        into.setdefault(template, set()).add(f"{where}:{found[template]}" if isinstance(found, dict) else where)


def mindspore_sources(site: Path) -> tuple[Places, Places, list[str]]:
    root = site / "mindspore"
    py: Places = {}
    for f in sorted(root.rglob("*.py")):
        _merge(py, python_templates(f.read_text("utf-8", "replace")), f.relative_to(site).as_posix())
    libs = sorted(root.glob("_c_*.so")) + sorted(p for p in (root / "lib").glob("libmindspore_*.so*")
                                                  if not re.search(r"grpc|gpr|upb|address_sorting", p.name))
    native: Places = {}
    for lib in libs:
        _merge(native, binary_templates(lib), lib.relative_to(site).as_posix())
    return py, native, [p.relative_to(site).as_posix() for p in libs]


def torch_npu_sources(wheel: Path) -> tuple[Places, Places]:
    py: Places = {}
    native: Places = {}
    with tempfile.TemporaryDirectory() as tmp, zipfile.ZipFile(wheel) as z:
        for name in sorted(z.namelist()):
            if name.endswith(".py") and name.startswith("torch_npu/"):
                _merge(py, python_templates(z.read(name).decode("utf-8", "replace")), name)
            elif name.startswith("torch_npu/lib/") and ".so" in name:
                path = Path(z.extract(name, tmp))
                _merge(native, binary_templates(path), name)
                path.unlink()
    return py, native


def releases(repo: Path) -> list[str]:
    """The repository's final release tags (``vX.Y.Z`` and ``.postN``, no release candidates), oldest first."""
    tags = subprocess.run(["git", "--git-dir", str(repo), "tag"], capture_output=True, text=True,
                          check=True).stdout.split()
    final = [t for t in tags if _RELEASE.fullmatch(t)]
    return sorted(final, key=lambda t: tuple(int(n) for n in re.findall(r"\d+", t)))


def vllm_ascend_sources(repo: Path) -> tuple[Places, str, list[str]]:
    """The messages of ``vllm_ascend/**/*.py`` at ``HEAD`` and at every final release (users run older releases; a
    message a later release dropped is still the one their logs print); each file version is read once, under the
    path it has in the newest tree that holds it."""
    git = ["git", "--git-dir", str(repo)]
    commit = subprocess.run(git + ["rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
    tags = releases(repo)
    blobs: dict[str, str] = {}
    for ref in [*tags, commit]:
        rows = subprocess.run(git + ["ls-tree", "-r", ref, "--", "vllm_ascend"], capture_output=True, text=True,
                              check=True).stdout.splitlines()
        for row in rows:
            meta, _, name = row.partition("\t")
            if name.endswith(".py"):
                blobs[meta.split()[2]] = name
    batch = subprocess.run(git + ["cat-file", "--batch"], input="\n".join(blobs).encode() + b"\n",
                           capture_output=True, check=True).stdout
    py: Places = {}
    at = 0
    while at < len(batch):
        header_end = batch.index(b"\n", at)
        sha, _, size = batch[at:header_end].decode().split()
        size = int(size)
        source = batch[header_end + 1:header_end + 1 + size].decode("utf-8", "replace")
        at = header_end + 1 + size + 1
        if not _ADAPTED.search(source[:ADAPTED_HEAD]):
            _merge(py, python_templates(source), blobs[sha])
    return py, commit, tags


def kept(template: str, torch_grams: set[tuple[str, ...]], native: bool) -> bool:
    """A distinctive, not generic template; a library string (``native``) also reads as an error."""
    if native:
        return (distinctive(template, NATIVE_WORDS) and not generic(template, torch_grams, NATIVE_NOVEL)
                and bool(_ERROR_WORDS.search(template) or template.endswith(":")))
    return distinctive(template) and not generic(template, torch_grams)


def select(python: Places, native: Places, torch_grams: set[tuple[str, ...]]) -> dict[str, str]:
    """The kept templates of Python sources and of libraries, cut to ``MAX_LEN``, each with the first of the places
    that raise it (sorted: a file path, with ``:function`` for a Python source); messages that differ only in
    identifiers (one per operator: "Current operator <op> do not support internal format.") become one first, with
    the identifiers as wildcards."""
    chosen: Places = {}
    for templates, native_ in ((python, False), (native, True)):
        for template, places in collapse(templates).items():
            if kept(cut(template), torch_grams, native_):
                chosen.setdefault(cut(template), set()).update(places)
    return {template: min(chosen[template]) for template in sorted(chosen)}


def collapse(templates: Places) -> Places:
    """Templates that differ only in identifiers, as one template with wildcards for them (raised where they are)."""
    groups: dict[str, list[str]] = {}
    for t in templates:
        groups.setdefault(template_of([None if i % 2 else p for i, p in enumerate(_split_idents(t))]), []).append(t)
    out: Places = {}
    for key, members in groups.items():
        for m in members:
            out.setdefault(key if len(members) > 1 and distinctive(key) else m, set()).update(templates[m])
    return out


def _split_idents(template: str) -> list[str]:
    """The template split at identifiers: literal, identifier, literal, … (identifiers at odd positions)."""
    out, last = [], 0
    for m in _IDENT.finditer(template):
        out += [template[last:m.start()], m.group(0)]
        last = m.end()
    return out + [template[last:]]


def yaml_string(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    site = Path(importlib.util.find_spec("mindspore").origin).resolve().parents[1]  # found, not imported
    ms_version = importlib.metadata.version("mindspore")
    torch_version = importlib.metadata.version("torch")
    wheel = sorted(WHEEL_DIR.glob("torch_npu-*.whl"))[-1]
    print("torch corpus …", file=sys.stderr)
    grams = torch_corpus(site)
    print("mindspore …", file=sys.stderr)
    ms_py, ms_native, ms_libs = mindspore_sources(site)
    print("torch_npu …", file=sys.stderr)
    npu_py, npu_native = torch_npu_sources(wheel)
    print("vllm-ascend …", file=sys.stderr)
    va_py, commit, tags = vllm_ascend_sources(VLLM_ASCEND)
    components = {
        "mindspore": ("mindspore", select(ms_py, ms_native, grams)),
        "torch_npu": ("torch-npu", select(npu_py, npu_native, grams)),
        "vllm_ascend": ("vllm-ascend", select(va_py, {}, grams)),
    }
    lines = [
        "# The messages the NPU stack's released code raises or logs: one template per message, \"<*>\" for a value.",
        "# Generated by scripts/extract_npu_messages.py (issue 36, round 20); do not edit by hand. Sources:",
        f"# - mindspore {ms_version} (the wheel installed from https://pypi.org/project/mindspore/{ms_version}/): its",
        "#   Python sources' raise / assert / logger / warnings.warn messages and the printable strings of " + ", ".join(
            Path(p).name for p in ms_libs[:3]) + " and lib/libmindspore_*.so",
        f"# - torch_npu {wheel.name.split('-')[1]} ({wheel.name}, https://pypi.org/project/torch-npu/): torch_npu/**/*.py and "
        "torch_npu/lib/*.so strings",
        f"# - vllm-ascend https://github.com/vllm-project/vllm-ascend at commit {commit} and its releases",
        f"#   {', '.join(tags)}: vllm_ascend/**/*.py (not the files whose head says they were adapted from another project)",
        f"# Kept (cut to {MAX_LEN} characters): >= {MIN_WORDS} words of prose and a literal part of >= {MIN_PART} characters,",
        f"# not generic (>= {MIN_NOVEL} word trigrams that the strings and sources of torch {torch_version} and the sources of",
        "# " + ", ".join(f"{p} {importlib.metadata.version(p)}" for p in BESIDE) + " lack); a library",
        f"# string: >= {NATIVE_WORDS} words, >= {NATIVE_NOVEL} such trigrams, and an error's words or a trailing \":\".",
        "# Each component's templates are listed under the place that raises them (round 30): the file in the wheel or",
        "# the repository, \":function\" added for a Python source (a library's strings carry no function); a template",
        "# raised in several places is listed under the first of them, sorted.",
        "components:",
    ]
    for name, (pip, templates) in components.items():
        lines.append(f"  {name}:")
        lines.append(f"    pip: {pip}")
        lines.append("    raised:")
        by_place: dict[str, list[str]] = {}
        for template, place in templates.items():
            by_place.setdefault(place, []).append(template)
        for place in sorted(by_place):
            lines.append(f"      {yaml_string(place)}:")
            lines.extend(f"      - {yaml_string(t)}" for t in by_place[place])
        print(name, len(templates), len(by_place), file=sys.stderr)
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{args.out}: {args.out.stat().st_size} bytes", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
