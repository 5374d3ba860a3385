"""The generic finding: what to do with any Ascend error, recognised family or not.

It is reported whenever the log shows an error and is about Ascend (or shows a code of a known scheme): it names
the root error line, decodes every code, and lists the generic triage steps — synchronous launch to pin the
failing operator, where the plog and device logs are and how to raise their level, printing them to the screen,
``npu-smi info`` and ``python -m npulab doctor``. Its category is ``generic_triage`` and it always comes last.
"""

from __future__ import annotations

from npulab.env.explain.catalog import GENERIC
from npulab.env.explain.codes import CodeHit
from npulab.env.explain.matcher import Evidence, Finding
from npulab.env.explain.root import RootLine

TITLE = "通用排查：先读根错误行和错误码，再按步骤缩小范围"
FIX = (
    "1. 设置 `export ASCEND_LAUNCH_BLOCKING=1` 后重跑：算子改为同步执行，报错的调用栈会指向真正出错的那一行 Python 代码"
    "（会变慢，定位完要去掉）；"
    "2. 看 CANN 的应用类日志：Host 侧调试日志（plog）默认在 `~/ascend/log/debug/plog/`，Device 侧日志在 "
    "`~/ascend/log/debug/device-<id>/`，运行日志在 `~/ascend/log/run/`（设置了 ASCEND_PROCESS_LOG_PATH 时在该目录下）；"
    "按时间找最早的 [ERROR] 行，每个进程（每个 rank）各有一份；"
    "3. 需要更多细节时 `export ASCEND_GLOBAL_LOG_LEVEL=1`（0 DEBUG、1 INFO、2 WARNING、3 ERROR，默认 3），"
    "或 `export ASCEND_SLOG_PRINT_TO_STDOUT=1` 让日志直接打印到屏幕；"
    "4. `npu-smi info` 确认设备健康、显存与占用进程；"
    "5. `python -m npulab doctor` 检查 CANN、torch_npu 与驱动的版本配套和环境变量。"
)
SOURCES = [
    "https://www.hiascend.com/document/detail/zh/Pytorch/720/comref/Envvariables/Envir_006.html",
    "https://www.hiascend.com/document/detail/zh/CANNCommunityEdition/850/maintenref/logreference/logreference_0002.html",
    "https://www.hiascend.com/document/detail/zh/canncommercial/700/reference/envvar/envref_07_0101.html",
    "https://www.hiascend.com/document/detail/zh/CANNCommunityEdition/910beta3/maintenref/envvar/envref_07_0122.html",
    "https://www.hiascend.com/document/detail/zh/canncommercial/900/maintenref/envvar/envref_07_0121.html",
    "https://www.hiascend.com/document/detail/zh/CANNCommunityEdition/900beta2/maintenref/troubleshooting/troubleshooting_0225.html",
]


def should_report(root: RootLine | None, codes: list[CodeHit], ascend_context: bool) -> bool:
    """A generic finding is due when the log shows an error and is about Ascend (or shows a known code)."""
    if root is None:
        return False
    return ascend_context or bool(codes)


def generic_finding(root: RootLine, strongest: list[RootLine], codes: list[CodeHit], *, families: int,
                    component: str | None = None, pip: str | None = None) -> Finding:
    """The generic finding: root error line first, the component it was raised in, the decoded codes, the steps."""
    if root.rank == 0:  # no error line: a CANN component's warning that reports a time-out or a failure
        parts = [f"日志里没有报错行；最早的一条 CANN 组件告警（第 {root.line} 行）报告了超时或失败，"
                 f"它常是错误被降级成的告警（ErrToWarn），按报错处理：{root.text}"]
    else:
        parts = [f"根错误行（第 {root.line} 行，最早出现的最具体的报错）：{root.text}"]
    if component:
        pip = pip or component
        parts.append(f"出错的组件是 `{component}`（报错上方最后一个调用栈帧所在的包，或报错里点名的模块）：先用 `pip show {pip}` "
                     f"查它的版本，对照调用它的程序（及 torch、torch_npu、CANN）要求的版本；不一致就升级（`pip install -U {pip}`）"
                     f"或装回要求的版本（`pip install '{pip}==<要求的版本>'`）。")
    if codes:
        parts.append("错误码：" + "；".join(h.info.describe() for h in codes))
    if not families:
        parts.append("知识库里没有与它完全对应的案例：先按错误码的含义和下面的步骤定位。")
    evidence: dict[int, Evidence] = {root.line: Evidence(root.line, root.text)}
    for extra in strongest:
        if len(evidence) >= 3:
            break
        evidence.setdefault(extra.line, Evidence(extra.line, extra.text))
    for hit in codes:
        if len(evidence) >= 4:
            break
        evidence.setdefault(hit.line, Evidence(hit.line, hit.text))
    sources = list(dict.fromkeys(SOURCES + [h.info.source for h in codes]))
    return Finding(GENERIC, TITLE, [h.info.code for h in codes], "\n".join(parts), FIX,
                   sorted(evidence.values(), key=lambda e: e.line), sources, priority=-1,
                   casebook="read-a-code", kind="generic")
