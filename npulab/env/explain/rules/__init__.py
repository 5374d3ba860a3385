"""General rules over the structure of Ascend error messages: what a line says, not which thread it resembles.

One module per concern, each a ``Rule`` (needles that pre-select lines, how it reads a line, how its hits become a
finding), data in npulab/data/explain_rules.yaml and npulab/data/ascend_packages.yaml:

- ``advice``        — the message's own advice ("Please …", "Solution: …", "请…"), quoted as the first fix;
- ``device``        — torch does not know the ``npu`` device (``… device string: npu``): torch_npu was not imported;
- ``cuda``          — a CUDA call in an error line (``torch.cuda.synchronize``, ``.cuda()``): its NPU counterpart;
- ``module``        — ``No module named X`` / ``cannot import name``: which distribution provides X, and what is wrong;
- ``library``       — ``libX.so: cannot open shared object file``: which package ships it, how it gets on the path;
- ``header``        — ``fatal error: acl/acl.h: No such file or directory``: which Ascend component's include tree;
- ``symbol``        — ``undefined symbol`` / ``Failed to find function``: which two packages' versions disagree;
- ``exception``     — a Python exception read from its own form: a call that does not fit a signature (releases that
  do not pair), operands of two data types, an argument outside its allowed values, a launcher's missing variable;
- ``misspelt``      — an Ascend environment variable set one letter away from a documented name (nothing reads it);
- ``values``        — an Ascend environment variable set to a value its documentation does not allow (lint-npu's grammar);
- ``renumbered``    — a logical device id beside ASCEND_VISIBLE_DEVICES (the chips a container mounts) that the
  container does not have: ``visible_devices``;
- ``ordinal``       — a device index of -1 (no device set in the process) or two NPU indices in one error line;
- ``sizing``        — a size named like an environment variable is "too small/large": raise or lower that variable;
- ``setting``       — a path that does not exist, or an Ascend environment variable the error is about: what sets it;
- ``requirement``   — pip's "X requires Y, but you have Z", "not a supported wheel on this platform", and two
  requirers' exact pins of one package that disagree: which version, or which Python and machine, the package wants;
- ``graph``         — graph capture and graph-mode failures: eager fallback, the op that broke capture;
- ``recompile``     — torch.compile's recompilation limit (a WARNING the PyTorch docs ask to act on): eager fallback;
- ``communication`` — timeouts of collectives and device synchronisation: the documented HCCL settings;
- ``port``          — a port already taken, in any wording: HCCL's sockets (the ``hccl_network`` family);
- ``resource``      — UB, workspace, HBM and host memory limits: the knob that sizes each;
- ``capability``    — "not supported" with a chip, data type, format, op, version or mode: what, on what, instead;
- ``workspace``     — MindSpore's "aclnnXGetWorkSpaceSize call failed" with no reason from CANN: a CANN older than
  the operator (MindSpore's FAQ), ``version_mismatch``;
- ``kernel_select`` — MindSpore's kernel selection that found no kernel for an operator: ``dtype_unsupported`` with
  the supported and given data types, or ``op_fallback`` when no kernel exists on Ascend;
- ``requirement_check`` — an aclnn call that failed on a requirement its inner error states ("must be …",
  "uncontiguous input"): ``aclnn_param_check``;
- ``container``     — the NPU not detected in a log that shows a container: ``driver_not_mounted``;
- ``fallback``      — the work said to run on the CPU: the Ascend back end's documented limits (llama.cpp: FP16,
  Q4_0, Q8_0);
- ``chip``          — an Atlas inference-series chip (310/310B/310P) in an error line: ``unsupported_soc``, last of
  the families;
- ``warning``       — a back end's documented warning that an op runs on the CPU (Paddle) or that float64 became
  float32 (torch_npu): ``op_fallback``, ``dtype_unsupported``, after every family an error line shows;
- ``sleep``         — vLLM's sleep mode that freed 0 GiB: expandable segments off, enable_sleep_mode on;
- ``pairing``       — installed releases a package listing shows that do not pair (torch and torch_npu, torchvision,
  torchaudio, vLLM and vLLM-Ascend, a wheel's +torch label): ``version_mismatch``;
- ``driver``        — a driver call's return code read through the driver's ``drvError_t`` (``driver_error_codes.yaml``):
  a code whose name is a family's cause (a device held elsewhere, out of memory, no permission, not supported);
- ``registry``      — a CANN error code read through CANN's own registry (``cann_error_registry.yaml``): a class that
  denotes a family reports it, any other user-class code its registered solution (when the log printed none);
- ``component``     — the service, operator or subprocess the line names and its documented remedy (a summary
  component, such as vLLM's "Engine core initialization failed", only when nothing else was found).

A rule whose noun belongs to a catalog family reports that family (its own reading of the line added to the fix);
when the catalog already reported the family, the reading is added to that finding. Family findings come first,
then the rules' own findings (the message's advice first), then the generic finding.

``RuleScanner`` reads the blocks of a log like the other scanners: only lines that contain a rule's needle are
decoded; lines at WARNING/INFO level, and indented lines under them, are read only by a rule that reads documented
warnings (``Rule.warnings``) or one form of them (``Rule.read_warning``: torch_npu's "Failed to find function"). The state carried from one
block to the next (the last unindented line) makes the result independent of where blocks are cut.
"""

