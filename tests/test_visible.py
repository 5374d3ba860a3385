"""Tests of npulab.env.visible_devices: parsing, validating and mapping ASCEND_RT_VISIBLE_DEVICES."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from npulab.env.visible_devices import ENV_NAME, from_environ, logical_to_physical, parse_visible


def test_unset_means_all_devices_identity_mapping():
    vis = parse_visible(None, n_physical=8)
    assert vis.ok and vis.physical is None and vis.count == 8
    assert vis.mapping() == {i: i for i in range(8)} and vis.to_physical(3) == 3
    assert "未设置" in vis.describe()
    with pytest.raises(ValueError, match="不存在"):
        vis.to_physical(8)
    assert parse_visible(None).count is None and parse_visible(None).to_physical(5) == 5


def test_list_and_mapping():
    vis = parse_visible("4,5,6,7", n_physical=8)
    assert vis.ok and vis.physical == [4, 5, 6, 7] and vis.count == 4
    assert vis.mapping() == {0: 4, 1: 5, 2: 6, 3: 7}
    assert "npu:0 → 物理 NPU 4" in vis.describe()
    with pytest.raises(ValueError, match="只让进程看到 4 个"):
        vis.to_physical(4)


def test_seed_example_npu0_is_physical_7():
    assert logical_to_physical("7", 0) == 7
    assert logical_to_physical(" 7 ", 0, n_physical=8) == 7


def test_spaces_and_order_are_kept():
    assert parse_visible(" 3 , 1,2 ").physical == [3, 1, 2]


def test_empty_string_is_a_warning_and_no_device():
    vis = parse_visible("")
    assert vis.ok and vis.physical == [] and vis.count == 0 and vis.warnings
    assert parse_visible("   ").warnings
    with pytest.raises(ValueError):
        vis.to_physical(0)


@pytest.mark.parametrize("value, expect", [
    ("abc", "不是整数"), ("1,abc", "不是整数"), ("1.5", "不是整数"), ("0x1", "不是整数"), ("７", "不是整数"),
    ("-1", "负数"), ("- 2", "负数"), ("1,1", "重复"), ("4,,5", "为空"), ("4,", "为空"), ("+1", "不是整数"),
])
def test_invalid_values(value, expect):
    vis = parse_visible(value)
    assert not vis.ok and any(expect in e for e in vis.errors), vis.errors
    assert vis.physical == [] and "无效" in vis.describe()
    with pytest.raises(ValueError, match="无法换算"):
        vis.to_physical(0)


def test_out_of_range_only_when_count_known():
    assert parse_visible("8", n_physical=8).errors[0].startswith("物理 NPU 8 超出范围")
    assert parse_visible("8").ok


def test_negative_logical_id():
    with pytest.raises(ValueError, match="负数"):
        parse_visible("1").to_physical(-1)


def test_from_environ():
    assert from_environ({ENV_NAME: "2,3"}).physical == [2, 3]
    assert from_environ({}).physical is None


@given(st.lists(st.integers(0, 15), min_size=1, max_size=16, unique=True), st.data())
def test_roundtrip_mapping(ids, data):
    value = ",".join(map(str, ids))
    vis = parse_visible(value, n_physical=16)
    assert vis.ok and vis.physical == ids
    logical = data.draw(st.integers(0, len(ids) - 1))
    assert vis.to_physical(logical) == ids[logical]


@given(st.text(max_size=12))
def test_never_raises_on_any_text(value):
    vis = parse_visible(value, n_physical=8)
    assert isinstance(vis.describe(), str)
    assert vis.ok or vis.errors
