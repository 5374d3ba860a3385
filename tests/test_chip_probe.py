"""Reading the device: runtime properties, the CANN platform file and npu-smi, matched against the chip table."""

import pytest

from npulab.env import chip_probe as cp

INI_910B4 = """# [Platform Info configuration begin]
[version]
SoC_version=Ascend910B4
Short_SoC_version=Ascend910B

[SoCInfo]
ai_core_cnt=20
cube_core_cnt=20
vector_core_cnt=40
memory_size=34359738368
l2_size=100663296

[AICoreSpec]
cube_freq=1500
l0_c_size=131072
l1_size=524288
ub_size=196608
"""


def test_platform_ini_is_parsed_and_found(tmp_path):
    ini = cp.parse_platform_ini(INI_910B4)
    assert ini["SoCInfo"]["cube_core_cnt"] == "20" and ini["version"]["SoC_version"] == "Ascend910B4"
    assert cp.ini_figures(ini) == {"cube_cores": 20, "vector_cores": 40, "cube_freq_mhz": 1500, "l2_bytes": 100663296,
                                   "l1_bytes": 524288, "ub_bytes": 196608, "l0c_bytes": 131072, "memory_gib": 32.0}
    path = tmp_path / "aarch64-linux" / "data" / "platform_config" / "Ascend910B4.ini"
    path.parent.mkdir(parents=True)
    path.write_text(INI_910B4, encoding="utf-8")
    assert cp.find_platform_ini("Ascend910B4", tmp_path) == path
    assert cp.find_platform_ini("Ascend910B4", environ={"ASCEND_HOME_PATH": str(tmp_path)}) == path
    assert cp.find_platform_ini("Ascend310P3", tmp_path) is None


def test_identify_from_runtime_properties_agreeing_with_the_table():
    props = {"name": "Ascend910B4", "cube_core_num": 20, "vector_core_num": 40, "L2_cache_size": 100663296,
             "total_memory": 31662800896}
    ident = cp.identify(props, cp.parse_platform_ini(INI_910B4))
    assert ident.detected and ident.chip.key == "910B4" and not ident.differences
    assert ident.reported["runtime_total_bytes"] == 31662800896
    assert "910B4" in ident.describe() and "推理为主" in ident.describe()


def test_a_vnpu_slice_is_reported_as_a_difference_not_hidden():
    ident = cp.identify({"name": "Ascend910B3", "cube_core_num": 10, "vector_core_num": 20})
    assert ident.chip.key == "910B3" and len(ident.differences) == 2 and "vNPU" in ident.describe()


def test_npu_smi_name_and_the_default():
    assert cp.identify(smi_name="Ascend910_9392").chip.key == "A3"
    none = cp.identify({})
    assert not none.detected and none.chip.key == "910B3" and "默认芯片 910B3" in none.describe()
    unknown = cp.identify({"name": "Ascend999"})
    assert not unknown.detected and "不在课程的芯片表里" in unknown.describe()


def test_npu_smi_board_output_is_read(monkeypatch):
    class Done:
        stdout = "        NPU ID                         : 0\n        Chip Name                      : 310B4\n"

    monkeypatch.setattr(cp.shutil, "which", lambda name: "/usr/local/bin/npu-smi")
    assert cp.npu_smi_chip_name(run=lambda *a, **k: Done()) == "310B4"
    Done.stdout = "        Chip Name                      : xxx\n"  # the docs mask the name
    assert cp.npu_smi_chip_name(run=lambda *a, **k: Done()) is None


def test_doctor_check_without_an_npu_names_the_default():
    status, message, _ = cp.chip_check({}, has_npu=False)
    assert status == "skip" and "910B3" in message


def test_doctor_check_on_an_npu_host_names_the_chip_and_what_it_supports(monkeypatch):
    props = {"name": "Ascend310P3", "cube_core_num": 8, "vector_core_num": 7}
    monkeypatch.setattr(cp, "current_chip", lambda environ=None, timeout=60.0: cp.identify(props))
    status, message, _ = cp.chip_check({}, has_npu=True)
    assert status == "ok" and "310P3" in message and "BF16：无" in message and "仅推理" in message
    monkeypatch.setattr(cp, "current_chip", lambda environ=None, timeout=60.0: cp.identify({"error": "ImportError: x"}))
    status, message, fix = cp.chip_check({}, has_npu=True)
    assert status == "warn" and "ImportError" in message and "set_env.sh" in fix


def test_a_lesson_computes_for_the_chosen_chip_before_asking_the_device(monkeypatch):
    monkeypatch.setattr(cp, "current_chip", lambda environ=None, timeout=60.0: pytest.fail("the device was asked"))
    chosen = cp.lesson_chip("Ascend910B4", environ={})
    assert chosen.chip.key == "910B4" and chosen.chosen and not chosen.detected
    assert "按你选择的芯片 910B4" in chosen.describe() and "不是本机测得的" in chosen.describe()
    by_env = cp.lesson_chip(None, environ={cp.CHOICE_VARIABLE: " a3 "})
    assert by_env.chip.key == "A3" and "NPULAB_CHIP" in by_env.describe()
    with pytest.raises(cp.UnknownChip, match="可选"):
        cp.lesson_chip("910Z", environ={})


def test_a_lesson_without_a_choice_asks_the_device():
    ident = cp.lesson_chip(None, environ={"PATH": ""})
    assert ident.chip.key == "910B3" and not ident.chosen


def test_doctor_says_when_the_lessons_compute_for_a_chosen_chip():
    status, message, _ = cp.chip_check({cp.CHOICE_VARIABLE: "310P3"}, has_npu=False)
    assert status == "skip" and "NPULAB_CHIP=310P3" in message and "而不是按本机" in message
