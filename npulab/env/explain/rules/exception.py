"""A Python exception the other rules do not read, explained from its own words — the exception's form and the
names it gives (npulab/data/explain_rules.yaml ``exception``):

- ``signature`` — ``f() got an unexpected keyword argument 'k'``, ``takes N positional arguments but M were given``,
  ``missing N required positional argument``: the caller and the function it calls come from releases that do not
  pair (Python raises these TypeErrors when a call does not fit the function's signature);
- ``dtype``     — two operands of different data types (``the input type must be same``, ``expected scalar type X but
  found Y``, ``must have the same dtype``): cast one to the other's type;
- ``value``     — an argument outside what it accepts (``X must be in the range (0, 1]``, ``must be one of``,
  ``invalid choice: 'v' (choose from …)``, ``expected one of …, got v``): the argument and the allowed values;
- ``environ``   — ``KeyError: 'RANK'`` from ``os.environ``: an environment variable a launcher sets is missing;
- ``device``, ``contiguous``, ``port`` — tensors on two devices, a non-contiguous view where a contiguous tensor is
  required, a port already in use (errno 98): the documented remedy of each;
- ``nospace``, ``permission`` — errno 28 (a full disk, /dev/shm included) and errno 13 on a path (not a device node,
  which is the catalog's ``device_permission``): what fills the disk of an NPU job, whose the path is;
- ``attribute`` — ``'X' object has no attribute 'y'``: versions that do not pair, or (``NoneType``) a value that an
  earlier step failed to create (the log's earlier line saying that something is unavailable is quoted); ``killed`` — SIGKILL (``Killed``, exitcode -9): usually the kernel's OOM killer.

Each reading names the callable, argument, types or variable of the line, so the advice is about this line."""

from __future__ import annotations

import re

from npulab.core.i18n import localized, t
from npulab.env.explain.matcher import Finding
from npulab.env.explain.root import rank
from npulab.env.explain.rules.base import LogFacts, Rule, RuleHit, rule_finding, rules_data

NAME = "python_exception"
_KWARG = re.compile(r"([A-Za-z_][\w.]*)?\(\)[`'\"]? got an unexpected keyword argument [`'\"](\w+)[`'\"]")  # the name may be cut
_POSITIONAL = re.compile(r"([A-Za-z_][\w.]*)\(\) (takes \d+ positional arguments? but \d+ (?:were|was) given|"
                         r"missing \d+ required (?:positional |keyword-only )?arguments?:?[^.]*)")
_DTYPE = re.compile(r"(?i)(?:(?:input|operand|argument)\s*)?types? must be (?:the )?same|must have the same dtype|"
                    r"expected (?:object of )?scalar type (\w+) but (?:found|got)(?: scalar type)? (\w+)|"
                    r"expected (?:both )?(?:inputs?|tensors?) to have (?:the )?same dtype")
_TYPES = re.compile(r"\b((?:B?Float|Int|UInt|Bool|Complex|float|bfloat|int|uint|half|double)(?:8|16|32|64)?)\b")
_RANGE = re.compile(r"(['\"]?-{0,2}[A-Za-z_][\w.-]*['\"]?) must be (?:in (?:the )?range|within|between)\s*:?\s*"
                    r"([\[(][^\])]*[\])]|\S+ and \S+)")
_ONE_OF = re.compile(r"(['\"]?-{0,2}[A-Za-z_][\w.-]*['\"]?) must be one of:?\s*(.{1,160})")
_CHOICE = re.compile(r"(?:argument ([\w/-]+): )?invalid choice: ['\"]?([^'\"]*)['\"]? \(choose from (.{1,2000}?)\)?$")
_PLUGIN_VALUE = re.compile(r"(?i)ascend|npu")  # a value only an Ascend plugin registers (vllm-ascend's 'ascend' quantization)
_PLUGINS = {"vllm": ("vllm-ascend", "vllm")}  # framework → (its Ascend plugin, the package it must pair with)
_MUST_GOT = re.compile(r"(?i)\b((?:the )?[\w.'-]+(?: [\w.'-]+){0,4}) (?:must|should) be (?:an? |of size |of shape )?(\([^)]{0,60}\)|\[[^\]]{0,60}\]|[^,;]{1,60}?),? "
                       r"(?:but (?:got|received|is|was)|not) (\S[^;]{0,60}?)(?=\.\s|\.$|\.\.|;|$)")
