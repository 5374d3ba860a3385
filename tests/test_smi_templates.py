"""``npu-smi info -t template-info`` and the single-server preflight's vNPU line: what the driver offers, or whole cards.

The unsupported answer is the documented one (Atlas 200I A2 npu-smi reference, npusmi_117). No capture of a template
table is public to the course, so the listing below is not a recording: it is only the template names that the 300V
guide (300V_0049) and HAMi's ascend-device-configmap.yaml list, in a table layout the parser does not rely on.
"""

from __future__ import annotations

from types import SimpleNamespace

from npulab.ascend_tools.smi.templates import parse_template_info
from npulab.workshop.preflight import vnpu_check

UNSUPPORTED = "npu-smi info -t template-info\nThis device does not support querying template-info.\n"
NAMES_ONLY = """
| Name            | AICORE | AICPU |
| vir01           | 1      | 1     |
| vir02_1c        | 2      | 1     |
| vir04_3c_ndvpp  | 4      | 3     |
| vir05_1c_16g    | 5      | 1     |
| vir05_1c_16g    | 5      | 1     |
"""


def test_names_carry_cores_cpus_memory():
    info = parse_template_info(NAMES_ONLY)
    assert info.names == ["vir01", "vir02_1c", "vir04_3c_ndvpp", "vir05_1c_16g"]
    t = {x.name: x for x in info.templates}
    assert (t["vir05_1c_16g"].ai_core, t["vir05_1c_16g"].ai_cpu, t["vir05_1c_16g"].memory_gb) == (5, 1, 16)
    assert t["vir04_3c_ndvpp"].media == "ndvpp" and t["vir01"].ai_cpu is None


def test_unsupported_device_has_no_templates():
    info = parse_template_info(UNSUPPORTED)
    assert info.templates == () and "does not support" in info.unsupported
    assert parse_template_info("").templates == ()


def test_vnpu_check_from_file_and_runner(tmp_path):
    listing = tmp_path / "templates.txt"
    listing.write_text(NAMES_ONLY, encoding="utf-8")
    offered = vnpu_check(3, listing)
    assert offered.status == "warn" and "vir05_1c_16g" in offered.message and "不隔离" in offered.message
    none = vnpu_check(2, runner=lambda argv: SimpleNamespace(returncode=0, stdout=UNSUPPORTED, stderr=""))
    assert "只能整卡" in none.message
    missing = vnpu_check(2, runner=lambda argv: SimpleNamespace(returncode=127, stdout="", stderr="npu-smi: not found"))
    assert "读不到" in missing.message and "退出码 127" in missing.message
