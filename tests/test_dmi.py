"""npulab.ascend_tools.dmi: the data file agrees with the real ascend-dmi help texts; readers and the diagnosis-command rules."""

from __future__ import annotations

import re

import pytest

from npulab.ascend_tools import dmi
from npulab.ascend_tools.smi import samples


def test_every_option_in_the_help_texts_is_a_mode_in_the_data():
    listed = {opt for name in ("dmi_help_7.3.0_excerpt.txt", "dmi_help_26.1.0_excerpt.txt")
              for pair in dmi.parse_help(samples.text(name)) for opt in pair}
    in_data = {opt for mode in dmi.modes() for opt in mode["options"]} | {"-h", "--help"}
    assert listed <= in_data, listed - in_data
    assert {m["key"] for m in dmi.modes()} >= {"info", "compatible", "bandwidth", "flops", "diagnosis", "signal_quality"}


def test_diagnosis_items_match_the_help_text_and_the_seed():
    text = " ".join(samples.text("dmi_dg_help_7.3.0_excerpt.txt").split())
    names = re.search(r"options are (.*?)\. The", text)[1]
    from_help = {n.strip() for part in names.split(",") for n in part.split("/")}
    assert from_help == {i["name"] for i in dmi.diagnosis_items("help_730")}
    seed = dmi.diagnosis_items("seed")
    assert len(seed) == 12 and "p2p" in {i["name"] for i in seed} and "p2p" not in from_help


def test_readers():
    assert dmi.parse_version(samples.text("dmi_version_26.0.1.txt")) == "26.0.1"
    result = dmi.parse_diagnosis(samples.text("dmi_dg_bandwidth_7.3.0.txt"))
    assert result == {"summary": {"arch": "aarch64", "mode": "******", "time": "20250529-19:29:06"},
                      "results": {"hardware": {"bandwidth": "PASS"}}}
    with pytest.raises(ValueError):
        dmi.parse_diagnosis("hello")


def test_diagnosis_command_rules():
    assert dmi.diagnosis_command(["driver", "cann"]) == ["ascend-dmi", "--dg", "-i", "driver,cann", "-q"]
    for items, message in ((["aicore", "hbm"], "不能与其他"), (["hbm", "chipMemory"], "不能同时"),
                           (["p2p"], "只出现在原文.*--type p2p -s"), (["gpu"], "未知"), ([], "至少")):
        with pytest.raises(ValueError, match=message):
            dmi.diagnosis_command(items)


def test_p2p_stress_is_the_bandwidth_item_with_type_p2p():
    # ToolBox 7.3.0 / 26.1.0 "P2P压测" (toolboxug_0143): not an -i item of its own
    assert dmi.p2p_stress_command() == ["ascend-dmi", "--dg", "-i", "bandwidth", "--type", "p2p", "-s", "-q"]
    assert dmi.p2p_stress_command(device=3, quiet=False)[-2:] == ["-d", "3"]
