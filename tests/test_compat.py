"""Tests of npulab.env.compatibility: version ordering, version-string kinds, the YAML tables and alignment checks."""

from __future__ import annotations

import random
import re

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from npulab.core.display import records
from npulab.env import compatibility
from npulab.env.compatibility import check_alignment, classify_version_string, parse_version

CANN_ORDER = ["6.3.RC3", "6.3.RC3.1", "7.0.RC1", "7.0.0", "8.0.RC2.alpha001", "8.0.RC2", "8.0.RC3.beta1", "8.0.RC3",
              "8.0.0", "8.0.1", "8.1.RC1", "8.2.RC1", "8.3.RC1", "8.5.0.alpha001", "8.5.0", "8.5.2", "9.0.0", "9.1.0"]


# ----------------------------------------------------------------------------------------------- ordering


def test_cann_order_from_the_brief():
    chain = ["8.0.RC3", "8.0.0", "8.0.1", "8.1.RC1", "8.5.0", "9.0.0"]
    assert all(parse_version(a) < parse_version(b) for a, b in zip(chain, chain[1:], strict=False))


def test_cann_order_survives_shuffling():
    shuffled = CANN_ORDER[:]
    random.Random(7).shuffle(shuffled)
    assert sorted(shuffled, key=parse_version) == CANN_ORDER


@pytest.mark.parametrize("smaller, larger", [
    ("2.1.0.post8", "2.1.0.post13"),
    ("2.1.0", "2.1.0.post1"),
    ("2.1.0.rc1", "2.1.0"),
    ("2.12.0rc1", "2.12.0"),
    ("2.11.0", "2.12.0rc1"),
    ("2.10.0rc2", "2.10.0.post4"),
    ("2.9.0", "2.10.0"),
    ("2.14.0.dev20260719+cpu", "2.14.0"),
    ("24.1.RC3", "24.1.0"),
    ("24.1.0", "24.1.0.3"),
    ("9.2.0-beta.2", "9.2.0"),
])
def test_pairs(smaller, larger):
    assert parse_version(smaller) < parse_version(larger)
    assert not parse_version(larger) < parse_version(smaller)


def test_equalities_and_local_label():
    assert parse_version("2.13.0+cpu") == parse_version("2.13.0")
    assert parse_version("2.13.0+cpu").local == "cpu"
    assert parse_version("2.13.0+cpu").public == "2.13.0"
    assert parse_version("8.0") == parse_version("8.0.0")
    assert parse_version("24.1.rc3") == parse_version("24.1.RC3")  # driver version.info writes lower case
    assert parse_version("v2.1.0") == "2.1.0"
    assert parse_version("8.0.RC3").is_prerelease and not parse_version("2.1.0.post13").is_prerelease


@pytest.mark.parametrize("bad", ["", "   ", "abc", "8.0.X", "1..2", ".1", "1.0+", "8.0.0-", "V100R001C19SPC005B220",
                                 "1.0\x00", "２.１", "1.0 beta"])
def test_garbage_raises_value_error_in_chinese(bad):
    with pytest.raises(ValueError, match="版本号"):
        parse_version(bad)
    assert compatibility.try_parse(bad) is None


_pep440 = st.builds(
    lambda rel, pre, post, dev: ".".join(map(str, rel)) + pre + post + dev,
    st.lists(st.integers(0, 12), min_size=1, max_size=4),
    st.one_of(st.just(""), st.builds(lambda k, n: f"{k}{n}", st.sampled_from(["a", "b", "rc"]), st.integers(0, 5))),
    st.one_of(st.just(""), st.builds(lambda n: f".post{n}", st.integers(0, 5))),
    st.one_of(st.just(""), st.builds(lambda n: f".dev{n}", st.integers(0, 5))),
)


@given(_pep440, _pep440)
def test_pep440_order_matches_packaging(a, b):
    packaging_version = pytest.importorskip("packaging.version")
    pa, pb = packaging_version.Version(a), packaging_version.Version(b)
    va, vb = parse_version(a), parse_version(b)
    assert (va < vb) == (pa < pb)
    assert (va == vb) == (pa == pb)


_cann = st.builds(
    lambda major, minor, third, tail: f"{major}.{minor}.{third}{tail}",
    st.integers(5, 9), st.integers(0, 5),
    st.one_of(st.integers(0, 3).map(str), st.integers(1, 3).map(lambda n: f"RC{n}")),
    st.sampled_from(["", ".alpha001", ".beta1", ".1"]),
)