_DEVICES = re.compile(r"Expected all tensors to be on the same device,? but found at least two devices,? ([\w:]+) and ([\w:]+)")
_CONTIGUOUS = re.compile(r"(?i)(?:tensors?|input|\w+) (?:must|should|is required to) be contiguous|is not contiguous")
# the class may be dotted ('paddle.fluid.libpaddle.AnalysisConfig'), and torch names an op namespace by two names
# ("'_OpNamespace' '_C' object": an op that no loaded library registered)
_OBJECT_ATTRIBUTE = re.compile(r"['\"]([\w.]+)['\"](?: ['\"]([\w.]+)['\"])? object has no attribute ['\"](\w+)['\"]")
_KILLED = re.compile(r"^\W*(?:\[\d+\]\+?\s+)?Killed\b|Signal 9 \(SIGKILL\)|exitcode\s*:\s*-9\b|\bSIGKILL\b")
_PORT = re.compile(r"(?i)address already in use|errno:? ?98\b|EADDRINUSE")
_EXPECTED = re.compile(r"(?i)expected one of:?\s*(.{1,200}?),?\s+(?:but\s+)?got:?\s*['\"]?([^'\"\s,]+)")
_ENVIRON = re.compile(r"KeyError: ['\"]([A-Z][A-Z0-9_]{2,})['\"]")
_NO_SPACE = re.compile(r"(?i)\[Errno 28\]|No space left on device|\bENOSPC\b")
# a path the process may not write or read (devices are the catalog's device_permission family)
_PERMISSION = re.compile(r"(?:PermissionError: )?\[Errno 13\] Permission denied:?\s*['\"]((?!/dev/)[^'\"]{1,300})['\"]")


def read(line: str) -> dict | None:
    m = _KWARG.search(line)
    if m:
        return {"kind": "signature", "callable": m.group(1) or t("explain.exception.callee"),
                "detail": t("explain.exception.keyword", name=m.group(2)),
                "focus": "unexpected keyword argument"}
    m = _POSITIONAL.search(line)
    if m:
        return {"kind": "signature", "callable": m.group(1), "detail": t("explain.exception.arg_count", detail=m.group(2).strip()),
                "focus": m.group(1)}
    if _KILLED.search(line):
        return {"kind": "killed", "focus": _KILLED.search(line).group(0).strip()}
    if rank(line) == 0:  # the forms below occur in help texts and notices too: only error lines are read
        return None
    m = _DTYPE.search(line)
    if m:
        types = list(dict.fromkeys(g for g in (m.group(1), m.group(2)) if g)) or list(dict.fromkeys(_TYPES.findall(line)))
        return {"kind": "dtype", "types": types[:2], "focus": m.group(0)}
    m = _CHOICE.search(line)
    if m:
        return {"kind": "value", "argument": m.group(1) or t("explain.exception.this_argument"), "given": m.group(2), "allowed": m.group(3).strip(),
                "focus": "invalid choice"}
    for pattern in (_RANGE, _ONE_OF):
        m = pattern.search(line)
        if m:
            return {"kind": "value", "argument": m.group(1).strip("'\""), "given": None,
                    "allowed": m.group(2).strip().rstrip(".。"), "focus": m.group(0)[:30]}
    m = _OBJECT_ATTRIBUTE.search(line)
    if m:
        return {"kind": "attribute", "cls": m.group(1), "namespace": m.group(2) if m.group(1) == "_OpNamespace" else None,
                "name": m.group(3), "focus": m.group(0)[:30]}
    m = _DEVICES.search(line)
    if m:
        return {"kind": "device", "devices": [m.group(1), m.group(2)], "focus": "same device"}
    if _CONTIGUOUS.search(line):
        return {"kind": "contiguous", "focus": "contiguous"}
    if _PORT.search(line) and "hccl" not in line.lower():  # HCCL's own sockets: rules/port.py (hccl_network)
        return {"kind": "port", "focus": _PORT.search(line).group(0)}
    if _NO_SPACE.search(line):
        return {"kind": "nospace", "focus": _NO_SPACE.search(line).group(0)}
    m = _PERMISSION.search(line)
    if m:
        return {"kind": "permission", "path": m.group(1), "focus": "Permission denied"}
    m = _MUST_GOT.search(line)
    if m:
        return {"kind": "value", "argument": m.group(1), "given": m.group(3).strip(), "allowed": m.group(2).strip(),
                "focus": "must be"}
    m = _EXPECTED.search(line)
    if m:
        return {"kind": "value", "argument": t("explain.exception.this_argument"), "given": m.group(2), "allowed": m.group(1).strip(),
                "focus": "expected one of"}
    m = _ENVIRON.search(line)
    if m:
        return {"kind": "environ", "variable": m.group(1), "focus": m.group(0)}
    return None


