"""npulab.ascend_tools.smi: every real sample, hand-made edge cases (marked as such), fuzzing, and the command line.

Real outputs live in npulab/data/samples/ with their sources (index.yaml). Hand-made strings below follow the
format rules of the npu-smi field tables (hiascend 300Ipro_015, atlasdg_11_0151; A3 dies, 5-digit ``used/ total``, wide 26.0 tables, compressed
whitespace, Ascend 950 process header); they exercise the rules, they are not presented as captures.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from npulab.ascend_tools import smi
from npulab.ascend_tools.smi import (
    SmiParseError,
    SmiUnsupported,
    detect,
    expand_cpu_list,
    logic_ids,
    parse,
    parse_info,
    parse_kv,
    parse_list,
    parse_mapping,
    parse_topo,
    parse_watch,
    samples,
)
from npulab.ascend_tools.smi.info import CHIP_FIELDS, PROCESS_FIELDS
from npulab.ascend_tools.smi.queries import parse_help, types
from npulab.ascend_tools.smi.render import render
from npulab.ascend_tools.smi.triage import ecc_findings, health_findings, pcie_findings, worst

FUZZ = settings(max_examples=int(os.environ.get("NPULAB_FUZZ_EXAMPLES", "60")), deadline=None, suppress_health_check=[HealthCheck.too_slow])


def sample(name: str) -> str:
    return samples.text(name)


# --------------------------------------------------------------------------------------------------------------
# every real sample
# --------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", samples.names())
def test_every_sample_is_detected_and_parsed(name):
    meta = samples.index()[name]
    text = sample(name)
    if meta["kind"] == "dmi":
        with pytest.raises(SmiParseError, match="ascend-dmi"):
            detect(text)
        return
    assert detect(text) == meta["kind"]
    if meta["kind"] == "unsupported":
        with pytest.raises(SmiUnsupported):
            parse(text)
        return
    kind, result = parse(text)
    data = smi.as_json(result)
    json.dumps(data)  # JSON-able
    assert render(kind, result).strip()
    if meta["kind"] == "info":
        assert list(data)[:4] == ["smi_version", "driver_version", "chips", "processes"]
        assert all(list(c) == list(CHIP_FIELDS) for c in data["chips"])
        assert not data.get("partial")  # the excerpts end on a separator: nothing in the text shows the cut


def test_old_310_layout_with_npu_ids_that_do_not_start_at_zero():
    info = parse_info(sample("info_310_16chip_21.0.3.1.txt"))
    assert (info.smi_version, info.driver_version) == ("21.0.3.1", "21.0.3.1")
    assert info.npu_ids() == [1, 3, 4, 6]
    assert len(info.chips) == 16
    first, last = info.chips[0].to_dict(), info.chips[-1].to_dict()
    assert first == {"npu_id": 1, "chip_id": 0, "phy_id": 0, "name": "310", "health": "OK", "power_w": 12.8,
                     "temp_c": 42, "hugepages_used": None, "hugepages_total": None, "bus_id": "0000:01:00.0",
                     "aicore_pct": 0, "memory_used_mb": 2621, "memory_total_mb": 8192, "hbm_used_mb": None,
                     "hbm_total_mb": None}
    assert (last["npu_id"], last["chip_id"], last["phy_id"], last["bus_id"]) == (6, 3, 15, "0000:8E:00.0")
    assert info.processes == [] and not info.warnings


def test_first_generation_910_with_ddr_and_hbm_columns():
    info = parse_info(sample("info_910a_2npu_21.0.3.2.txt"))
    assert [c.npu_id for c in info.chips] == [1, 4]
    chip = info.chips[0]
    assert (chip.memory_used_mb, chip.memory_total_mb, chip.hbm_used_mb, chip.hbm_total_mb) == (1809, 15082, 0, 32768)
    assert chip.hugepages_total is None and chip.phy_id is None


def test_process_table_without_processes():
    info = parse_info(sample("info_310_1chip_procs_23.0.0.txt"))
    assert info.processes == [] and info.idle_npus == [0]
    assert (info.chips[0].hugepages_used, info.chips[0].hugepages_total) == (0, 969)
    assert (info.chips[0].memory_used_mb, info.chips[0].memory_total_mb) == (577, 7759)


def test_soc_product_bus_id_na_is_null():
    chip = parse_info(sample("info_310b_soc_24.1.rc3.txt")).chips[0]
    assert chip.bus_id is None and chip.name == "310B"
    assert (chip.hugepages_used, chip.hugepages_total, chip.memory_total_mb) == (15, 1304, 10810)


def test_atlas_a2_eight_cards():
    info = parse_info(sample("info_910b3_8card_24.1.rc1.txt"))
    assert info.smi_version == "24.1.rc1.b030" and info.npu_ids() == list(range(8))
    assert {c.name for c in info.chips} == {"910B3"}
    assert [c.hbm_used_mb for c in info.chips] == [3318, 3314, 3314, 3314, 3314, 3314, 3314, 3315]
    assert all(c.hbm_total_mb == 65536 and c.memory_total_mb == 0 for c in info.chips)
    assert info.chips[0].hbm_free_mb == 65536 - 3318


def test_atlas_a3_two_dies_per_npu():
    info = parse_info(sample("info_a3_8npu_16die_25.2.1.txt"))
    assert info.smi_version == "25.2.1" and info.npu_ids() == list(range(8)) and len(info.chips) == 16
    assert [(c.chip_id, c.phy_id) for c in info.chips[:4]] == [(0, 0), (1, 1), (0, 2), (1, 3)]
    assert info.chips[0].power_w == 161.8 and info.chips[1].power_w is None  # the second die prints "-"
    assert info.idle_npus == list(range(8)) and info.processes == [] and not info.warnings


def test_elided_copy_and_common_query():
    info = parse_info(sample("info_910b1_8card_elided_23.0.rc2.txt"))  # the author replaced NPU 2-6 by "..."
    assert info.npu_ids() == [0, 1, 7] and info.chips[2].hbm_used_mb == 4174
    common = smi.parse_common(sample("common_910b1_23.0.rc2.txt"))
    chip, mcu = common["chips"]
    assert (chip["aicore_freq_mhz"], chip["aicore_curfreq_mhz"], chip["npu_real_time_power_w"]) == (1800, 800, 93.4)
    assert mcu == {"chip_name": "mcu", "temperature_c": 38}
    topo = parse_topo(sample("topo_910b1_8card_23.0.rc2.txt"))  # header not indented
    assert topo.is_full_mesh() and topo.cpu_affinity["NPU1"] == "0-23" and "NA" not in topo.legend


def test_excerpt_without_version_line_warns():
    info = parse_info(sample("info_910b3_excerpt_noversion.txt"))
    assert info.smi_version is None and len(info.chips) == 3
    assert any("版本行" in w for w in info.warnings)


def test_topology_sample():
    topo = parse_topo(sample("topo_910b3_8card.txt"))
    assert topo.devices == [f"NPU{i}" for i in range(8)]
    assert len(topo.links) == 56 and topo.is_full_mesh() and not topo.partial
    assert topo.cpu_affinity["NPU0"] == "144-167" and topo.cpu_affinity["NPU7"] == "48-71"
    assert topo.cpus("NPU4") == list(range(24))
    assert topo.legend["HCCS"] == "Connection traversing HCCS." and topo.legend["X"] == "Self"
    assert topo.asymmetric_pairs() == []
    assert json.loads(json.dumps(topo.to_dict()))["links"]["NPU2"]["NPU5"] == "HCCS"


def test_kv_samples():
    usages = smi.parse_usages(sample("usages_npu_200ia2.txt"))
    assert usages["npu_id"] == 0 and usages["chip_count"] == 1
    assert usages["chips"][0]["chip_id"] == 0 and usages["chips"][0]["memory_usage_rate_pct"] == 35
    assert usages["chips"][0]["memory_bandwidth_usage_rate_pct"] == 0
    ddr = smi.parse_usages(sample("usages_910_ddr_hbm_23.0.5.txt"))  # Chip ID closes the chip block here
    assert ddr["chips"] == [{**ddr["chips"][0], "chip_id": 0}] and ddr["chips"][0]["hbm_capacity_mb"] == 32768
    board = smi.parse_board(sample("board_200ia2_25.5.0.txt"))
    assert board["serial_number"] == "025VLB10K7000275" and board["model"] is None
    assert board["firmware_version"] == "7.1.0.4.218" and board["board_id"] == "0x45" and board["bom_id"] == 1
    assert smi.parse_board(sample("board_910_23.0.5.txt"))["pcie_bus_info"] == "0000:61:00.0"
    assert smi.parse_board(sample("board_mcu_200ia2.txt"))["chip_name"] == "MCU"
    assert smi.parse_health(sample("health_910_23.0.5.txt")) == {
        "health_status": "OK", "error_code": None, "error_information": None}
    remap = smi.parse_phyid_remap(sample("phyid_remap_200ia2.txt"))
    assert remap == {"chip_physical_id": 0, "chip_logic_id": 0, "npu_id": 0, "chip_id": 0}
    cards = parse_list(sample("list_200ia2.txt"))
    assert cards == {"card_count": 1, "cards": [{"npu_id": 0, "product_name": None, "serial_number": None,
                                                 "chip_count": 1}]}


def test_watch_sample_flattened_onto_one_line():
    result = parse_watch(sample("watch_200ia2_flattened.txt"))
    assert result["columns"] == ["npu_id", "chip_id", "power_w", "temp_c", "aicore_pct", "aicpu_pct",
                                 "ctrlcpu_pct", "memory_pct", "memory_bw_pct"]
    assert result["rows"] == [{"npu_id": 0, "chip_id": 0, "power_w": 13.4, "temp_c": 45, "aicore_pct": 0,
                               "aicpu_pct": 0, "ctrlcpu_pct": 0, "memory_pct": 3, "memory_bw_pct": 0}]


def test_help_sample_and_query_data_agree():
    helped = parse_help(sample("help_info_25.2.0_excerpt.txt"))
    assert helped["truncated"] and helped["types"][0] == "board" and "-m" in helped["commands"]
    known = {t["name"] for t in types()}
    missing = [t for t in helped["types"][:-1] if t not in known]  # the last name is cut ("pkcs-e")
    assert missing == []
    full = parse_help(sample("help_info_23.0.rc2.txt"))
    assert not full["truncated"] and len(full["types"]) == 45 and full["types"][-1] == "topo"
    assert set(full["types"]) <= known and full["options"]["-c %d"] == "Chip ID"
    assert all({"name", "group", "what", "sources"} <= set(t) for t in types())


def test_unsupported_samples():
    with pytest.raises(SmiUnsupported, match="does not support"):
        parse_topo(sample("topo_unsupported_200ia2.txt"))
    with pytest.raises(SmiUnsupported):
        smi.parse_kv(sample("hccs_unsupported_200ia2.txt"))


# --------------------------------------------------------------------------------------------------------------
# hand-made edge cases (format rules, not captures)
# --------------------------------------------------------------------------------------------------------------

A3_TWO_DIES = """\
+------------------------------------------------------------------------------------------------+
| npu-smi 25.2.0                   Version: 25.2.0                                               |
+---------------------------+---------------+----------------------------------------------------+
| NPU   Name                | Health        | Power(W)    Temp(C)           Hugepages-Usage(page)|
| Chip  Phy-ID              | Bus-Id        | AICore(%)   Memory-Usage(MB)  HBM-Usage(MB)        |
+===========================+===============+====================================================+
| 4     Ascend910           | OK            | 170.2       36                0    / 0             |
| 0     8                   | 0000:8D:00.0  | 37          0    / 0          52553/ 65536         |
+------------------------------------------------------------------------------------------------+
| 4     Ascend910           | Warning       | -           37                0    / 0             |
| 1     9                   | 0000:8F:00.0  | 0           0    / 0          3200 / 65536         |
+===========================+===============+====================================================+
+---------------------------+---------------+----------------------------------------------------+
| NPU     Chip              | Process id    | Process name             | Process memory(MB)      |
+===========================+===============+====================================================+
| 4       0                 | 957687        | python3.10               | 49207                   |
| 4       1                 | 957770        |                          | 49207                   |
+===========================+===============+====================================================+
"""


def test_a3_two_dies_per_npu_with_phy_ids_and_processes():
    info = parse_info(A3_TWO_DIES)
    assert [(c.npu_id, c.chip_id, c.phy_id) for c in info.chips] == [(4, 0, 8), (4, 1, 9)]
    assert info.chips[0].hbm_used_mb == 52553 and info.chips[0].aicore_pct == 37
    assert info.chips[1].power_w is None and info.chips[1].health == "Warning"
    assert [p.to_dict() for p in info.processes] == [
        {"npu_id": 4, "chip_id": 0, "pid": 957687, "name": "python3.10", "memory_mb": 49207},
        {"npu_id": 4, "chip_id": 1, "pid": 957770, "name": None, "memory_mb": 49207},
    ]
    assert list(info.processes[0].to_dict()) == list(PROCESS_FIELDS)
    assert not info.partial and not info.warnings


WIDE = """\
+------------------------------------------------------------------------------------------------------------------+
| npu-smi 26.0.rc2                            Version: 26.0.rc2                                                    |
+---------------------------+---------------+----------------------------------------------------------------------+
| NPU   Name                | Health        | Power(W)             Temp(C)                 Hugepages-Usage(page)   |
| Chip                      | Bus-Id        | AICore(%)            Memory-Usage(MB)        HBM-Usage(MB)           |
+===========================+===============+======================================================================+
| 7     910B4               | OK            | NA                   41                      0    / 0                |
| 0                         | 0000:42:00.0  | 100                  0    / 0                30760/ 32768            |
+===========================+===============+======================================================================+
+---------------------------+---------------+----------------------------------------------------------------------+
| NPU ID                    | Process id    | Process name             | Process memory(MB)      | Extra col    |
+===========================+===============+======================================================================+
| 7                         | 2018733       | VLLMWorker_TP            | 30212                   | x            |
+===========================+===============+======================================================================+
"""


def test_wider_table_na_power_and_950_style_process_header():
    info = parse_info(WIDE)
    chip = info.chips[0]
    assert (chip.npu_id, chip.power_w, chip.temp_c, chip.aicore_pct, chip.hbm_used_mb, chip.hbm_total_mb) == (
        7, None, 41, 100, 30760, 32768)
    proc = info.processes[0]
    assert (proc.npu_id, proc.chip_id, proc.pid, proc.name, proc.memory_mb) == (7, None, 2018733, "VLLMWorker_TP", 30212)
    assert proc.extra == {"Extra col": "x"}


COMPRESSED = """\
| npu-smi 24.1.0 Version: 24.1.0 |
| NPU Name | Health | Power(W) Temp(C) Hugepages-Usage(page) |
| Chip | Bus-Id | AICore(%) Memory-Usage(MB) HBM-Usage(MB) |
+====+
| 0 910B | OK | 93.1 37 0 / 0 |
| 0 | 0000:C1:00.0 | 0 0 / 0 3312 / 65536 |
+====+
"""


def test_whitespace_compressed_to_single_spaces():
    chip = parse_info(COMPRESSED).chips[0]
    assert (chip.name, chip.power_w, chip.temp_c, chip.hugepages_total, chip.hbm_used_mb) == ("910B", 93.1, 37, 0, 3312)


def test_truncated_mid_row_gives_a_partial_result():
    cut = A3_TWO_DIES[: A3_TWO_DIES.index("| 1     9") + 12]
    info = parse_info(cut)
    assert info.partial and len(info.chips) == 2
    assert info.chips[1].bus_id is None and info.chips[1].health == "Warning"
    assert any("截断" in w for w in info.warnings)
    header_only = A3_TWO_DIES[: A3_TWO_DIES.index("| 4     Ascend910")]
    assert parse_info(header_only).partial and parse_info(header_only).chips == []


@pytest.mark.parametrize("text", ["", "   \n", "hello world", "dcmi model initialized failed\n", "Traceback (most recent"])
def test_text_that_is_not_npu_smi_output(text):
    with pytest.raises(SmiParseError):
        parse(text)


def test_topology_variants():
    one_row = parse_topo("NPU0 X HCCS HCCS HCCS HCCS HCCS HCCS HCCS 0-3")  # no header
    assert one_row.columns == [f"NPU{i}" for i in range(8)] and one_row.cpu_affinity == {"NPU0": "0-3"}
    assert one_row.partial  # the other seven rows are missing
    ub = parse_topo("       NPU0       NPU1       NIC0\nNPU0       X          UB         NA\nNPU1       UB         X          NA\n")
    assert ub.devices == ["NPU0", "NPU1"] and ub.link("NPU0", "NIC0") == "NA" and ub.link("NPU1", "NPU0") == "UB"
    assert ub.cpu_affinity == {"NPU0": None, "NPU1": None} and not ub.partial
    cut = "\n".join(sample("topo_910b3_8card.txt").splitlines()[:4])
    assert parse_topo(cut).partial and len(parse_topo(cut).devices) == 3
    with pytest.raises(SmiParseError, match="-l"):
        parse_topo(sample("list_200ia2.txt"))
    assert expand_cpu_list("0-2,8") == [0, 1, 2, 8] and expand_cpu_list("NA") == [] and expand_cpu_list(None) == []


def test_mapping_formats():
    real_format = ("\tNPU ID                         Chip ID                        Chip Logic ID                  "
                   "Chip Name                     \n\t0                              0                              0"
                   "                              Ascend 910B3\n\t0                              1                   "
                   "           -                              Mcu                           \n")
    mapping = parse_mapping(real_format)
    assert mapping["chips"][0] == {"npu_id": 0, "chip_id": 0, "logic_id": 0, "phy_id": None, "name": "Ascend 910B3"}
    assert mapping["chips"][1]["logic_id"] is None and logic_ids(mapping) == {(0, 0): 0}
    a3 = parse_mapping("NPU ID  Chip ID  Chip Logic ID  Chip Phy-ID Chip Name\n3 0 6 6 Ascend\n3 1 7 7 Ascend\n3 2 - - Mcu\n")
    assert logic_ids(a3) == {(3, 0): 6, (3, 1): 7} and a3["chips"][1]["phy_id"] == 7
    assert detect(real_format) == "mapping"
    cut = parse_mapping("NPU ID  Chip ID  Chip Logic ID  Chip Name\n0 0 0 Ascend 910B3\n1 0")
    assert cut["partial"] and len(cut["chips"]) == 1


def test_kv_rules():
    multi = "Process id:207795  Process name:VLLMEngineCor     Process memory(MB):55436\n"
    assert parse_kv(multi) == {"process_id": 207795, "process_name": "VLLMEngineCor", "process_memory_mb": 55436}
    no_blank = "Card Count : 2\nNPU ID : 3\nChip Count : 1\nNPU ID : 5\nChip Count : 1\n"
    listed = parse_list(no_blank)
    assert [c["npu_id"] for c in listed["cards"]] == [3, 5] and not listed.get("partial")
    short = parse_list("Card Count : 8\n\nNPU ID : 0\nChip Count : 1\n")
    assert short["partial"] and "8" in short["warnings"][0]


def test_watch_variants():
    text = ("NpuID(Idx)  ChipId(Idx) Pwr(W)      Temp(C)     AI Core(%)  AI Cpu(%)   Ctrl Cpu(%) Memory(%)   Memory BW(%)\n"
            "2           0           90.1        34          0           0           2           5           0\n"
            "2           0           NA          34          12          0           0           5           0\n"
            "2           0   ")
    result = parse_watch(text)
    assert len(result["rows"]) == 2 and result["rows"][1]["power_w"] is None and result["partial"]
    two = parse_watch("NpuID(Idx)  AI Core(%)\n0           37\n")
    assert two == {"columns": ["npu_id", "aicore_pct"], "rows": [{"npu_id": 0, "aicore_pct": 37}]}


def test_triage_thresholds():
    ecc = parse_kv("NPU ID : 1\nChip Count : 1\n\nHBM Single Bit Error Count : 5\nHBM Double Bit Error Count : 2\n"
                   "HBM Single Bit Isolated Pages Count : 3\nChip ID : 0\n")
    levels = {f.field: f.level for f in ecc_findings(ecc)}
    assert levels == {"hbm_double_bit_error_count": "fail", "hbm_single_bit_isolated_pages_count": "warn"}
    assert worst(ecc_findings(ecc)) == "fail"
    assert worst(ecc_findings(smi.parse_ecc(sample("ecc_910_23.0.5.txt")))) == "ok"
    assert worst(health_findings({"health_status": "Warning", "error_code": "80E01801"})) == "warn"
    assert worst(health_findings({"health_status": "Critical"})) == "fail"
    assert worst(health_findings(smi.parse_health(sample("health_910_23.0.5.txt")))) == "ok"
    assert worst(pcie_findings({"pcie_rx_err_cnt": 4, "link_width": 16})) == "warn"
    assert worst(pcie_findings({"link_width": 16})) == "ok"


# --------------------------------------------------------------------------------------------------------------
# fuzzing: only SmiParseError may escape; round trips
# --------------------------------------------------------------------------------------------------------------

ALL_TEXTS = [sample(n) for n in samples.names()] + [A3_TWO_DIES, WIDE, COMPRESSED]


def _only_parse_errors(text: str) -> None:
    try:
        kind, result = parse(text)
        json.dumps(smi.as_json(result))
        render(kind, result)
    except SmiParseError:
        pass


@FUZZ
@given(st.text(max_size=400))
def test_fuzz_any_text(text):
    _only_parse_errors(text)


@FUZZ
@given(st.sampled_from(ALL_TEXTS), st.data())
def test_fuzz_truncated_and_damaged_samples(text, data):
    cut = data.draw(st.integers(0, len(text)))
    _only_parse_errors(text[:cut])
    lines = text.splitlines()
    if lines:
        drop = data.draw(st.integers(0, len(lines) - 1))
        _only_parse_errors("\n".join(lines[:drop] + lines[drop + 1:]))
    junk = data.draw(st.text(alphabet="| +-=/:\tNA0123456789abc", max_size=30))
    at = data.draw(st.integers(0, len(text)))
    _only_parse_errors(text[:at] + junk + text[at:])


def _pair(used: int, total: int) -> str:
    return f"{used:<4}" + ("/ " if used >= 10000 else " / ") + str(total)


def _format_info(chips: list[dict], hbm: bool, pad: int) -> str:
    """An npu-smi info table in the Atlas A2/A3 layout, columns padded by ``pad`` extra spaces."""
    two_dies = any(c["chip_id"] for c in chips)
    w = [26 + pad, 14 + pad, 51 + 2 * pad]
    sub = 12 + pad // 2

    def row(a: str, b: str, c: str) -> str:
        return f"| {a:<{w[0]}}| {b:<{w[1]}}| {c:<{w[2]}}|"

    sep_new = "+" + "=" * (w[0] + 1) + "+" + "=" * (w[1] + 1) + "+" + "=" * (w[2] + 1) + "+"
    sep_die = "+" + "-" * (sum(w) + 5) + "+"
    third2 = f"{'AICore(%)':<{sub}}{'Memory-Usage(MB)':<18}" + ("HBM-Usage(MB)" if hbm else "")
    lines = [row("NPU   Name", "Health", f"{'Power(W)':<{sub}}{'Temp(C)':<18}Hugepages-Usage(page)"),
             row("Chip  Phy-ID" if two_dies else "Chip", "Bus-Id", third2), sep_new]
    for i, c in enumerate(chips):
        power = "-" if c["power_w"] is None else f"{c['power_w']:.1f}"
        lines.append(row(f"{c['npu_id']:<6}{c['name']}", c["health"],
                         f"{power:<{sub}}{c['temp_c']:<18}{_pair(c['hugepages_used'], c['hugepages_total'])}"))
        first = f"{c['chip_id']:<6}{c['phy_id']}" if two_dies else str(c["chip_id"])
        third = f"{c['aicore_pct']:<{sub}}{_pair(c['memory_used_mb'], c['memory_total_mb']):<18}"
        third += _pair(c["hbm_used_mb"], c["hbm_total_mb"]) if hbm else ""
        lines.append(row(first, c["bus_id"] or "NA", third))
        nxt = chips[i + 1] if i + 1 < len(chips) else None
        lines.append(sep_die if nxt and nxt["npu_id"] == c["npu_id"] else sep_new)
    header = "| " + "npu-smi 25.0.rc1                 Version: 25.0.rc1".ljust(sum(w) + 2) + " |"
    return "\n".join(["+" + "-" * (sum(w) + 5) + "+", header, sep_die, *lines]) + "\n"


@st.composite
def chip_tables(draw):
    npus = sorted(draw(st.sets(st.integers(0, 63), min_size=1, max_size=6)))
    dies = draw(st.sampled_from([1, 2]))
    hbm = draw(st.booleans())
    chips = []
    for npu in npus:
        for die in range(dies):
            mem_total = draw(st.integers(0, 99999))
            hbm_total = draw(st.integers(0, 99999))
            chips.append({
                "npu_id": npu, "chip_id": die, "phy_id": npu * dies + die if dies == 2 else None,
                "name": draw(st.sampled_from(["910B3", "Ascend910", "310P3", "910B4"])),
                "health": draw(st.sampled_from(["OK", "Warning", "Alarm", "Critical", "UNKNOWN"])),
                "power_w": None if die else draw(st.one_of(st.none(), st.integers(0, 4000).map(lambda v: v / 10))),
                "temp_c": draw(st.integers(0, 110)),
                "hugepages_used": 0, "hugepages_total": draw(st.integers(0, 5000)),
                "bus_id": draw(st.one_of(st.none(), st.from_regex(r"0000:[0-9A-F]{2}:00\.[01]", fullmatch=True))),
                "aicore_pct": draw(st.integers(0, 100)),
                "memory_used_mb": draw(st.integers(0, mem_total)), "memory_total_mb": mem_total,
                "hbm_used_mb": draw(st.integers(0, hbm_total)) if hbm else None, "hbm_total_mb": hbm_total if hbm else None,
            })
    return chips, hbm, draw(st.integers(0, 12))


@FUZZ
@given(chip_tables())
def test_round_trip_info_table(table):
    chips, hbm, pad = table
    info = parse_info(_format_info(chips, hbm, pad))
    assert not info.partial and [c.to_dict() for c in info.chips] == [{k: c[k] for k in CHIP_FIELDS} for c in chips]
    assert info.npu_ids() == sorted({c["npu_id"] for c in chips})


@FUZZ
@given(st.integers(1, 16), st.data())
def test_round_trip_topology(n, data):
    names = [f"NPU{i}" for i in range(n)]
    kinds = st.sampled_from(["HCCS", "PIX", "PHB", "SYS", "SIO", "HCCS_SW", "NA"])
    links = {(a, b): data.draw(kinds) for a in names for b in names if a != b}
    affinity = {d: data.draw(st.one_of(st.just("NA"), st.from_regex(r"[0-9]{1,3}-[0-9]{1,3}", fullmatch=True)))
                for d in names}
    width = data.draw(st.integers(2, 12))
    label = max(map(len, names)) + width
    lines = [" " * label + "".join(f"{c:<{width + 6}}" for c in names) + "CPU Affinity"]
    for a in names:
        cells = ["X" if a == b else links[(a, b)] for b in names]
        lines.append(f"{a:<{label}}" + "".join(f"{v:<{width + 6}}" for v in cells) + affinity[a])
    topo = parse_topo("\n".join(lines) + "\n\nLegend:\n\n  X    = Self\n")
    assert topo.devices == names and topo.links == links and not topo.partial
    assert topo.cpu_affinity == {d: (None if v == "NA" else v) for d, v in affinity.items()}
    cut = data.draw(st.integers(1, len(lines)))
    truncated = parse_topo("\n".join(lines[:cut])) if cut > 1 else None
    if truncated is not None:
        assert truncated.partial == (cut - 1 < n)


# --------------------------------------------------------------------------------------------------------------
# the command line
# --------------------------------------------------------------------------------------------------------------


def cli(*args, stdin: str | None = None, env: dict | None = None):
    return subprocess.run([sys.executable, "-m", "npulab", "smi", *args], capture_output=True, text=True,
                          input=stdin, env=env, timeout=60)


def test_cli_parse_json_schema():
    done = cli("parse", str(samples.path("info_910b3_8card_24.1.rc1.txt")), "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert list(data) == ["smi_version", "driver_version", "chips", "processes"]
    assert data["chips"][7]["bus_id"] == "0000:42:00.0" and data["processes"] == []


def test_cli_parse_stdin_text_and_errors(tmp_path):
    done = cli("parse", "-", stdin=A3_TWO_DIES)
    assert done.returncode == 0 and "Ascend910" in done.stdout and "python3.10" in done.stdout
    cut = cli("parse", "-", "--json", stdin=A3_TWO_DIES[:500])
    assert cut.returncode == 1 and json.loads(cut.stdout)["partial"] is True and "截断" in cut.stderr
    missing = cli("parse", str(tmp_path / "nope.txt"))
    assert missing.returncode == 2 and "找不到文件" in missing.stderr and "Traceback" not in missing.stderr
    (tmp_path / "x.txt").write_bytes(b"\xff\xfe not npu-smi at all")
    other = cli("parse", str(tmp_path / "x.txt"))
    assert other.returncode == 2 and "无法识别" in other.stderr and "Traceback" not in other.stderr
    unsupported = cli("parse", str(samples.path("topo_unsupported_200ia2.txt")))
    assert unsupported.returncode == 1 and "不支持" in unsupported.stderr
    bad_kind = cli("parse", "-", "--kind", "nonsense", stdin="x")
    assert bad_kind.returncode == 2


def _fake_npu_smi(folder: Path) -> Path:
    """A stand-in npu-smi that prints real sample text for info/topo and hand-made text for the rest."""
    folder.mkdir(exist_ok=True)
    (folder / "info.txt").write_text(A3_TWO_DIES)
    (folder / "topo.txt").write_text(sample("topo_910b3_8card.txt"))
    (folder / "health.txt").write_text(sample("health_910_23.0.5.txt"))
    (folder / "list.txt").write_text("Card Count : 1\n\nNPU ID : 4\nProduct Name : NA\nChip Count : 2\n")
    (folder / "map.txt").write_text("NPU ID  Chip ID  Chip Logic ID  Chip Phy-ID  Chip Name\n"
                                    "4  0  0  8  Ascend 910\n4  1  1  9  Ascend 910\n4  2  -  -  Mcu\n")
    (folder / "ecc.txt").write_text("NPU ID : 4\nChip Count : 2\n\nHBM Double Bit Error Count : 0\nChip ID : 0\n\n"
                                    "HBM Double Bit Error Count : 1\nChip ID : 1\n")
    script = folder / "npu-smi"
    script.write_text(f"""#!/bin/sh
