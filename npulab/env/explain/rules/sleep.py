"""vLLM's sleep mode that freed nothing: ``Sleep mode freed 0.00 GiB memory, 23.66 GiB memory is still in use`` (an
INFO line of the worker's ``sleep``; vLLM-Ascend's NPUWorker prints it from vllm_ascend/worker/worker_v1.py). Sleep
mode can release only the memory its own pool allocator holds (vLLM-Ascend's CaMemAllocator); that pool does not work
with the caching allocator's expandable segments, which CaMemAllocator refuses outright in later releases
("Expandable segments are not compatible with memory pool", vllm_ascend/device_allocator/camem.py), and it holds
nothing when the engine was started without ``enable_sleep_mode``. Data: npulab/data/explain_rules.yaml ``sleep``."""

from __future__ import annotations

import re

from npulab.core.i18n import t
from npulab.env.explain.matcher import Finding
from npulab.env.explain.rules.base import LogFacts, Rule, RuleHit, rule_finding, rules_data

NAME = "sleep_freed_nothing"
_FREED_NOTHING = re.compile(r"\bSleep mode freed 0(?:\.0+)? ?GiB memory")
_ASCEND_WORKER = re.compile(r"\bworker_v1\.py\b")  # vLLM-Ascend's NPUWorker module logs the line (vLLM's: gpu_worker.py)


def read(line: str) -> dict | None:
    m = _FREED_NOTHING.search(line)
    return {"focus": m.group(0), "ascend_worker": bool(_ASCEND_WORKER.search(line))} if m else None


def npu_stack(facts: dict) -> bool:
    """Whether vLLM-Ascend's own worker printed the line."""
    return bool(facts.get("ascend_worker"))


def finding(hits: list[RuleHit], facts: LogFacts) -> Finding | None:
    return rule_finding(NAME, t("explain.sleep.title"), t("explain.sleep.cause"), t("explain.sleep.fix"), hits,
                        rules_data()["sleep"]["sources"])


RULE = Rule(NAME, (b"sleep mode freed",), read, finding, warnings=True)