from __future__ import annotations

import bisect
import re

from npulab.env.explain.catalog import load_catalog
from npulab.env.explain.matcher import Finding
from npulab.env.explain.reader import decode_line, hit_lines, line_at, shorten
from npulab.env.explain.root import quiet, rank
from npulab.env.explain.rules import (
    advice,
    capability,
    chip,
    choice,
    communication,
    component,
    container,
    cuda,
    device,
    driver,
    exception,
    fallback,
    graph,
    header,
    kernel_select,
    library,
    misspelt,
    module,
    ordinal,
    pairing,
    port,
    recompile,
    registry,
    renumbered,
    requirement,
    requirement_check,
    resource,
    setting,
    sizing,
    sleep,
    symbol,
    values,
    warning,
    workspace,
)
from npulab.env.explain.rules.base import LogFacts, Rule, RuleHit, note_mark

LOOK_BUDGET = 5_000  # lines above WARNING level a rule reads, at most, in one log
RULES: tuple[Rule, ...] = (advice.RULE, device.RULE, cuda.RULE, module.RULE, library.RULE, header.RULE, symbol.RULE, requirement.RULE,
                           workspace.RULE, kernel_select.RULE, requirement_check.RULE, exception.RULE, misspelt.RULE, values.RULE, renumbered.RULE, ordinal.RULE, sizing.RULE, setting.RULE, graph.RULE, recompile.RULE,
                           communication.RULE, port.RULE, container.RULE, fallback.RULE, resource.RULE, capability.RULE, chip.RULE,
                           warning.RULE, sleep.RULE, pairing.RULE, driver.RULE, registry.RULE, component.RULE)  # component last: it may be a summary
FRAMEWORKS = {  # what the log shows, for framework-specific advice (lower-cased needles)
    # … and vLLM V1's process names, which it prints before each line of a process: "(EngineCore_DP0 pid=…)",
    # "(APIServer pid=…)" (vllm/v1/engine/core.py run_engine_core: set_process_title("EngineCore_DP<rank>"))
    "vllm": (b"vllm", b"(enginecore", b"(apiserver pid="), "mindspore": (b"mindspore",),
    "torch": (b"torch._dynamo", b"torch/_dynamo", b"torch.compile", b"torch._inductor", b"torchair", b"torch.fx"),
    "ggml": (b"gguf", b"llama.cpp", b"llama-box", b"llama_cpp", b"ggml"),  # llama.cpp and the servers built on it
    "container": (b"docker", b"container", b"kubernetes", b"k8s", b"podman", "容器".encode()),
    "acl": (b"aclgraph", b"acl graph", b"npugraph", b"aclmdlri", b"capture mode", b"capture_begin"),
}
# what launchers put before every line of a process: vLLM's "(EngineCore pid=12) ", torchrun's "[rank3]: "
_LAUNCHER = rb"(?:\((?:[\w.]+ )+pid=\d+\)|\[rank\d+\]:)"
# a line that continues the message above it: indented (after the launcher's prefix, by two spaces or a tab) or a
# "Solution:" / "Possible Cause:" line (":" or the full-width one in UTF-8)
_CONTINUES = (rb"(?:" + _LAUNCHER + rb"(?: {2,}|\s*\t)|[ \t]|(?:" + _LAUNCHER + rb")?\s*"
              rb"(?:Solution|Suggestion|Possible Cause)\s*(?::|\xef\xbc\x9a))")
_HEAD = re.compile(rb"(?m)^(?!" + _CONTINUES + rb")[^\n]*\S")  # an unindented, non-empty line that starts a message
IS_CONTINUATION = re.compile(_CONTINUES.decode().replace(r"\xef\xbc\x9a", "："))
LAUNCHER_PREFIX = re.compile(_LAUNCHER.decode() + " ?")


_CONTINUES_BYTES = re.compile(_CONTINUES)
# CANN's own "TraceBack (most recent call last):" under a coded error: the lines indented under it are its causes
CANN_TRACEBACK = re.compile(r"^\W*(?:" + _LAUNCHER.decode() + r"\s*)?TraceBack \(most recent call last\)")


