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
  earlier step failed to create; ``killed`` — SIGKILL (``Killed``, exitcode -9): usually the kernel's OOM killer.

Each reading names the callable, argument, types or variable of the line, so the advice is about this line."""

from __future__ import annotations

import re

from npulab.core.i18n import t
from npulab.env.explain.matcher import Finding
from npulab.env.explain.root import rank
from npulab.env.explain.rules.base import LogFacts, Rule, RuleHit, rule_finding, rules_data

NAME = "python_exception"
_KWARG = re.compile(r"([A-Za-z_][\w.]*)?\(\)[`'\"]? got an unexpected keyword argument [`'\"](\w+)[`'\"]")  # the name may be cut
_POSITIONAL = re.compile(r"([A-Za-z_][\w.]*)\(\) (takes \d+ positional arguments? but \d+ (?:were|was) given|"
                         r"missing \d+ required (?:positional |keyword-only )?arguments?:?[^.]*)")
_DTYPE = re.compile(r"(?i)(?:input|operand|argument)?\s*types? must be (?:the )?same|must have the same dtype|"
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
_OBJECT_ATTRIBUTE = re.compile(r"['\"](\w+)['\"] object has no attribute ['\"](\w+)['\"]")
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
        return {"kind": "signature", "callable": m.group(1) or "被调用的函数", "detail": f"关键字参数 `{m.group(2)}`",
                "focus": "unexpected keyword argument"}
    m = _POSITIONAL.search(line)
    if m:
        return {"kind": "signature", "callable": m.group(1), "detail": f"参数个数（{m.group(2).strip()}）", "focus": m.group(1)}
    if _KILLED.search(line):
        return {"kind": "killed", "focus": _KILLED.search(line).group(0).strip()}
    if rank(line) == 0:  # the forms below occur in help texts and notices too: only error lines are read
        return None
    m = _DTYPE.search(line)
    if m:
        types = list(dict.fromkeys(t for t in (m.group(1), m.group(2)) if t)) or list(dict.fromkeys(_TYPES.findall(line)))
        return {"kind": "dtype", "types": types[:2], "focus": m.group(0)}
    m = _CHOICE.search(line)
    if m:
        return {"kind": "value", "argument": m.group(1) or "这个参数", "given": m.group(2), "allowed": m.group(3).strip(),
                "focus": "invalid choice"}
    for pattern in (_RANGE, _ONE_OF):
        m = pattern.search(line)
        if m:
            return {"kind": "value", "argument": m.group(1).strip("'\""), "given": None,
                    "allowed": m.group(2).strip().rstrip(".。"), "focus": m.group(0)[:30]}
    m = _OBJECT_ATTRIBUTE.search(line)
    if m:
        return {"kind": "attribute", "cls": m.group(1), "name": m.group(2), "focus": m.group(0)[:30]}
    m = _DEVICES.search(line)
    if m:
        return {"kind": "device", "devices": [m.group(1), m.group(2)], "focus": "same device"}
    if _CONTIGUOUS.search(line):
        return {"kind": "contiguous", "focus": "contiguous"}
    if _PORT.search(line):
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
        return {"kind": "value", "argument": "这个参数", "given": m.group(2), "allowed": m.group(1).strip(),
                "focus": "expected one of"}
    m = _ENVIRON.search(line)
    if m:
        return {"kind": "environ", "variable": m.group(1), "focus": m.group(0)}
    return None


def _signature(hit: dict, facts: LogFacts) -> tuple[str, str, str]:
    name, detail = hit["callable"], hit["detail"]
    pair = rules_data()["exception"]["pairs"].get("vllm" if "vllm" in facts.frameworks else "", "")
    return (f"调用与函数签名不符：{name}()",
            f"调用方给 `{name}()` 传的{detail} 与它的签名不符：调用方与被调用的 `{name}` 来自彼此不配套的版本"
            "（调用方按新版本的接口写，被调用方还是旧版本，或反过来）。代码本身没有写错，是两个包的版本没对齐。",
            f"用 `pip show <包名>` 查出调用方与 `{name}` 所在包各自的版本，按调用方文档的配套表把两者装成对应版本"
            f"（同一发布批次）：多半是把较旧的一方升级到调用方要求的版本。{pair}")


def _dtype(hit: dict) -> tuple[str, str, str]:
    types = "、".join(f"`{t}`" for t in hit["types"])
    seen = f"（报错里是 {types}）" if types else ""
    return ("两个操作数的数据类型不一致",
            f"参与同一次运算的张量（例如权重与输入）数据类型不同{seen}；这个算子要求它们类型一致，不会自动转换。",
            "让两者类型一致（同一类型）：把输入转换成权重的类型（PyTorch `x.to(weight.dtype)`，MindSpore "
            "`x.astype(mindspore.float16)`），或把模型整体转换成输入的类型；混合精度训练用框架的自动混合精度"
            "（torch.autocast / mindspore.amp）而不是手动改一部分张量。")


def _value(hit: dict, facts: LogFacts | None = None) -> tuple[str, str, str]:
    arg, allowed, given = hit["argument"], hit["allowed"], hit.get("given")
    plugin = _plugin_note(given, allowed, facts)
    got = f"，传入的是 `{given}`" if given else ""
    return (f"参数取值不被接受：{arg}",
            f"`{arg}` 的取值不在它接受的范围里（允许：{allowed}{got}）。这是传入的参数、配置或数据与要求不符，不是环境问题。",
            f"把 `{arg}` 改成允许的取值（{allowed}）：命令行参数、配置项或环境变量就检查给它的值（拼写、大小写、单位），"
            f"张量的形状、维度或数据类型就改调用方传进来的输入。"
            f"如果你给的值明明在允许范围内，说明工具自己的校验有误：升级该工具到修复了它的版本（看它的发行说明或 issue）。"
            if not plugin else plugin)


def _plugin_note(given: str | None, allowed: str, facts: LogFacts | None) -> str:
    """A value that only an Ascend plugin registers, missing from the values the program lists: the plugin's advice."""
    if not given or not _PLUGIN_VALUE.search(given) or given in allowed:
        return ""
    framework = next((f for f in _PLUGINS if facts and f in facts.frameworks), None)
    plugin, host = _PLUGINS[framework] if framework else ("torch-npu", "torch")
    return t("explain.rule.plugin_value", given=given, plugin=plugin, host=host)


