"""The chip table: every figure sourced or marked unpublished, derived figures recompute, names resolve, the CLI, and
every tool that takes a chip accepts every entry or says (in Chinese) why it does not apply."""

import json
import re

import pytest

from npulab.__main__ import main
from npulab.core.paths import DATA_DIR, load_yaml
from npulab.core.provenance import Figure, Kind, figure_entries, measured
from npulab.hw import chips as ct
from npulab.hw import cube, davinci, roofline
from npulab.kernels import triton_launch
from npulab.kernels.ascendc import platform, timeline
from npulab.llm import kv_cache

ALL = list(ct.chips())


def test_the_table_has_every_part_the_course_promises():
    assert ALL == ["910B1", "910B2", "910B3", "910B4", "A3", "310P3", "310B", "950", "910A"]
    assert ct.get_chip().key == ct.DEFAULT == "910B3"


@pytest.mark.parametrize("key", ALL)
def test_every_figure_is_sourced_or_marked_unpublished(key):
    data = load_yaml(DATA_DIR / "chips.yaml")
    sources, raw = data["sources"], data["chips"][key]
    assert raw["source"] in sources
    figures = figure_entries()
    for name in ct.fields():
        if name == "fp16_tflops_vendor" and name not in raw["figures"]:
            continue  # only for parts without a platform file
        entry = raw["figures"][name]  # every field is present: a value or an explicit "not published"
        if isinstance(entry, dict) and entry.get("published") is False:
            assert entry["note"], f"{key}.{name}: 未公开的数字要说明原因"
            assert ct.get_chip(key).figure(name) is None
        elif isinstance(entry, dict) and "ref" in entry:
            assert entry["ref"] in figures  # kept once, in reported_figures.yaml
        else:
            src = entry.get("source", raw["source"]) if isinstance(entry, dict) else raw["source"]
            assert src in sources and sources[src]["url"]
            fig = ct.get_chip(key).figure(name)
            assert fig.kind is Kind.REPORTED and sources[src]["title"] in fig.origin


def _figure_source_keys(raw: dict, chip_source: str) -> list[str]:
    """The source key behind each published figure of one chip (a ref resolves to its reported figure's source)."""
    figures = figure_entries()
    keys = []
    for entry in raw.values():
        if isinstance(entry, dict) and entry.get("published") is False:
            continue
        if isinstance(entry, dict) and "ref" in entry:
            keys.append(figures[entry["ref"]]["source"])
        else:
            keys.append(entry.get("source", chip_source) if isinstance(entry, dict) else chip_source)
    return keys


@pytest.mark.parametrize("key", ALL)
def test_every_figure_names_a_precise_public_document(key):
    """Each figure's source is a document a learner can open: a URL, a release or version, a title that says what.

    A platform-file figure names the CANN release and the very <SoC>.ini file (no bare "平台配置" or repository root).
    """
    chip = ct.get_chip(key)
    sources = {**load_yaml(DATA_DIR / "reported_figures.yaml")["sources"], **load_yaml(DATA_DIR / "chips.yaml")["sources"]}
    for src_key in _figure_source_keys(chip.raw, chip.source) + [chip.bf16_source, *[
            figure_entries()[fid]["source"] for fid in chip.announced]]:
        src = sources[src_key]
        assert re.match(r"https?://\S+", src["url"]), (key, src_key, src["url"])
        assert re.search(r"\d", src["versions"]), (key, src_key, "版本或日期要写明")
        assert len(src["title"]) > 12, (key, src_key, "标题要说明是什么文件")
        if "平台配置文件" in src["title"] and src_key != "ini_910b3_later":
            assert re.search(r"CANN \d+\.\d+", src["versions"]), (key, src_key)
            assert src["url"].split()[0].endswith(f"/{chip.soc_version}.ini"), (key, src["url"])


def test_the_950_row_shows_announced_figures_not_a_peak_from_a_pre_release_file():
    chip = ct.get_chip("950")
    assert chip.preliminary and chip.fp16_peak() is None and "Atlas 350" in chip.products
    announced = {f.label: f for f in chip.announced_figures()}
    assert all(f.kind is Kind.REPORTED and "主题演讲" in f.origin for f in announced.values())  # the keynote itself
    assert [f.value for f in announced.values()][:4] == [1, 2, 128, 1.6]
    table = ct.comparison_table().text()
    assert "早期平台文件，不推导" in table and "432.5" not in table