@given(_cann, _cann, _cann)
def test_cann_order_is_a_total_order(a, b, c):
    va, vb, vc = parse_version(a), parse_version(b), parse_version(c)
    assert (va < vb) + (vb < va) + (va == vb) == 1
    if va < vb and vb < vc:
        assert va < vc
    assert hash(va) == hash(parse_version(a))


@given(st.integers(5, 9), st.integers(0, 5), st.integers(1, 5), st.integers(0, 5))
def test_rc_precedes_every_patch_of_the_same_minor(major, minor, rc, patch):
    assert parse_version(f"{major}.{minor}.RC{rc}") < parse_version(f"{major}.{minor}.{patch}")
    assert parse_version(f"{major}.{minor}.{patch}") < parse_version(f"{major}.{minor + 1}.RC{rc}")


@given(st.text(max_size=20))
def test_parse_never_raises_anything_but_value_error(text):
    try:
        parse_version(text)
    except ValueError:
        pass


# ----------------------------------------------------------------------------------------------- kinds


@pytest.mark.parametrize("text, kind", [
    ("8.0.1", "cann"), ("8.0.RC3", "cann"), ("9.1.0", "cann"), ("8.0.RC3.beta1", "cann"),
    ("7.6.0.2.220", "internal"), ("7.5.0.5.220", "internal"), ("7.6.T13.0.B094", "internal"),
    ("V100R001C19SPC005B220", "product_internal"), ("V100R001C20SPC002B220", "product_internal"),
    ("24.1.0.3", "hdk"), ("25.5.0", "hdk"), ("24.1.rc3", "hdk"),
    ("hello", "unknown"), ("", "unknown"),
])
def test_classify(text, kind):
    result = classify_version_string(text)
    assert result.kind == kind
    assert re.search(r"[\u4e00-\u9fff]", result.explanation)


def test_classify_explains_the_bracket_pair():
    assert "冒号右边" in classify_version_string("7.6.0.1.220").explanation
    assert "社区版" in classify_version_string("8.0.RC3.beta1").explanation


# ----------------------------------------------------------------------------------------------- data file


def test_every_table_has_source_retrieved_and_rows():
    data = yaml.safe_load(compatibility.DATA_PATH.read_text(encoding="utf-8"))
    for name, tab in data["tables"].items():
        assert tab.get("source"), name
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", str(tab.get("retrieved"))), name
        assert tab["rows"], name
        assert compatibility.source_of(name)


def test_versions_in_the_table_are_strings_that_parse():
    for row in compatibility.table("torch_npu"):
        for key in ("torch_npu", "pytorch", "cann"):
            assert isinstance(row[key], str)
            parse_version(row[key])
        # a torch_npu package is built for the PyTorch with the same first three numbers (except one upstream typo)
        if not row.get("uncertain"):
            assert parse_version(row["torch_npu"]).release_n() == parse_version(row["pytorch"]).release_n(), row


def test_known_rows_and_recommended():
    rows = {r["torch_npu"]: r for r in compatibility.table("torch_npu")}
    assert rows["2.1.0.post13"]["cann"] == "8.2.RC1"
    assert rows["2.1.0.post10"]["cann"] == "8.0.0"
    assert rows["2.12.0"]["cann"] == "9.1.0"
    assert compatibility.table("recommended")[0] == {"torch_npu": "2.12.0", "pytorch": "2.12.0", "cann": "9.1.0",
                                              "python": ["3.10", "3.11", "3.12", "3.13", "3.14"]}
    lines = {r["release_line"]: r["cann"] for r in compatibility.table("release_lines")}
    assert lines["26.1.0"] == "9.1.0" and lines["6.0.rc3"] == "8.0.RC3"
    assert len(compatibility.torch_npu_rows()) == len(rows)


def test_reported_seed_environment_carries_the_correction():
    (seed,) = compatibility.table("reported")
    assert (seed["cann"], seed["torch_npu"], seed["python"]) == ("8.0.1", "2.1.0.post13", "3.10.12")
    assert seed["provenance"] == "reported" and "8.2.RC1" in seed["correction"]


def test_uncertain_rows_have_a_note():
    for name in compatibility.table_names():
        for row in compatibility.table(name):
            if row.get("uncertain"):
                assert row.get("note") or name == "mindspore_third_party", (name, row)


def test_table_copies_are_independent_and_unknown_table_errors():
    compatibility.table("torch_npu")[0]["cann"] = "changed"
    assert compatibility.table("torch_npu")[0]["cann"] == "9.2.0"  # TorchNPU 26.2.0 heads the table
    with pytest.raises(KeyError):
        compatibility.table("nope")
    assert "rows" not in compatibility.table_info("hdk_matrix")
    assert "| torch_npu |" in records(compatibility.table("torch_npu")[:2], ["torch_npu", "cann"]).markdown()


