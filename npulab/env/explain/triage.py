"""The generic finding: what to do with any Ascend error, recognised family or not.

It is reported whenever the log shows an error and is about Ascend (or shows a code of a known scheme): it names
the root error line, decodes every code, and lists the generic triage steps — synchronous launch to pin the
failing operator, where the plog and device logs are and how to raise their level, printing them to the screen,
``npu-smi info`` and ``python -m npulab doctor``. Its category is ``generic_triage`` and it always comes last.
Its text is in npulab's language (``explain.generic.*`` in ``npulab/data/messages/explain.yaml``).
"""

from __future__ import annotations

import re

from npulab.core.i18n import t
from npulab.env.explain.catalog import GENERIC
from npulab.env.explain.codes import CodeHit
from npulab.env.explain.matcher import Evidence, Finding
from npulab.env.explain.root import RootLine

SOURCES = [
    "https://www.hiascend.com/document/detail/zh/Pytorch/720/comref/Envvariables/Envir_006.html",
    "https://www.hiascend.com/document/detail/zh/CANNCommunityEdition/850/maintenref/logreference/logreference_0002.html",
    "https://www.hiascend.com/document/detail/zh/canncommercial/700/reference/envvar/envref_07_0101.html",
    "https://www.hiascend.com/document/detail/zh/CANNCommunityEdition/910beta3/maintenref/envvar/envref_07_0122.html",
    "https://www.hiascend.com/document/detail/zh/canncommercial/900/maintenref/envvar/envref_07_0121.html",
    "https://www.hiascend.com/document/detail/zh/CANNCommunityEdition/900beta2/maintenref/troubleshooting/troubleshooting_0225.html",
]
# a log that only tells how the process ended (root.abnormal_end): the signals (signal(7), SIGKILL from the kernel's
# OOM killer) and Python's faulthandler, which prints every thread's stack of a process that hangs
ENDING_SOURCES = ["https://man7.org/linux/man-pages/man7/signal.7.html",
                  "https://docs.python.org/3/library/faulthandler.html"]


_INNER = re.compile(r"^E[0-9A-Z]9999$")
# what an error line itself says about its fix, read from its form (never from a thread's words):
# versions it names as pip writes them ("transformers>4.49", "torch-npu==2.2.0") …
_VERSION = re.compile(r"(?<![\w.-])([A-Za-z][\w.-]*[A-Za-z0-9])(==|>=|<=|~=|!=|>|<)\s*(v?\d+(?:\.\d+)+[\w.+]*)")
# … the condition under which it fails ("build failed when manually specify X", "fails if Y") …
_CONDITION = re.compile(r"(?i)\bfail(?:s|ed|ure)?\b[^.;:]*?\b(?:when|if|only when|whenever)\s+([^.;]{4,120})")
# … and the command a subprocess ran (CalledProcessError: "Command '[...]' returned non-zero exit status N")
_COMMAND = re.compile(r"Command '(.+?)' returned non-zero exit status (-?\d+)")
MAX_VERSIONS = 4  # CANN's "Inner Error!" of each module (EE9999, EZ9999, EI9999 …)
# … an option or argument the line says was not accepted ("Failed to parse provider option "npu_mem_limit"",
# "invalid value for argument --x", "unrecognized option 'y'") …
_OPTION = re.compile(r"(?i)\b(?:failed to parse|invalid|unknown|unrecognized|unsupported|bad)\s+(?:value\s+(?:for|of)\s+)?"
                     r"(?:the\s+)?(?:provider\s+|config(?:uration)?\s+|session\s+)?(?:option|argument|parameter|flag)\s*[:=]?\s*"
                     r"[\"'`]?(-{0,2}[A-Za-z_][\w.-]*)")
# … the Python versions it requires ("requires a different Python: 3.8.10 not in '>=3.9'", "only supports Python 3.9,
# 3.10 and 3.11", "requires python>=3.10", "Python 3.12 is not supported") …
_PYTHON_NEEDS = (re.compile(r"(?i)requires a different Python:\s*\S+ not in ['\"]([^'\"]+)['\"]"),
                 re.compile(r"(?i)\b(?:only )?supports? (?:only )?python\s*((?:\d\.\d+)(?:\s*(?:,|/|and|or)\s*\d\.\d+)*)"),
                 re.compile(r"(?i)\brequires? python\s*((?:[<>=!~]=?\s*)?\d\.\d+[\w.*]*)"))