def _pair(facts: LogFacts) -> str:
    """Which releases must pair, for the framework the log shows (explain_rules.yaml ``exception.pairs``)."""
    return localized(rules_data()["exception"], "pairs").get("vllm" if "vllm" in facts.frameworks else "", "")


def _signature(hit: dict, facts: LogFacts) -> tuple[str, str, str]:
    name, detail = hit["callable"], hit["detail"]
    return (t("explain.exception.signature.title", name=name),
            t("explain.exception.signature.cause", name=name, detail=detail),
            t("explain.exception.signature.fix", name=name, pair=_pair(facts)))


def _dtype(hit: dict) -> tuple[str, str, str]:
    types = t("explain.list_separator").join(f"`{name}`" for name in hit["types"])
    seen = t("explain.exception.dtype.seen", types=types) if types else ""
    return (t("explain.exception.dtype.title"), t("explain.exception.dtype.cause", seen=seen),
            t("explain.exception.dtype.fix"))


def _value(hit: dict, facts: LogFacts | None = None) -> tuple[str, str, str]:
    arg, allowed, given = hit["argument"], hit["allowed"], hit.get("given")
    plugin = _plugin_note(given, allowed, facts)
    got = t("explain.exception.value.got", given=given) if given else ""
    return (t("explain.exception.value.title", argument=arg),
            t("explain.exception.value.cause", argument=arg, allowed=allowed, got=got),
            t("explain.exception.value.fix", argument=arg, allowed=allowed) if not plugin else plugin)


def _plugin_note(given: str | None, allowed: str, facts: LogFacts | None) -> str:
    """A value that only an Ascend plugin registers, missing from the values the program lists: the plugin's advice."""
    if not given or not _PLUGIN_VALUE.search(given) or given in allowed:
        return ""
    framework = next((f for f in _PLUGINS if facts and f in facts.frameworks), None)
    plugin, host = _PLUGINS[framework] if framework else ("torch-npu", "torch")
    return t("explain.rule.plugin_value", given=given, plugin=plugin, host=host)


def _environ(hit: dict) -> tuple[str, str, str]:
    var = hit["variable"]
    return (t("explain.exception.environ.title", variable=var), t("explain.exception.environ.cause", variable=var),
            t("explain.exception.environ.fix", variable=var))


def _device(hit: dict) -> tuple[str, str, str]:
    a, b = hit["devices"]
    return (t("explain.exception.device.title"), t("explain.exception.device.cause", first=a, second=b),
            t("explain.exception.device.fix"))


