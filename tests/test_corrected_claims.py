"""Corrected claims stay corrected: scans lessons, labs, data files and modules for errors a review fixed.

Each rule names the public source that contradicts the old text:

- ``ASCEND_RT_VISIBLE_DEVICES`` lists the processor's *logical* IDs, ascending only (CANN env-var reference
  envref_07_0028, CANN 8.0–9.1); text must not call its values physical IDs / 物理编号.
- ``HCCL_EXEC_TIMEOUT`` defaults to 1836 s on Atlas A2/A3 (CANN 7.0–9.x: envref_07_0078, hcclug_000074);
  1800 s was the CANN 6.x default and may appear only when that older version is named.
- A cold first CPU run inflates the CPU time, which is the *numerator* of a CPU/NPU speed-up.
- torch_npu has a catch-all CPU fallback (``VariableFallbackKernel.cpp``): text must not claim there is none.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from npulab.core.paths import REPO_ROOT

SCAN_DIRS = ("chapters", "notebooks", "npulab", "docs")
SUFFIXES = {".ipynb", ".md", ".yaml", ".yml", ".py"}
SELF = Path(__file__).resolve()


def _units() -> list[tuple[str, str]]:
    """(where, text) for every notebook cell and every paragraph of the other text files."""
    units = []
    for folder in SCAN_DIRS:
        for path in sorted((REPO_ROOT / folder).rglob("*")):
            if path.suffix not in SUFFIXES or not path.is_file() or ".ipynb_checkpoints" in path.parts:
                continue
            rel = path.relative_to(REPO_ROOT)
            if path.suffix == ".ipynb":
                for i, cell in enumerate(json.loads(path.read_text(encoding="utf-8"))["cells"]):
                    for j, para in enumerate(re.split(r"\n\s*\n", "".join(cell["source"]))):
                        units.append((f"{rel} 单元 {i} 段 {j}", para))
            else:
                for j, para in enumerate(re.split(r"\n\s*\n", path.read_text(encoding="utf-8"))):
                    units.append((f"{rel} 段 {j}", para))
    return units


UNITS = _units()

# "physical" wording next to the variable: 物理编号 / 物理 NPU / 物理上的第 / physical id / physical NPU
PHYSICAL = re.compile(r"物理编号|物理\**\s*NPU|物理卡|物理上的第|physical\s+(?:NPU|id|ids|device)", re.IGNORECASE)
NEGATED = re.compile(r"(?:不是|并非|not(?: the)?)\s*(?:物理|physical)", re.IGNORECASE)


def test_the_scan_sees_the_course():
    assert len(UNITS) > 500
    assert any("ASCEND_RT_VISIBLE_DEVICES" in text for _, text in UNITS)


def _sentences(text: str) -> list[str]:
    """Lines (a table row is one line) cut further at Chinese and English full stops."""
    return [s for line in text.splitlines() for s in re.split(r"(?<=[。；])|(?<=\. )", line) if s.strip()]


def test_visible_devices_values_are_never_called_physical():
    bad = []
    for where, para in UNITS:
        for text in _sentences(para) if "ASCEND_RT_VISIBLE_DEVICES" in para or "visible_devices" in para else []:
            bad += _physical_wording(where, text)
    assert not bad, "ASCEND_RT_VISIBLE_DEVICES 的取值是逻辑 ID（envref_07_0028），不要写成物理编号：\n" + "\n".join(bad)


def _physical_wording(where: str, text: str) -> list[str]:
    bad = []
    if "ASCEND_RT_VISIBLE_DEVICES" in text or "visible_devices" in text or "npu:" in text:
        for match in PHYSICAL.finditer(text):
            before = text[max(0, match.start() - 12):match.end()]
            if not NEGATED.search(before):
                bad.append(f"{where}: …{text[max(0, match.start() - 40):match.end() + 20]}…")
    return bad


def test_the_physical_rule_catches_the_old_wording():
    old = "原文的所有实验都用 `ASCEND_RT_VISIBLE_DEVICES=7`，所以代码里的 `npu:0` 其实是物理上的第 7 张卡。"
    assert _physical_wording("old", old)
    assert _physical_wording("old", "哪张**物理** NPU 在背后，由 `ASCEND_RT_VISIBLE_DEVICES` 决定")
    assert not _physical_wording("new", "`ASCEND_RT_VISIBLE_DEVICES` 写的是逻辑 ID，不是物理 ID")


def test_hccl_exec_timeout_default_is_not_1800():
    bad = []
    for where, text in UNITS:
        if "HCCL_EXEC_TIMEOUT" not in text:
            continue
        for match in re.finditer(r"(?:默认|default)[^。；;\n]{0,30}?1800", text, re.IGNORECASE):
            context = text[max(0, match.start() - 60):match.end() + 60]
            # the CANN 6.x default may be quoted as history; a real EI0002 log quotes CANN's own (older) hint verbatim
            if not re.search(r"6\.[x0-9]|旧|You can set the interval", context):
                bad.append(f"{where}: …{context}…")
    assert not bad, "HCCL_EXEC_TIMEOUT 在 Atlas A2/A3 上默认 1836 s（CANN 7.0–9.x）：\n" + "\n".join(bad)


def test_hccl_settings_data_default():
    from npulab.pytorch import distributed

    row = next(s for s in distributed.hccl_settings() if s["name"] == "HCCL_EXEC_TIMEOUT")
    assert row["default"] == "1836" and "2147483647" in row["range"] and "68" in row["range"]


def test_cold_cpu_run_inflates_the_numerator():
    bad = [where for where, text in UNITS
           if re.search(r"冷启动[^。]{0,30}分母偏大", text)]
    assert not bad, "CPU 冷启动拉长的是 CPU 时间，即加速比的分子：" + ", ".join(bad)


@pytest.mark.parametrize("pattern", [r"不会因为包在 autocast 里就被挪到 CPU", r"没有\s*CPU\s*回退", r"不会回退到 CPU"])
def test_no_claim_that_torch_npu_never_falls_back_to_cpu(pattern):
    bad = [where for where, text in UNITS if re.search(pattern, text)]
    assert not bad, "torch_npu 为 PrivateUse1 注册了 CPU 回退（VariableFallbackKernel.cpp）：" + ", ".join(bad)


def test_parser_rejects_what_the_old_course_accepted():
    from npulab.env.visible_devices import parse_visible

    assert not parse_visible("6,4", 8).ok  # the old lesson showed this as a valid mapping
    assert parse_visible("1, 2,3", 8).ids == [1]  # the old parser read three devices


@pytest.mark.parametrize("pattern, why", [
    (r"\.om\.om", "ATC 文档（atlasatcparam_16_0029）只说自动加 .om 或 _<os>_<arch>.om"),
    (r"7\s*条\s*HCCS(?![^。]{0,25}的说法)", "每卡 7 条 HCCS 链路没有可引用的官方出处"),
    (r"第三方[^。]{0,12}ascend-deployer", "ascend-deployer 是华为昇腾自己的部署工具"),
    (r"force_fp32[^。]{0,40}(?:模型不会变小|自相矛盾)", "force_fp32 与 cube_fp16in_fp32out 等价，Cube 算子仍取 FP16 输入"),
    (r"`lambda` 会让编译失败", "只有直接写在 value_and_grad(...) 里的 lambda 会失败"),
    (r"CANN ≥ 8\.5 的新布局没有 `version\.cfg`", "文档只给出 ascend_toolkit_install.info，没有说 version.cfg 不存在"),
])
def test_withdrawn_claims_stay_withdrawn(pattern, why):
    bad = [where for where, text in UNITS if re.search(pattern, text)]
    assert not bad, why + "：" + ", ".join(bad)
