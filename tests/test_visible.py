"""Tests of npulab.env.visible_devices: ASCEND_RT_VISIBLE_DEVICES as CANN documents it (envref_07_0028).

The values are logical device IDs, only ascending order is supported, and CANN reads the IDs before the first
other character (a space) or invalid ID: ``"1, 2,3"`` → 1 only, ``"1,3,8"`` on 8 devices → 1 and 3.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from npulab.env.visible_devices import ENV_NAME, from_environ, index_to_device_id, parse_visible


def test_unset_means_all_devices_identity_mapping():
    vis = parse_visible(None, n_devices=8)
    assert vis.ok and vis.ids is None and vis.count == 8
    assert vis.mapping() == {i: i for i in range(8)} and vis.device_id(3) == 3
    assert "未设置" in vis.describe()
    with pytest.raises(ValueError, match="不存在"):
        vis.device_id(8)
    assert parse_visible(None).count is None and parse_visible(None).device_id(5) == 5


def test_list_and_mapping_are_logical_ids():
    vis = parse_visible("4,5,6,7", n_devices=8)
    assert vis.ok and vis.ids == [4, 5, 6, 7] and vis.count == 4
    assert vis.mapping() == {0: 4, 1: 5, 2: 6, 3: 7}
    assert "npu:0 → 逻辑 ID 4" in vis.describe()
    assert "物理" not in vis.describe()
    with pytest.raises(ValueError, match="只让进程看到 4 个"):
        vis.device_id(4)


def test_seed_example_npu0_is_logical_7():
    assert index_to_device_id("7", 0) == 7
    assert index_to_device_id("7", 0, n_devices=8) == 7


def test_documented_example_space_stops_reading():
    vis = parse_visible("1, 2,3", n_devices=8)
    assert not vis.ok and vis.ids == [1] and vis.written == [1, 2, 3]
    assert "空白" in vis.errors[0] and "只读取" in vis.describe() and "：1" in vis.describe()
    with pytest.raises(ValueError, match="无法换算"):
        vis.device_id(0)


def test_documented_example_invalid_id_stops_reading():
    vis = parse_visible("1,3,8", n_devices=8)
    assert not vis.ok and vis.ids == [1, 3]
    assert vis.errors == ["逻辑 ID 8 无效：本机共 8 个 NPU（ID 0–7）"]
    assert parse_visible("1,3,8").ok  # the device count is unknown: 8 may exist


@pytest.mark.parametrize("value", [" 7", "7 ", " 7 ", "4, 5", "4 ,5", "4,5\t"])
def test_any_whitespace_is_an_error(value):
    vis = parse_visible(value, n_devices=8)
    assert not vis.ok and any("空白" in e for e in vis.errors), vis.errors


@pytest.mark.parametrize("value, read", [("6,4", [6]), ("3,2,1", [3]), ("0,2,1,3", [0, 2]), ("1,1", [1])])
def test_descending_or_repeated_ids_are_unsupported(value, read):
    vis = parse_visible(value, n_devices=8)
    assert not vis.ok and vis.ids == read and not vis.cut_by_doc
    assert any("升序" in e or "重复" in e for e in vis.errors)
    assert "没有文档保证" in vis.describe()


def test_empty_string_is_a_warning_and_no_device():
    vis = parse_visible("")
    assert vis.ok and vis.ids == [] and vis.count == 0 and vis.warnings
    assert parse_visible("   ").warnings
    with pytest.raises(ValueError):
        vis.device_id(0)


@pytest.mark.parametrize("value, expect", [
    ("abc", "不是整数"), ("1,abc", "不是整数"), ("1.5", "不是整数"), ("0x1", "不是整数"), ("７", "不是整数"),
    ("-1", "负数"), ("- 2", "空白"), ("4,,5", "为空"), ("4,", "为空"), ("+1", "不是整数"),
])
def test_invalid_values(value, expect):
    vis = parse_visible(value)
    assert not vis.ok and any(expect in e for e in vis.errors), vis.errors
    assert "有问题" in vis.describe()
    with pytest.raises(ValueError, match="无法换算"):
        vis.device_id(0)


def test_negative_index():
    with pytest.raises(ValueError, match="负数"):
        parse_visible("1").device_id(-1)


def test_from_environ():
    assert from_environ({ENV_NAME: "2,3"}).ids == [2, 3]
    assert from_environ({}).ids is None


@given(st.sets(st.integers(0, 15), min_size=1, max_size=16), st.data())
def test_roundtrip_ascending(ids, data):
    ids = sorted(ids)
    vis = parse_visible(",".join(map(str, ids)), n_devices=16)
    assert vis.ok and vis.ids == ids
    index = data.draw(st.integers(0, len(ids) - 1))
    assert vis.device_id(index) == ids[index]


@given(st.text(max_size=12))
def test_never_raises_and_reads_a_valid_prefix(value):
    vis = parse_visible(value, n_devices=8)
    assert isinstance(vis.describe(), str)
    assert vis.ok or vis.errors
    if vis.ids:  # whatever is read is ascending, unique and in range
        assert vis.ids == sorted(set(vis.ids)) and max(vis.ids) < 8
