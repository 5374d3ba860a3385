"""`python -m npulab doctor` and `python -m npulab chips` in English (issue 37): with NPULAB_LANG=en every finding,
fix, table and note they print comes from the catalogue (npulab/data/messages/doctor.yaml, chips.yaml) or from the
English twins of the data files (stacks.yaml, compatibility.yaml, chips.yaml), with the same numbers and exit codes;
with NPULAB_LANG=zh the output is the Chinese it was."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from english_checks import CJK, no_cjk

from npulab.__main__ import main
from npulab.core.paths import DATA_DIR, load_yaml
from npulab.env import chip_probe, doctor, stack_check, visible_devices
from npulab.env.compatibility import check_alignment
from npulab.hw import chips as chip_table
from npulab.testing.synthetic_cann import loaded_environ, make_synthetic_install

CPU = {"numpy": "1.26.4", "torch": "2.13.0+cpu", "mindspore": "2.10.0", "torch-npu": None}


def _usage_error(err: str) -> str:
    """The message of a usage error, without the command line's own prefix (npulab.__main__, not this area)."""
    return re.sub(r"^(错误：|[Ee]rror: )", "", err.strip())


def _diagnose(tmp_path: Path, root: Path | None = None, environ=None, versions=None, dev: Path | None = None, **kw):
    dev = dev or tmp_path / "dev"
    dev.mkdir(exist_ok=True)
    return doctor.diagnose(root or tmp_path / "empty", environ or {}, dev_dir=dev, versions={**CPU, **(versions or {})},
                           **kw)


# ------------------------------------------------------------------------------------------------------- doctor


def test_doctor_cli_speaks_english_with_the_same_exit_code(en, tmp_path, capsys):
    (tmp_path / "Ascend").mkdir()
    code = main(["doctor", "--ascend-root", str(tmp_path / "Ascend"), "--probe-timeout", "0"])
    out = no_cjk(capsys.readouterr().out)
    assert code == 0
    assert out.startswith("Ascend NPU course environment check")
    for phrase in ("the course runs in CPU mode", "Legend: ✓ passed", "python -m npulab explain <log file>",
                   "No CANN found (searched: ", "torch_npu is not installed"):
        assert phrase in out, phrase
    assert re.search(r"\d+ passed, 0 warnings, 0 failed, \d+ skipped\.", out)


def test_doctor_findings_and_fixes_on_an_ascend_host_are_english(en, tmp_path):
    root = make_synthetic_install(tmp_path / "Ascend", "cann", "8.5.0", driver_version="24.1.0.3")
    dev = tmp_path / "fakedev"
    dev.mkdir()
    for i in range(8):
        (dev / f"davinci{i}").touch()
    env = {**loaded_environ(root), "ASCEND_RT_VISIBLE_DEVICES": "4,5,6,7"}
    checks = {c.id: c for c in _diagnose(tmp_path, root, env, {"torch-npu": "2.1.0.post13", "protobuf": "6.31.1"}, dev,
                                         probe_timeout=0)}
    text = no_cjk(doctor.render(list(checks.values())))
    assert "Found 8 NPU device nodes: davinci0" in text
    assert "npu:0 → logical ID 4, npu:1 → logical ID 5" in checks["visible_devices"].message
    assert "Driver 24.1.0.3 is older than HDK" in checks["driver"].message and "25.0.X" in checks["driver"].fix
    assert "torch_npu 2.1.0.post13 is built for PyTorch 2.1.0, but PyTorch here is 2.13.0+cpu" in \
        checks["version_alignment"].message
    assert "Fix: " in text and "failed" in text
    not_loaded = {c.id: c for c in _diagnose(tmp_path, root, {}, {"attrs": None})}
    # the detail in brackets lists cann_install's own problem texts (another area's module), so only the frame here
    assert no_cjk(not_loaded["cann_env"].message.split(" (")[0]) == \
        "CANN was found, but this process has not loaded its environment"
    assert not_loaded["cann_env"].fix == f"Run this in the same shell that starts Python/Jupyter: source {root}/cann/set_env.sh"
    assert "GEInitialize failed" in no_cjk(not_loaded["cann_python_deps"].message + not_loaded["cann_python_deps"].fix)


@pytest.mark.parametrize("value, status, phrase", [
    ("abc", "fail", "item 1 'abc' is not an integer"), ("6,4", "fail", "logical ID 4 comes after 6"),
    ("", "warn", "is set to an empty string"), ("1, 2,3", "fail", "reads only the logical IDs before the first error: 1"),
])
def test_visible_devices_in_english(en, tmp_path, value, status, phrase):
    check = {c.id: c for c in _diagnose(tmp_path, environ={"ASCEND_RT_VISIBLE_DEVICES": value})}["visible_devices"]
    assert check.status == status and phrase in no_cjk(check.message + " " + check.fix)
    with pytest.raises(ValueError, match="npu:2 does not exist"):
        visible_devices.index_to_device_id("4,5", 2)