# a command line echoed in the log: a program (after an optional shell prompt) and at least one --option
_COMMAND = re.compile(r"^\s*(?:[$#>]\s+)?([A-Za-z_][\w.-]*(?:/[\w.-]+)*)(?:\s+[\w./][\w./:=-]*){0,3}\s+--[A-Za-z]")
_OPTION = re.compile(r"(?<=\s)--([A-Za-z][\w-]*)")
# a line saying that something the program wanted is not there (a warning, usually): "X are unavailable", "X is not
# available", "compiled without GPU support"
_UNAVAILABLE_NEEDLES = (b"unavailable", b"not available", b"without gpu support", b"without npu support")
_UNAVAILABLE = re.compile(r"(?i)\b(?:are|is)\s(?:un|not\s)available\b|without [GN]PU support")
_OPEN_END = re.compile(r"[\w,]$")  # a clause the line's end cuts off: no full stop, colon or bracket closes it
_NOT_PROSE = re.compile(r"^\s+(?:File \"|at |\^|~|\||\[|\()")  # a traceback frame, a caret line, a table or a list


def _unwrapped(block: bytes, end: int, text: str, most: int = 3) -> str:
    """A message wrapped over indented lines: the line read on through the (at most ``most``) indented prose lines
    that continue it, while it ends mid-clause. Within the block: a line cut at the block's end is read as it is."""
    while most and _OPEN_END.search(text) and end < len(block):
        stop = block.find(b"\n", end + 1)
        stop = len(block) if stop < 0 else stop
        follow = decode_line(block[end + 1:stop])
        if not follow[:1].isspace() or not follow.strip() or _NOT_PROSE.match(follow):
            break
        text, end, most = f"{text.rstrip()} {follow.strip()}", stop, most - 1
    return text


def last_head(block: bytes) -> str | None:
    """The block's last unindented, non-empty line (read backwards: usually the very last line)."""
    pos = len(block)
    while pos > 0:
        start = block.rfind(b"\n", 0, pos) + 1
        line = block[start:pos]
        if line.strip() and not _CONTINUES_BYTES.match(line):
            return decode_line(line)
        pos = start - 1
    return None