def _environ(hit: dict) -> tuple[str, str, str]:
    var = hit["variable"]
    return (f"环境变量 {var} 没有设置",
            f"代码读 `os.environ['{var}']`，但当前进程里没有这个环境变量；{var} 这类变量通常由分布式启动器设置。",
            f"用设置它的启动器运行（`torchrun --nproc_per_node=<卡数> …` 会设 RANK、LOCAL_RANK、WORLD_SIZE、MASTER_ADDR、"
            f"MASTER_PORT），或在单进程运行前自己 `export {var}=…`；`env | grep {var}` 确认进程看得到它。")


def _device(hit: dict) -> tuple[str, str, str]:
    a, b = hit["devices"]
    return ("参与运算的张量不在同一个设备上",
            f"一次运算的输入一部分在 `{a}`、一部分在 `{b}`：PyTorch 不会自动搬运。NPU 上常见的来源是没有指定 device 新建的张量"
            "（默认在 CPU）、没有随模型一起 `.to()` 的缓冲区，或自己写的 `.cuda()` 被替换后漏掉的那一处。",
            "把它们放到同一个设备：模型与输入都 `.to(device)`（device = torch.device(\"npu:0\")），新建张量时传 `device=x.device`；"
            "用报错上方的调用栈找到那次运算，打印各输入的 `.device`。")


def _contiguous(hit: dict) -> tuple[str, str, str]:
    return ("张量不连续",
            "这个算子或通信调用要求输入在内存里连续存放，而传入的张量是转置、切片或 `expand` 之后的视图（不连续）。",
            "在传入之前调用 `.contiguous()`（例如 `x = x.transpose(1, 2).contiguous()`）；通信（all_reduce 等）的张量同样如此。")