# ----------------------------------------------------------------------------------------------- look-ups


def test_torch_npu_for_sorts_newest_cann_first():
    names = [r["torch_npu"] for r in compatibility.torch_npu_for("2.1.0+cpu")]
    assert names[:4] == ["2.1.0.post17", "2.1.0.post13", "2.1.0.post12", "2.1.0.post10"]
    assert set(names) >= {"2.1.0.post8", "2.1.0", "2.1.0.rc1"}
    assert [r["torch_npu"] for r in compatibility.torch_npu_for("2.12.0")] == ["2.12.0.post3", "2.12.0"]  # 9.2.0 first
    assert [r["cann"] for r in compatibility.torch_npu_for("2.13.0")] == ["9.2.0"]  # TorchNPU 26.2.0
    assert compatibility.torch_npu_for("2.15.0") == []


def test_python_for_torch():
    assert compatibility.python_for_torch("2.13.0+cpu") == ["3.10", "3.11", "3.12", "3.13", "3.14"]
    assert "3.12" not in compatibility.python_for_torch("2.6.0")
    assert compatibility.python_for_torch("0.4.0") is None


def test_cann_for_mindspore():
    assert [r["cann"] for r in compatibility.cann_for_mindspore("2.4.10")] == ["8.0.0.beta1", "8.0.0"]
    conflict = compatibility.cann_for_mindspore("2.6.0")
    assert {r["cann"] for r in conflict} == {"8.1.RC1.beta1", "8.2.RC1"} and all(r["uncertain"] for r in conflict)
    wheel, image = compatibility.cann_for_mindspore("2.10.0")  # the wheel's own check; MindSpore Transformers' image
    assert (wheel["table"], wheel["cann"], image["table"], image["cann"]) == (
        "mindspore_cann_check", "9.1.0", "mindformers_releases", "9.1.0")
    assert not wheel["uncertain"] and compatibility.cann_for_mindspore("2.8.0") == []  # 2.8.x: none in the sources
    series = compatibility.cann_for_mindspore("2.7.3")
    assert series and all(r["match"] == "series" for r in series)


def test_hdk_lookups():
    assert compatibility.hdk_for_cann("8.0.0") == ["24.1.0"]
    assert compatibility.hdk_for_cann("8.0.RC3.beta1") == ["24.1.RC3"]
    assert compatibility.hdk_compatible("9.1.0", "25.0.1") is False
    assert compatibility.hdk_compatible("9.1.0", "25.2.0.3") is True
    assert compatibility.hdk_compatible("9.2.0", "26.0.rc1") is True
    assert compatibility.hdk_compatible("8.0.0", "24.1.0.3") is None  # 8.0.0 is not in the matrix


# ----------------------------------------------------------------------------------------------- alignment


def test_official_triple_is_ok():
    result = check_alignment(torch="2.1.0", torch_npu="2.1.0.post13", cann="8.2.RC1", python="3.10.12")
    assert result.status == "ok" and result.rows[0]["branch"] == "v2.1.0-7.1.0"


def test_seed_triple_is_a_warning_naming_the_rows():
    result = check_alignment(torch="2.1.0", torch_npu="2.1.0.post13", cann="8.0.1", python="3.10.12")
    assert result.status == "warn"
    assert "8.2.RC1" in result.message
    assert "2.1.0.post10" in result.fix  # the row of the nearest lower CANN (8.0.0)


def test_torch_and_torch_npu_must_share_the_release():
    result = check_alignment(torch="2.13.0+cpu", torch_npu="2.1.0.post13")
    assert result.status == "fail" and "pip install torch==2.1.0" in result.fix


def test_unlisted_torch_npu_and_unknown_cann():
    assert check_alignment(torch_npu="2.10.0.post2").status == "warn"
    assert check_alignment(torch="2.13.0", cann="8.0.0").status == "warn"
    ok = check_alignment(cann="8.0.RC3.beta1")
    assert ok.status == "ok" and {r["torch_npu"] for r in ok.rows} == {"2.4.0", "2.3.1.post2", "2.1.0.post8"}


def test_python_outside_the_table_warns():
    result = check_alignment(torch="2.6.0", torch_npu="2.6.0", cann="8.2.RC1", python="3.12.1")
    assert result.status == "warn" and "3.11" in result.fix


def test_garbage_version_fails_without_raising():
    result = check_alignment(torch="abc", cann="\x00\x01")
    assert result.status == "fail" and "无法识别" in result.message


def test_nothing_to_compare_is_ok():
    assert check_alignment().status == "ok"