_PYTHON_REFUSED = re.compile(r"(?i)\bpython\s*(?:version\s*)?(\d\.\d+)[\w.]*\s+is (?:not supported|unsupported)")
_FIRST_VERSION = re.compile(r"\d\.\d+")
# … the release of another component that a binary was built for ("compiled using NumPy 1.x", "built for CANN 3.3",
# "compiled against torch 2.1.0") …
_BUILT_FOR = re.compile(r"(?i)\b(?:compiled|built)\s+(?:against|with|for|using)\s+(?:the\s+)?([A-Za-z][\w.+-]*)\s*"
                        r"(?:version\s*)?(v?\d+(?:\.(?:\d+|x))*[\w.+]*)")
# … and the release the lines themselves say works ("switching to MindSpore 2.3.1 works", "降级到 torch 2.1.0 后正常")
# (round 14: also where another machine or environment with that release works: "on another machine with X 1.2 it
# works", "在另一个虚拟机python3.10.12的版本可以正常安装")
_WORKS = re.compile(r"(?i:switch(?:ing|ed)? (?:back )?to|downgrad(?:e|ed|ing) to|upgrad(?:e|ed|ing) to|roll(?:ed|ing)? back to|"
                    r"with|using|(?:on|in) (?:an)?other (?:machine|host|server|environment|env|venv|vm|container)"
                    r"(?: with| using)?)\s*|(?:切换到|换成|换到|降级到|降到|升级到|回退到|改用|用|"
                    r"(?:在)?(?:另一个|另一台|另外一个|另外一台|其他|别的)(?:虚拟机|机器|服务器|环境|虚拟环境|容器)(?:里|上|中)?(?:的)?)\s*")
_WORKING = re.compile(r"([A-Za-z][\w.-]{0,40}?)[\s=]{0,3}v?(\d+(?:\.\d+){1,3}[\w.+-]{0,20}?)\s*(?:的版本|版本)?\s*"
                      r"(?:后|之后|以后)?\s*[,，]?\s*"
                      r"(?:it\s+|everything\s+)?(?i:works|worked|is fine|runs fine|is ok|no longer fails|"
                      r"installs fine|installed fine|正常|没有问题|没问题|可以|就好了|成功|不报错)")
# … an operator Paddle's kernel selection found no (fitting) kernel for on the device: the PIR pass's "op [pd_op.X]
# kernel output args (0) defs should equal op outputs (1)" / "… input args …" (paddle/fluid/pir/transforms/
# pd_op_to_kernel_pass.cc) and the phi factory's "The kernel with key … of kernel `X` is not registered"
# (paddle/phi/core/kernel_factory.cc): the installed Paddle, or its device plug-in, registers no kernel of X for this
# place — a release pair that does, or the op on the CPU
_PADDLE_KERNEL = re.compile(r"\bop \[(?:pd_op\.)?(\w+)\] kernel (?:output|input) args\b|"
                            r"\bkernel with key .{1,200}? of kernel `(\w+)` is not registered")
_PYTHON_NAME = re.compile(r"(?i)^(?:c?python)(\d(?:\.\d+)?)?$")
# the framework whose native (C++) code raised a line that has no Python traceback: its logger's prefix, or the path
# of its sources the message quotes ("[E:onnxruntime:…]", "(at /…/paddle/fluid/…)", "mindspore/ccsrc/…") → its pip name
_NATIVE = ((re.compile(r"\[ONNXRuntimeError\]|\[[EWF]:onnxruntime:|[/\\]onnxruntime[/\\](?:core|python)[/\\]|"
                        r"provider '\w*CANN\w*' is not in available provider names"),
            "onnxruntime", "onnxruntime-cann"),
           # PaddleCustomDevice's Ascend backend (backends/npu/…), installed as paddle-custom-npu beside paddlepaddle
           (re.compile(r"[/\\]backends[/\\]npu[/\\]|(?i:paddle[_-]custom[_-](?:device|npu)|PaddleCustomDevice)"),
            "paddle-custom-npu", "paddle-custom-npu"),
           # Paddle-Lite's C++ sources (github.com/PaddlePaddle/Paddle-Lite: lite/…; its logger cuts the path to "...le-Lite/lite/…")
           # and its exceptions; pip name paddlelite
           (re.compile(r"-Lite[/\\]lite[/\\]|\bpaddle::lite::|\bPaddleLiteException\b|\bNNAdapterException\b"),
            "Paddle-Lite", "paddlelite"),
           (re.compile(r"[/\\]paddle[/\\](?:fluid|phi)[/\\]"), "paddle", "paddlepaddle"),
           # no source path: the wording of its NPU status check (PADDLE_ENFORCE_NPU_SUCCESS: " ACL error, the error
           # code is : N"), which PaddleCustomDevice prints today, or its image (registry.baidubce.com/device/paddle-npu)
           (re.compile(r"\b(?:ACL|HCCL) error,\s*the error code is\b|/device/paddle-npu\b"),
            "paddle-custom-npu", "paddle-custom-npu"),
           (re.compile(r"\bmindspore[/\\]ccsrc[/\\]"), "mindspore", "mindspore"))