def _port(hit: dict) -> tuple[str, str, str]:
    return ("端口已被占用",
            "要监听的端口已经被别的进程占着（errno 98，Address already in use）：常是上一次没有退干净的训练或推理进程，"
            "或同一台机器上另一个任务用了同一个 MASTER_PORT。",
            "换一个空闲端口（`torchrun --master_port=<端口>`、`export MASTER_PORT=<端口>`，服务类程序用它的 `--port`），"
            "或找出并结束占用它的进程：`ss -ltnp | grep <端口>`。")


def _nospace(hit: dict) -> tuple[str, str, str]:
    return (t("explain.rule.nospace.title"), t("explain.rule.nospace.cause"), t("explain.rule.nospace.fix"))


def _permission(hit: dict) -> tuple[str, str, str]:
    path = hit["path"]
    return (t("explain.rule.permission.title", path=path), t("explain.rule.permission.cause", path=path),
            t("explain.rule.permission.fix", path=path))


def _attribute(hit: dict, facts: LogFacts) -> tuple[str, str, str]:
    cls, name = hit["cls"], hit["name"]
    if cls == "NoneType":
        return (f"在 None 上取属性 {name}",
                f"代码对一个值为 None 的变量取 `.{name}`：本该创建它的那一步没有成功（返回了 None、加载失败、条件分支没走到），"
                "错误在更早的地方，这一行只是第一个用到它的地方。",
                "沿调用栈往上找给这个变量赋值的地方，看它为什么是 None（加载模型/数据/设备的函数是否失败、日志里更早是否有告警）；"
                "在那里加检查，而不是在这一行。")
    pair = rules_data()["exception"]["pairs"].get("vllm" if "vllm" in facts.frameworks else "", "")
    return (f"{cls} 对象没有属性 {name}",
            f"`{cls}` 的对象上没有 `{name}`：调用它的代码与定义 `{cls}` 的包版本不配套（属性是新版本加的、改了名或删了），"
            "或者对象类型不是代码以为的那个。",
            f"用 `pip show <包名>` 查定义 `{cls}` 的包与调用方的版本，按调用方要求装成对应版本；{pair}")


def _killed(hit: dict) -> tuple[str, str, str]:
    return ("进程被系统杀掉（SIGKILL）",
            "进程收到 SIGKILL（shell 打印 Killed，torchrun 报 exitcode -9）：最常见的是 Linux 的 OOM killer 在 Host 内存耗尽时"
            "杀掉最大的进程；也可能是调度系统超出内存配额后结束了任务。NPU 的显存不足不会这样报，会报 out of memory。",
            "`dmesg -T | grep -i -E 'killed process|out of memory'` 确认是不是 OOM killer；减少 Host 内存占用：调小 DataLoader 的 "
            "`num_workers` 与预取、降低批大小、分片或流式加载数据与权重（`low_cpu_mem_usage=True`），关掉同机上其他大进程；容器里查内存上限。")


_EXPLAIN = {"dtype": _dtype, "value": _value, "environ": _environ, "device": _device, "contiguous": _contiguous,
            "port": _port, "killed": _killed, "nospace": _nospace, "permission": _permission}


def finding(hits: list[RuleHit], facts: LogFacts) -> Finding | None:
    hit = hits[0].facts
    kind = hit["kind"]
    title, cause, fix = (_signature(hit, facts) if kind == "signature" else _attribute(hit, facts) if kind == "attribute"
                         else _value(hit, facts) if kind == "value" else _EXPLAIN[kind](hit))
    same = [h for h in hits if h.facts["kind"] == kind]
    return rule_finding(NAME, title, cause, fix, same, rules_data()["exception"]["sources"][kind])


RULE = Rule(NAME, (b" argument", b"must be ", b"should be ", b"same dtype", b"scalar type", b"invalid choice",
                   b"expected one of", b"keyerror:", b"same device", b"contiguous", b"already in use",
                   b"object has no attribute", b"killed", b"sigkill", b"errno 28", b"no space left",
                   b"permission denied"),
            read, finding)  # the forms are Python's own: no error word needed (a title may quote the line)