class RuleScanner:
    """Collects, over the blocks of a log, the first lines each rule reads (at most ``Rule.most`` per rule)."""

    # Warning and info lines cost a decode and two regular expressions each; error-level lines that hold a rule's
    # needle cost that rule's reading, for the first LOOK_BUDGET of them only.

    def __init__(self, rules: tuple[Rule, ...] = RULES):
        self.rules = rules
        self.hits: dict[str, list[RuleHit]] = {r.name: [] for r in rules}
        self.facts = LogFacts()
        self._head = ""  # the last unindented line before the current block
        self._looked: dict[str, int] = dict.fromkeys(self.hits, 0)  # candidate lines each rule has looked at

    def feed(self, first_line: int, block: bytes) -> None:
        """Read one block of whole lines."""
        lowered = block.lower()
        for name, needles in FRAMEWORKS.items():
            if name not in self.facts.frameworks and any(n in lowered for n in needles):
                self.facts.frameworks.add(name)
        if self.facts.unavailable is None:
            self._note_unavailable(first_line, block, lowered)
        if self.facts.uncalled is None:
            self._note_uncalled(first_line, block, lowered)
        if self.facts.command is None and b" --" in block:
            self._note_command(block)
        active = [r for r in self.rules if self._wants(r)]
        candidates: dict[int, tuple[int, list[Rule]]] = {}  # line start → (line end, the rules whose needle it holds)
        for rule in active:
            for start, end in hit_lines(block, lowered, rule.needles):
                candidates.setdefault(start, (end, []))[1].append(rule)
        heads: list[int] | None = None  # offsets of the block's unindented lines, computed when first needed
        for start in sorted(candidates):
            end, wanting = candidates[start]
            wanting = [r for r in wanting if self._wants(r)]
            if not wanting:
                continue
            line = decode_line(block[start:end])
            if IS_CONTINUATION.match(line):
                if heads is None:
                    heads = [m.start() for m in _HEAD.finditer(block)]
                head = self._head_before(block, heads, start)
            else:
                head = line
            hushed = quiet(line) or quiet(head)
            if hushed and not any(r.warnings or r.read_warning for r in wanting):
                continue
            body, is_error = LAUNCHER_PREFIX.sub("", line, count=1), None
            for rule in wanting:
                if hushed and not (rule.warnings or rule.read_warning):
                    continue
                self._looked[rule.name] += 1
                if rule.needs_error:
                    if is_error is None:
                        is_error = rank(line) > 0 or rank(head) > 0 or bool(CANN_TRACEBACK.match(head))
                    if not is_error:
                        continue
                read = rule.read_warning if hushed and not rule.warnings else rule.read
                facts = read(_unwrapped(block, end, body) if rule.wraps else body)
                if facts is not None:
                    self.hits[rule.name].append(
                        RuleHit(first_line + block.count(b"\n", 0, start), shorten(line, facts.get("focus", "")), facts))
        last = last_head(block)
        if last is not None:
            self._head = last

    def _note_unavailable(self, first_line: int, block: bytes, lowered: bytes) -> None:
        for start, end in hit_lines(block, lowered, _UNAVAILABLE_NEEDLES):
            line = decode_line(block[start:end])
            m = _UNAVAILABLE.search(line)
            if m:
                self.facts.unavailable = RuleHit(first_line + block.count(b"\n", 0, start), shorten(line, m.group(0)))
                return

    def _note_command(self, block: bytes) -> None:
        for start, end in hit_lines(block, block, (b" --",)):
            line = decode_line(block[start:end])
            m = _COMMAND.match(line)
            if m and not quiet(line) and not rank(line):
                words = line[m.start(1):].split()
                words[0] = words[0].rsplit("/", 1)[-1]
                program = " ".join(words[:2] if not words[1].startswith("-") else words[:1])  # "vllm serve", "atc"
                self.facts.command = (program, tuple(dict.fromkeys(_OPTION.findall(line))))
                return

    def _note_uncalled(self, first_line: int, block: bytes, lowered: bytes) -> None:
        for start, end in hit_lines(block, lowered, choice.NEEDLES):
            line = decode_line(block[start:end])
            name = choice.read(line)
            if name:
                self.facts.uncalled = RuleHit(first_line + block.count(b"\n", 0, start), shorten(line, name),
                                              {"check": name})
                return

    def _wants(self, rule: Rule) -> bool:
        """Whether a rule still reads lines: fewer than ``rule.most`` hits and fewer than LOOK_BUDGET error-level lines
        read (a log of millions of error lines costs bounded time; the earliest lines are the root ones anyway)."""
        return len(self.hits[rule.name]) < rule.most and self._looked[rule.name] < LOOK_BUDGET

    def _head_before(self, block: bytes, heads: list[int], start: int) -> str:
        i = bisect.bisect_left(heads, start) - 1
        if i < 0:
            return self._head
        s, e = line_at(block, heads[i])
        return decode_line(block[s:e])

    def first_hit(self) -> RuleHit | None:
        """The earliest line any rule read (the root error when no line says "error" itself)."""
        return min((h for rule in self.rules if rule.root for h in self.hits[rule.name]), key=lambda h: h.line,
                   default=None)

    def findings(self, families: list[Finding]) -> list[Finding]:
        """The catalog's family findings merged with the rules' findings, in report order (see the module docstring)."""
        reported = {f.category: f for f in families}
        own: list[Finding] = []
        read: set[int] = set()  # lines an earlier (more specific) rule already explained
        for rule in self.rules:
            hits = [h for h in self.hits[rule.name] if h.line not in read or rule is advice.RULE]
            found = rule.finding(hits, self.facts) if hits else None
            if found is None:
                continue
            if found.category == component.SUMMARY and (reported or own):
                continue  # a summary of failures printed earlier: those findings already say more
            if rule is not advice.RULE:
                read |= {h.line for h in hits}
            if found.kind != "family":
                own.append(found)
            elif _suppressed(found.category, reported):
                continue
            elif found.category in reported:
                _merge(reported[found.category], found)
            else:
                reported[found.category] = found
        first = {cat: min(e.line for e in f.evidence) for cat, f in reported.items()}
        ordered = sorted(reported.values(), key=lambda f: (-f.priority, first[f.category]))
        return ordered + own


def _suppressed(family: str, reported: dict[str, Finding]) -> bool:
    """Whether a family a rule reached is one the catalog suppresses by a family already reported (``suppressed_by``:
    a CUDA call is no mistake where transfer_to_npu maps CUDA's API to the NPU)."""
    entry = next((e for e in load_catalog() if e.id == family), None)
    return entry is not None and any(s in reported for s in entry.suppressed_by)


def _merge(family: Finding, reached: Finding) -> None:
    """Add a rule's reading of the line to the catalog's finding of the same family."""
    mark = note_mark()
    note = reached.fix.partition(mark)[2]
    if note and note not in family.fix:
        family.fix = f"{family.fix}{mark}{note}"
    family.rule = family.rule or reached.rule
    for source in reached.sources:
        if source not in family.sources:
            family.sources.append(source)