def test_doctor_stack_prints_the_english_twins_of_stacks_yaml(en, capsys):
    code = main(["doctor", "--stack", "vllm-ascend"])
    out = no_cjk(capsys.readouterr().out)
    assert code == 1  # this venv is not vLLM-Ascend's
    for phrase in ("Stack vllm-ascend: vLLM-Ascend 0.23.0 (the inference service of chapter 06, lesson 5)",
                   "Installed → required", "not installed (vllm-ascend requires ==0.23.0)",
                   "Environment: vLLM-Ascend's container image", "Outside PyPI: CANN 9.1.0: ",
                   "CANN loaded by this process: "):
        assert phrase in out, phrase
    assert main(["doctor", "--stack", "course", "--json"]) == 1
    document = json.loads(no_cjk(capsys.readouterr().out))
    assert document["outside_pypi"][0]["where"].startswith("the Ascend community download page https://")
    assert not any(key.endswith("_en") for entry in document["outside_pypi"] for key in entry)


def test_stack_tables_and_alignment_in_english(en):
    for name in stack_check.stacks():
        no_cjk(stack_check.stack_data.table(name).text())
    result = check_alignment(torch="2.12.0", torch_npu="2.12.0", cann="8.0.0", python="3.11.7")
    assert result.status == "warn" and "Not an official pair" in no_cjk(result.message + result.fix)
    unlisted = check_alignment(torch="2.12.0", torch_npu="2.12.0rc1", cann=None, python="3.11.7")
    assert "not in the official compatibility table (the README of branch v2.12.0-26.1.0" in no_cjk(unlisted.message)


def test_doctor_usage_errors_in_english(en, capsys):
    assert main(["doctor", "--ascend-root", "/definitely/not/here"]) == 2
    assert no_cjk(_usage_error(capsys.readouterr().err)) == \
        "the directory given to --ascend-root does not exist: /definitely/not/here"
    assert main(["doctor", "--stack", "nosuch"]) == 2
    assert "There is no stack named 'nosuch'" in no_cjk(_usage_error(capsys.readouterr().err))