# a framework's own switch that makes every NPU operator run synchronously (torch_npu's ASCEND_LAUNCH_BLOCKING is
# step 1 of the generic fix): the pip name of the component → (setting, where it is documented)
SYNC_SWITCH = {"paddle-custom-npu": ("FLAGS_npu_blocking_run=true",
                                     "https://github.com/PaddlePaddle/PaddleCustomDevice/blob/develop/backends/npu/README.md")}
# a code whose documented meaning names the remedy by itself (AscendCL's aclInit: once per process)
_REPEAT_INITIALIZE = "ACL_ERROR_REPEAT_INITIALIZE"


def native_component(root: RootLine, strongest: list[RootLine]) -> tuple[str, str] | None:
    """The framework whose C++ code the error lines quote (logger prefix or source path), with its pip name."""
    for text in dict.fromkeys([root.whole or root.text] + [r.whole or r.text for r in strongest]):
        for pattern, component, pip in _NATIVE:
            if pattern.search(text):
                return component, pip
    return None


def working_release(text: str) -> tuple[str, str] | None:
    """The package and release a line says works after a switch to it ("切换到 MindSpore 2.3.1 正常"), if any."""
    for switch in _WORKS.finditer(text):
        m = _WORKING.match(text, switch.end())
        if m:
            return m.group(1), m.group(2)
    return None


# "never silent" (round 15), in a log that shows no machine at all (another accelerator's log and a run that finished
# were set aside before): the root error lines that still get the generic finding. Every error line would cost 47 of
# the 199 healthy logs of the development sets for 12 fewer silences (docs/DECISIONS.md, round 15): most healthy logs
# are CUDA users' tracebacks with no machine named. Kept: a failure told in Chinese (报错, 失败, 崩溃 … — the words of
# root._WEAK in a line that has CJK text: the course's own users' language) and Paddle's kernel selection failing for
# an operator (_PADDLE_KERNEL: the device's kernels, which on Ascend its NPU plug-in registers)
_CJK = re.compile(r"[\u4e00-\u9fff]")


def stated_failure(root: RootLine | None) -> bool:
    """Whether a log with no evidence of any machine still ends in an error a user acts on: its root error line."""
    if root is None or root.rank < 1:
        return False
    text = root.whole or root.text
    return bool(_CJK.search(text) or _PADDLE_KERNEL.search(text))


def should_report(root: RootLine | None, codes: list[CodeHit], ascend_context: bool) -> bool:
    """A generic finding is due when the log shows an error and is about Ascend (or shows a known code)."""
    if root is None:
        return False
    return ascend_context or bool(codes)


def specifics(root: RootLine, strongest: list[RootLine], *, component: str | None = None, pip: str | None = None,
              call: tuple[str, str] | None = None, crashed: bool = False, said: tuple[str, ...] = ()) -> str:
    """What the error lines say about this error's own fix, before the generic steps: the command that failed, the
    versions and the condition the lines name, the call and the package that raised it (empty when none)."""
    texts = list(dict.fromkeys([root.whole or root.text] + [r.whole or r.text for r in strongest]))
    parts = []
    command = next((m for m in map(_COMMAND.search, texts) if m), None)
    if command:
        shown = command.group(1)
        if shown.startswith("["):
            shown = " ".join(re.findall(r"'([^']*)'", shown)) or shown
        parts.append(t("explain.generic.fix_command", command=shown, status=command.group(2)))
    versions = list(dict.fromkeys("".join(m.groups()) for text in texts for m in _VERSION.finditer(text)))
    if versions:
        parts.append(t("explain.generic.fix_versions", versions=", ".join(versions[:MAX_VERSIONS])))
    needs = next((m.group(1).strip() for text in texts for p in _PYTHON_NEEDS for m in [p.search(text)] if m), None)
    refused = next((m.group(1) for m in map(_PYTHON_REFUSED.search, texts) if m), None)
    if needs:
        parts.append(t("explain.generic.fix_python", needs=needs, example=_FIRST_VERSION.search(needs).group(0)))
    elif refused:
        parts.append(t("explain.generic.fix_python_refused", python=refused))
    works = next((w for w in map(working_release, [*texts, *said]) if w), None)
    if works and _PYTHON_NAME.match(works[0]) and not needs:  # a Python that works: a new environment, not a pip pin
        parts.append(t("explain.generic.fix_python_works", version=works[1], example=_FIRST_VERSION.search(works[1]).group(0)))
    elif works:
        parts.append(t("explain.generic.fix_works", package=works[0], version=works[1], pip=works[0].lower()))
    built = next((m for m in map(_BUILT_FOR.search, texts) if m), None)
    if built:
        parts.append(t("explain.generic.fix_built_for", what=f"{built.group(1)} {built.group(2)}", name=built.group(1)))
    option = next((m for m in map(_OPTION.search, texts) if m), None)
    if option:
        parts.append(t("explain.generic.fix_option", option=option.group(1)))
    kernel = next((m for m in map(_PADDLE_KERNEL.search, texts) if m), None)
    if kernel:
        parts.append(t("explain.generic.fix_paddle_kernel", op=kernel.group(1) or kernel.group(2)))
    condition = next((m for m in map(_CONDITION.search, texts) if m), None)
    if condition:
        parts.append(t("explain.generic.fix_condition", condition=condition.group(1).strip()))
    if call:
        parts.append(t("explain.generic.fix_call", file=call[0], function=call[1]))
    if component and crashed:  # the process died in the native code of a module it was importing
        parts.append(t("explain.generic.fix_crashed_import", component=component, pip=pip or component))
    elif component:
        parts.append(t("explain.generic.fix_component", component=component, pip=pip or component))
    return "".join(parts)