def _contiguous(hit: dict) -> tuple[str, str, str]:
    return (t("explain.exception.contiguous.title"), t("explain.exception.contiguous.cause"),
            t("explain.exception.contiguous.fix"))


def _port(hit: dict) -> tuple[str, str, str]:
    return (t("explain.exception.port.title"), t("explain.exception.port.cause"), t("explain.exception.port.fix"))


def _nospace(hit: dict) -> tuple[str, str, str]:
    return (t("explain.rule.nospace.title"), t("explain.rule.nospace.cause"), t("explain.rule.nospace.fix"))


def _permission(hit: dict) -> tuple[str, str, str]:
    path = hit["path"]
    return (t("explain.rule.permission.title", path=path), t("explain.rule.permission.cause", path=path),
            t("explain.rule.permission.fix", path=path))


def _attribute(hit: dict, facts: LogFacts, line: int) -> tuple[str, str, str]:
    cls, name = hit["cls"], hit["name"]
    if cls == "NoneType":
        earlier = facts.unavailable
        said = t("explain.exception.none.earlier", line=earlier.line, text=earlier.text) if earlier and earlier.line < line else ""
        return (t("explain.exception.none.title", name=name), t("explain.exception.none.cause", name=name),
                t("explain.exception.none.fix") + said)
    if hit.get("namespace"):  # torch.ops.<namespace> has no such op: the library registering it is not loaded
        return _op_namespace(hit["namespace"], name)
    return (t("explain.exception.attribute.title", cls=cls, name=name),
            t("explain.exception.attribute.cause", cls=cls, name=name),
            t("explain.exception.attribute.fix", cls=cls, name=name, pair=_pair(facts)))


def _op_namespace(namespace: str, name: str) -> tuple[str, str, str]:
    """``'_OpNamespace' 'ns' object has no attribute 'op'`` (torch/_ops.py ``_OpNamespace.__getattr__``): no loaded
    library registered ``torch.ops.ns.op``; the package that registers the namespace, and how to get its compiled
    operators (explain_rules.yaml ``exception.op_namespaces``)."""
    owner = rules_data()["exception"]["op_namespaces"].get(namespace)
    remedy = localized(owner, "fix") if owner else t("explain.exception.op_namespace.any", namespace=namespace)
    return (t("explain.exception.op_namespace.title", namespace=namespace, name=name),
            t("explain.exception.op_namespace.cause", namespace=namespace, name=name),
            t("explain.exception.op_namespace.fix", remedy=remedy.strip()))


def _killed(hit: dict) -> tuple[str, str, str]:
    return (t("explain.exception.killed.title"), t("explain.exception.killed.cause"), t("explain.exception.killed.fix"))


_EXPLAIN = {"dtype": _dtype, "value": _value, "environ": _environ, "device": _device, "contiguous": _contiguous,
            "port": _port, "killed": _killed, "nospace": _nospace, "permission": _permission}


def finding(hits: list[RuleHit], facts: LogFacts) -> Finding | None:
    hit = hits[0].facts
    kind = hit["kind"]
    title, cause, fix = (_signature(hit, facts) if kind == "signature" else _attribute(hit, facts, hits[0].line) if kind == "attribute"
                         else _value(hit, facts) if kind == "value" else _EXPLAIN[kind](hit))
    same = [h for h in hits if h.facts["kind"] == kind]
    return rule_finding(NAME, title, cause, fix, same, rules_data()["exception"]["sources"][kind])


RULE = Rule(NAME, (b" argument", b"must be ", b"should be ", b"same dtype", b"scalar type", b"invalid choice",
                   b"expected one of", b"keyerror:", b"same device", b"contiguous", b"already in use",
                   b"object has no attribute", b"killed", b"sigkill", b"errno 28", b"no space left",
                   b"permission denied"),
            read, finding)  # the forms are Python's own: no error word needed (a title may quote the line)