def test_doctor_chinese_is_unchanged(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("NPULAB_LANG", "zh")
    checks = _diagnose(tmp_path, environ={"ASCEND_RT_VISIBLE_DEVICES": "abc"})
    text = doctor.render(checks)
    assert text.startswith("昇腾 NPU 课程环境检查\n")
    assert "通过 4 项，警告 0 项，失败 1 项，跳过 10 项。" in text
    assert "程序已经报错？把日志交给 `python -m npulab explain 日志文件`" in text
    assert "ASCEND_RT_VISIBLE_DEVICES='abc' 有问题：第 1 项 'abc' 不是整数" in text
    assert main(["doctor", "--stack", "course"]) == 1
    out = capsys.readouterr().out
    assert out.startswith("软件栈 course：课程默认环境（requirements.txt + requirements-npu.txt）\n")
    assert "环境：课程的 venv（make venv；" in out and "本进程加载的 CANN：" in out


# ------------------------------------------------------------------------------------------------------- chips


def _untranslated_titles() -> list[str]:
    """Titles of cited sources that have no English twin yet (reported_figures.yaml is another area's file)."""
    sources = {**load_yaml(DATA_DIR / "reported_figures.yaml")["sources"], **load_yaml(DATA_DIR / "chips.yaml")["sources"]}
    return [s["title"] for s in sources.values() if CJK.search(s["title"]) and "title_en" not in s]


def test_chips_table_in_english(en, capsys):
    assert main(["chips"]) == 0
    out = capsys.readouterr().out
    untranslated = _untranslated_titles()
    for line in out.splitlines():
        if CJK.search(line):  # only a citation of a source kept outside the chip table may still be Chinese
            assert any(title in line for title in untranslated), line
    assert out.startswith("Ascend chips compared (figures from npulab/data/chips.yaml; — means not published)")
    assert "294.9 (derived)" in out and "256.0 (nominal)" in out and "— (early platform file, not derived)" in out
    assert "mainly inference (the same architecture as the 910B1–B3" in out
    assert "not released" in out and "Cube clock MHz" in out


@pytest.mark.parametrize("name", ["910B4", "310P3", "Ascend910B4"])
def test_one_chip_in_english(en, capsys, name):
    assert main(["chips", name]) == 0
    out = no_cjk(capsys.readouterr().out)
    assert "Value" in out and "Source / formula" in out and "reported" in out
    if name.endswith("910B4"):
        assert out.startswith("910B4 (Ascend910B4): Atlas A2 (Ascend 910B); mainly inference")
        assert "245.76 TFLOPS" in out and "derived" in out and "20 " in out and "1,500 MHz" in out
        assert "(cube_cores = 20, edge = 16, mhz = 1500 MHz)" in out
        assert "32 B/cycle (unit unconfirmed)" in out and "not published" in out
    assert main(["chips", name, "--json"]) == 0
    document = json.loads(no_cjk(capsys.readouterr().out))
    assert document["figures"]["cube_cores"]["unit"] == "" and document["figures"]["cube_cores"]["kind"] == "reported"


def test_chip_errors_and_probe_in_english(en, capsys):
    assert main(["chips", "nosuch"]) == 2
    assert "The chip table has no 'nosuch'" in no_cjk(_usage_error(capsys.readouterr().err))
    assert no_cjk(chip_probe.identify(smi_name="910B3").describe()) == \
        "This machine's chip: 910B3 (npu-smi info -t board) → 910B3 in the chip table, Atlas A2 (Ascend 910B), " \
        "training and inference."
    assert "Computed for the chip you chose, A3" in no_cjk(chip_probe.lesson_chip("A3", {}).describe())
    status, message, _ = chip_probe.chip_check({"NPULAB_CHIP": "910B4"}, has_npu=False)
    assert status == "skip" and "Note: NPULAB_CHIP=910B4" in no_cjk(message)
    with pytest.raises(chip_table.NotApplicable, match="plans training"):
        chip_table.get_chip("310P3").check_training("llm-plan")


def test_chips_chinese_is_unchanged(monkeypatch, capsys):
    monkeypatch.setenv("NPULAB_LANG", "zh")
    assert main(["chips", "910B4"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("910B4（Ascend910B4）：Atlas A2（Ascend 910B）；推理为主（与 910B1–B3 同一架构，训练软件栈同样可用）；1 个 die\n")
    assert "20 个" in out and "245.76 TFLOPS" in out and "由平台配置文件 Ascend910B4.ini 推导" in out
    assert "（cube_cores = 20 个，edge = 16，mhz = 1500 MHz）" in out
    assert main(["chips"]) == 0
    assert capsys.readouterr().out.startswith("昇腾芯片对照（数字来自 npulab/data/chips.yaml；— 表示未公开）")
    assert chip_probe.identify().describe().startswith("没有读到昇腾设备（没有 torch_npu 或没有可见的 NPU）")


# ------------------------------------------------------------------------------------------------------- versions


def test_versions_cli_in_english(en, capsys):
    assert main(["versions", "--cann", "9.1.0", "--driver", "25.5.0", "--chip", "310P3"]) == 0
    out = no_cjk(capsys.readouterr().out)
    for phrase in ("Chip 310P3 (Ascend310P3)", "BF16: not supported", "CANN 9.1.0 and the driver (HDK)",
                   "HDK released with CANN 9.1.0: 26.0.RC1", "Driver 25.5.0: marked compatible (Y)",
                   "torch_npu 2.12.0 + PyTorch 2.12.0 (active), Python 3.10, 3.11", "retrieved 2026-11-29",
                   "$ pip install mindspore==2.10.0"):
        assert phrase in out, phrase
    assert main(["versions", "--cann", "garbage"]) == 2
    assert "unrecognised CANN version 'garbage'" in no_cjk(_usage_error(capsys.readouterr().err))
    monkeypatch = en
    monkeypatch.setenv("NPULAB_LANG", "zh")
    assert main(["versions"]) == 0
    assert capsys.readouterr().out.startswith("✓ 课程推荐的组合（没有给出 CANN 版本时）\n    CANN 9.1.0 + PyTorch 2.12.0")


def test_freshness_errors_in_english(en, capsys, monkeypatch):
    # --index-url is handed on through NPULAB_PYPI_URL in this process: set here, so that it is undone afterwards
    monkeypatch.setenv("NPULAB_PYPI_URL", "https://pypi.org")
    assert main(["freshness", "--index-url", "ftp://x"]) == 2
    assert no_cjk(capsys.readouterr().err).startswith("Error: --index-url must start with http:// or https://")
    assert main(["freshness", "--package", "left-pad"]) == 2
    assert "the course neither pins nor names these packages: left-pad" in no_cjk(capsys.readouterr().err)
    assert main(["freshness", "--index-url", "http://127.0.0.1:9"]) == 2  # nothing listens on the discard port
    err = no_cjk(capsys.readouterr().err)
    assert "PyPI cannot be queried (cannot reach http://127.0.0.1:9/pypi/" in err


def test_cann_stack_diagram_and_mindspore_verdict_in_english(en):
    import matplotlib

    matplotlib.use("Agg")
    from npulab.env import cann_stack, mindspore_cann

    ax = cann_stack.draw(highlight=["ge"])
    texts = [no_cjk(x.get_text()) for x in ax.texts] + [no_cjk(ax.get_title())]
    assert "GE graph engine (Graph Engine)" in texts and "Counterpart in the CUDA ecosystem" in texts
    assert texts[-1] == "The CANN software stack: 7 software layers + hardware (bottom up)"
    assert cann_stack.layer("hccl").cuda == "NCCL" and no_cjk(cann_stack.layer("ge").package).startswith("CANN Toolkit")
    check = mindspore_cann.from_data("2.10.0")
    assert no_cjk(mindspore_cann.verdict(check, "9.1.0")).startswith("CANN 9.1.0: accepted by MindSpore 2.10.0")
    assert "8.2, 8.3, 8.5, 9.0, 9.1" in no_cjk(mindspore_cann.verdict(check, "7.0.0"))