def test_bf16_rests_on_a_document_that_discriminates():
    """ATC's --precision_mode lists BF16 modes from Atlas A2 on; torch_npu's rule is SoC >= Ascend910B1 (310B is after)."""
    for key in ALL:
        chip = ct.get_chip(key)
        assert chip.bf16_source in load_yaml(DATA_DIR / "chips.yaml")["sources"], key
    assert not ct.get_chip("310P3").bf16 and not ct.get_chip("910A").bf16
    assert ct.get_chip("310B").bf16 and ct.get_chip("310B").bf16_source == "torch_npu_bf16_rule"


def test_the_comparison_table_names_each_rows_documents():
    notes = "\n".join(ct.comparison_table().notes)
    assert "910A：" in notes and "hxnews.com" in notes  # the 910A row links its launch report
    assert re.search(r"910B3[^\n]*CANN 8\.1\.RC1[^\n]*Ascend910B3\.ini", notes)  # the release of the 910B3 file


def test_legacy_ids_are_the_910b3_entries_not_copies():
    figures = figure_entries()
    assert figures["ini.910b3.cube_cores"] is figures["chip.910B3.cube_cores"]
    assert figures["ini.910b3.hbm_gib"]["value"] == 64 and figures["ini.910b3.ub_bytes"]["value"] == 196608
    text = (DATA_DIR / "reported_figures.yaml").read_text(encoding="utf-8")
    assert "ini.910b3." not in text  # no number twice


@pytest.mark.parametrize("key", ALL)
def test_derived_figures_recompute_from_their_inputs(key):
    chip = ct.get_chip(key)
    for fig in chip.derived_figures():
        assert fig.kind is Kind.DERIVED and "=" in fig.origin
    peak = chip.fp16_peak()
    if chip.preliminary:  # a pre-release platform file: no peak is derived from it
        assert peak is None and chip.int8_peak() is None
        return
    if chip.figure("cube_freq_mhz") is not None:
        v = {n: chip.figure(n).value for n in ("cube_cores", "cube_mkn", "cube_freq_mhz", "int8_k0")}
        assert peak.value == pytest.approx(v["cube_cores"] * v["cube_mkn"] ** 3 * 2 * v["cube_freq_mhz"] * 1e6 / 1e12)
        assert chip.int8_peak().value == pytest.approx(peak.value * v["int8_k0"] / v["cube_mkn"])
    if chip.dies > 1:
        assert chip.per_card(peak).value == pytest.approx(chip.dies * peak.value)


def test_known_values_from_the_platform_files():
    assert ct.get_chip("910B3").fp16_peak().value == pytest.approx(294.912)
    assert ct.get_chip("Ascend910B4").figure("cube_freq_mhz").value == 1500
    assert ct.get_chip("910B4").fp16_peak().value == pytest.approx(245.76)  # also a public unit test's expectation
    assert ct.get_chip("910B4").figure("memory_gib").value == 32
    assert ct.get_chip("910B4").figure("l2_bytes").value == 96 * 2**20
    assert ct.get_chip("910B2").figure("cube_cores").value == 24
    a3 = ct.get_chip("Ascend910_9392")  # the family resolves to the A3 entry
    assert a3.key == "A3" and a3.dies == 2 and a3.per_card(a3.figure("memory_gib")).value == 128
    assert not ct.get_chip("310P3").bf16 and not ct.get_chip("310P3").training
    assert ct.get_chip("910A").fp16_peak().kind is Kind.REPORTED  # no platform file: the vendor's figure


def test_names_resolve_and_unknown_names_are_refused_in_chinese():
    for name in ("910B3", "Ascend910B3", "ascend 910b3", "ASCEND910B3"):
        assert ct.get_chip(name).key == "910B3"
    assert ct.get_chip("Ascend310B4").key == "310B" and ct.get_chip("310B").key == "310B"
    with pytest.raises(ct.UnknownChip, match="可选：910B1"):
        ct.get_chip("H100")