def generic_finding(root: RootLine, strongest: list[RootLine], codes: list[CodeHit], *, families: int,
                    component: str | None = None, pip: str | None = None,
                    call: tuple[str, str] | None = None, crashed: bool = False, said: tuple[str, ...] = ()) -> Finding:
    """The generic finding: root error line first, the component it was raised in, the decoded codes, the steps."""
    if root.fallback:  # no error line: the warning that the NPU's execution provider is missing (the CPU runs)
        parts = [t("explain.generic.fallback_root", line=root.line, text=root.text)]
    elif root.ending:  # no error line: the last line tells how the process ended, or that it hangs
        parts = [t("explain.generic.ending_root", line=root.line, text=root.text)]
    elif root.frame:  # no error line: the innermost frame of a call stack through an Ascend install
        parts = [t("explain.generic.frame_root", line=root.line, text=root.text)]
    elif root.rank == 0:  # no error line: a CANN component's warning that reports a time-out or a failure
        parts = [t("explain.generic.warning_root", line=root.line, text=root.text)]
    else:
        parts = [t("explain.generic.root", line=root.line, text=root.text)]
    if component:
        parts.append(t("explain.generic.component", component=component, pip=pip or component))
    if codes:
        parts.append(t("explain.generic.codes", codes=t("explain.separator").join(h.info.describe() for h in codes)))
    if not families:
        parts.append(t("explain.generic.no_case"))
    evidence: dict[int, Evidence] = {root.line: Evidence(root.line, root.text)}
    for extra in strongest:
        if len(evidence) >= 3:
            break
        evidence.setdefault(extra.line, Evidence(extra.line, extra.text))
    for hit in codes:
        if len(evidence) >= 4:
            break
        evidence.setdefault(hit.line, Evidence(hit.line, hit.text))
    sources = list(dict.fromkeys(SOURCES + (ENDING_SOURCES if root.ending else []) + [h.info.source for h in codes]))
    advice = t("explain.generic.repeat_initialize", code=_REPEAT_INITIALIZE) if any(
        h.info.name == _REPEAT_INITIALIZE for h in codes) else ""
    switch = SYNC_SWITCH.get(pip or "")
    if switch:  # the framework launches operators itself: its own switch, not torch_npu's, makes them synchronous
        advice += t("explain.generic.sync_switch", component=component, setting=switch[0])
        sources.append(switch[1])
    fix = advice + specifics(root, strongest, component=component, pip=pip, call=call, crashed=crashed, said=said) + t("explain.generic.fix")
    inner = next((h.info.code for h in codes if _INNER.match(h.info.code) or h.info.name.endswith("_INTERNAL_ERROR")), None)
    if inner and not families:  # CANN's own report of an internal fault, and nothing more specific was found
        fix = f"{fix}{t('explain.generic.inner_error', code=inner)}"
    return Finding(GENERIC, t("explain.generic.title"), [h.info.code for h in codes], "\n".join(parts), fix,
                   sorted(evidence.values(), key=lambda e: e.line), sources, priority=-1,
                   casebook="read-a-code", kind="generic")