case "$*" in
  "info") cat {folder}/info.txt ;;
  "info -l") cat {folder}/list.txt ;;
  "info -m") cat {folder}/map.txt ;;
  "info -t topo") cat {folder}/topo.txt ;;
  *"-t health"*) cat {folder}/health.txt ;;
  *"-t ecc -i 4") cat {folder}/ecc.txt ;;
  *"-t pcie-err"*) echo "This device does not support querying pcie-err." ;;
  *) echo "unknown command" >&2; exit 3 ;;
esac
""")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return folder


def test_cli_watch_without_and_with_npu_smi(tmp_path):
    env = {**os.environ, "PATH": str(tmp_path / "empty")}
    gone = cli("watch", "--count", "1", env=env)
    assert gone.returncode == 1 and "找不到 npu-smi" in gone.stderr and "Traceback" not in gone.stderr
    assert cli("watch", "--count", "0").returncode == 2
    bin_dir = _fake_npu_smi(tmp_path / "bin")
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    out = tmp_path / "samples.csv"
    done = cli("watch", "--count", "2", "--interval", "0", "--csv", str(out), env=env)
    assert done.returncode == 0, done.stderr
    rows = out.read_text().splitlines()
    assert rows[0].startswith("time,npu_id,chip_id") and len(rows) == 1 + 2 * 2
    assert ",4,1,9,0,3200,65536," in rows[2]


def test_cli_report_degrades_and_finds(tmp_path):
    env = {**os.environ, "PATH": str(tmp_path / "empty")}
    bare = cli("report", str(tmp_path / "bare"), "--root", str(tmp_path / "no-cann"), env=env)
    assert bare.returncode == 0, bare.stderr
    summary = json.loads((tmp_path / "bare" / "summary.json").read_text())
    assert {s["step"]: s["status"] for s in summary["steps"]}["npu-smi"] == "missing"
    bin_dir = _fake_npu_smi(tmp_path / "bin")
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}/usr/bin:/bin"}
    done = cli("report", str(tmp_path / "rep"), "--root", str(tmp_path / "no-cann"), env=env)
    summary = json.loads((tmp_path / "rep" / "summary.json").read_text())
    assert done.returncode == 1 and summary["verdict"] == "fail"  # the double-bit ECC error on NPU 4 chip 1
    assert summary["card_count"] == 1 and summary["npu_ids"] == [4]
    assert summary["topology"].startswith("8 个设备")
    statuses = {s["step"]: s["status"] for s in summary["steps"]}
    assert statuses["pcie-err NPU 4"] == "unsupported" and statuses["health NPU 4 芯片 1"] == "ok"
    assert (tmp_path / "rep" / "topo.json").exists() and (tmp_path / "rep" / "ecc_npu4.json").exists()
    assert any(f["field"] == "hbm_double_bit_error_count" and f["where"] == "NPU 4 芯片 1" for f in summary["findings"])
    assert any(f["field"] == "health_status" and f["value"] == "Warning" for f in summary["findings"])


def test_random_bytes_are_rejected_not_parsed(tmp_path):
    """Issue 12: 200 KB of random bytes used to come back as a "chip" whose health was the garbage read."""
    import random

    rng = random.Random(12)
    junk = tmp_path / "random.bin"
    junk.write_bytes(bytes(rng.getrandbits(8) for _ in range(200_000)))
    done = cli("parse", str(junk), "--json")
    assert done.returncode == 2 and done.stdout == "" and "无法识别" in done.stderr and "Traceback" not in done.stderr
    for seed in range(50):  # short random snippets, decoded the way the CLI decodes files
        blob = bytes(random.Random(seed).getrandbits(8) for _ in range(3000)).decode("utf-8", errors="replace")
        with pytest.raises(SmiParseError):
            smi.parse(blob)


def test_table_rows_without_a_header_must_look_like_npu_smi():
    with pytest.raises(SmiParseError, match="没有表头行"):
        parse_info("| hello | world |\n| foo | bar |\n")
    with pytest.raises(SmiParseError):  # prose with a colon in every other line is not a -t query
        smi.parse("Traceback (most recent call last):\n  File \"x.py\", line 1\nValueError: bad\n")
    tail = A3_TWO_DIES[A3_TWO_DIES.index("| 4     Ascend910"):]  # the output's bottom half: still parses
    info = parse_info(tail)
    assert info.chips and info.chips[0].npu_id == 4 and any("表头" in w for w in info.warnings)