def test_cli_lists_describes_and_refuses(capsys):
    assert main(["chips"]) == 0
    out = capsys.readouterr().out
    assert "Ascend910B4" in out and "245.8（推导）" in out and "256.0（标称）" in out
    assert main(["chips", "910B4", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["soc_version"] == "Ascend910B4" and data["figures"]["memory_gib"]["value"] == 32
    assert data["figures"]["memory_bandwidth_gb_s"]["published"] is False
    assert main(["chips", "A3"]) == 0
    assert "整卡" in capsys.readouterr().out
    assert main(["chips", "H100"]) == 2
    err = capsys.readouterr().err
    assert "芯片表里没有" in err and "Traceback" not in err


def _measured_bw() -> Figure:
    return measured("设备内拷贝带宽", 100.0, "GB/s", "测试设备")


@pytest.mark.parametrize("key", ALL)
def test_every_tool_accepts_every_chip_or_says_why_not(key):
    chip = ct.get_chip(key)
    tools = {
        "cube": lambda: cube.spec_for(chip),
        "ascendc": lambda: platform.for_chip(chip),
        "timeline": lambda: timeline.CostModel.from_platform_file(chip),
        "davinci": lambda: davinci.buffer_sizes(chip),
        "roofline": lambda: roofline.machine_for(chip, bandwidth=_measured_bw()),
        "triton": lambda: triton_launch.target_for(chip),
        "llm-plan": lambda: kv_cache.card_hbm(chip.key),
        "training": lambda: chip.check_training("训练吞吐规划"),
    }
    for name, call in tools.items():
        try:
            call()
        except (ct.NotApplicable, kv_cache.ConfigError) as err:
            message = str(err)
            assert chip.key in message and len(message) > 20, (name, message)  # a reason, in Chinese
            assert any("\u4e00" <= ch <= "\u9fff" for ch in message)


def test_what_applies_where():
    assert triton_launch.target_for("910B4").cube_cores == 20
    with pytest.raises(ct.NotApplicable, match="Atlas A2/A3"):
        triton_launch.target_for("310B")
    with pytest.raises(ct.NotApplicable, match="训练规划不适用"):
        ct.get_chip("310B").check_training("训练吞吐规划")
    with pytest.raises(ct.NotApplicable, match="BF16"):
        cube.spec_for("310P3", "bfloat16")
    assert platform.for_chip("950").ub_bytes == 253952
    assert cube.spec_for("310P3").l0c_bytes == 262144
    with pytest.raises(ct.NotApplicable, match="带宽"):
        roofline.machine_for("910B4")  # no published bandwidth: bring a measured one
    assert roofline.machine_for("910B3").bandwidth.value == 1538


def test_triton_launch_cli_takes_a_chip(capsys):
    assert main(["triton-launch", "add", "4096", "--programs", "20", "--chip", "910B4", "--json"]) in (0, 1)
    assert json.loads(capsys.readouterr().out)["target"] == "Ascend910B4"
    assert main(["triton-launch", "add", "4096", "--chip", "310P3"]) == 2
    assert "Atlas A2/A3" in capsys.readouterr().err


@pytest.mark.parametrize("card", ["910B2", "910B4", "A3", "310P3"])
def test_llm_plan_accepts_the_new_cards(card, capsys):
    code = main(["llm-plan", "Llama-3.1-8B", "--card", card, "--json"])
    assert code in (0, 1)
    data = json.loads(capsys.readouterr().out)
    assert data["card"] == card


def test_first_applicable_says_why_and_falls_back_to_the_default():
    said = []
    machine, used = ct.first_applicable(roofline.machine_for, "910B4", say=said.append)
    assert used.key == "910B3" and machine.name == "Ascend 910B3"
    assert "910B4" in said[0] and "片外内存带宽" in said[0] and "改按 910B3" in said[0]
    spec, used = ct.first_applicable(cube.spec_for, "A3", say=said.append)
    assert used.key == "A3" and len(said) == 1  # no fallback needed, nothing said
    with pytest.raises(ct.NotApplicable):  # nothing to fall back to: the error is not hidden
        ct.first_applicable(triton_launch.target_for, "310B", fallback="310B", say=said.append)


def test_a_measured_bandwidth_gives_any_chip_its_roofline():
    bw = measured("设备内拷贝带宽（读 + 写）", 1234.5, "GB/s", "npu:0")
    m = roofline.machine_for("910B4", bandwidth=bw)
    assert m.peak.value == ct.get_chip("910B4").fp16_peak().value and "本机实测" in m.note and "峰值为推导值" in m.note
    assert "峰值为厂商标称值" in roofline.machine_for("910A", bandwidth=bw).note
    assert [g.name for g in roofline.machines()[1:]] == [g.name for g in roofline.reference_gpus()]
