"""The Ascend C pipeline model: results against numpy, the tiling calculator, the checks it enforces,
the timeline model, and agreement with the C++ operator project it mirrors."""

import json
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from npulab.core.paths import REPO_ROOT
from npulab.kernels.ascendc import (
    AlignmentError,
    CostModel,
    OutOfBoundsError,
    Platform,
    QueueError,
    ReluTiling,
    TilingError,
    TilingWarning,
    UBOverflowError,
    ascend910b3,
    plan_tiling,
    run_relu,
    schedule,
)
from npulab.kernels.ascendc import emulator as em
from npulab.kernels.ascendc import tiling as tl

PROJECT = REPO_ROOT / "chapters" / "06_advanced" / "ascendc" / "relu_custom"
DTYPES = ["float16", "float32", "int32"]


def data(n: int, dtype: str, seed: int = 0) -> np.ndarray:
    return (np.random.default_rng(seed).standard_normal(n) * 50).astype(dtype)


# --- results equal numpy ------------------------------------------------------------------------------

LENGTHS = [1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 255, 256, 257, 1000, 4095, 4096, 4097, 100_003]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", LENGTHS)
def test_default_tiling_matches_numpy(dtype, n):
    x = data(n, dtype, seed=n)
    run = run_relu(x)
    assert np.array_equal(run.y, np.maximum(x, 0))
    assert run.unwritten() == 0


@settings(max_examples=60, deadline=None)
@given(n=st.integers(0, 3000), dtype=st.sampled_from(DTYPES), cores=st.integers(1, 40),
       tile_blocks=st.integers(1, 40), buffer_num=st.integers(1, 3))
def test_any_valid_tiling_matches_numpy(n, dtype, cores, tile_blocks, buffer_num):
    align = 32 // tl.DTYPE_BYTES[dtype]
    tiling = plan_tiling(n, dtype, core_num=cores, tile_length=tile_blocks * align if n else None,
                         buffer_num=buffer_num, min_core_bytes=32)
    x = data(n, dtype)
    assert np.array_equal(run_relu(x, tiling).y, np.maximum(x, 0))


def test_short_input_uses_few_cores_and_one_padded_tile():
    x = data(5, "float32")
    run = run_relu(x)
    assert (run.tiling.block_dim, run.tiling.block_length, run.tiling.tile_length) == (1, 8, 8)
    assert [op.name for op in run.trace.ops] == ["DataCopyPad", "Relu", "DataCopyPad"]
    assert np.array_equal(run.y, np.maximum(x, 0))


def test_empty_input():
    run = run_relu(np.zeros(0, np.float16))
    assert run.y.size == 0 and run.trace.ops == [] and run.tiling.block_dim == 1


def test_multidimensional_input_is_flattened():
    x = data(3 * 5 * 7, "float16").reshape(3, 5, 7)
    assert np.array_equal(run_relu(x).y, np.maximum(x, 0).reshape(-1))


# --- the tiling calculator -------------------------------------------------------------------------------


def test_plan_tiling_by_hand():
    t = plan_tiling(1000, "float32", core_num=4, min_core_bytes=32)
    assert (t.block_dim, t.block_length, t.core_length(3), t.tile_length) == (4, 256, 232, 256)
    # 5 blocks of 32 bytes over 4 cores: 2 blocks per core, so 3 cores are enough
    t = plan_tiling(40, "float32", core_num=4, min_core_bytes=32)
    assert (t.block_dim, t.block_length, t.core_length(2)) == (3, 16, 8)
    # by default every core gets at least 8 KiB: 100 003 float16 (200 006 bytes) → 24 cores
    assert plan_tiling(1000, "float16").block_dim == 1
    assert plan_tiling(100_003, "float16").block_dim == 24 == 200_006 // 8192
    with pytest.raises(TilingError, match="min_core_bytes"):
        plan_tiling(10, "float16", min_core_bytes=8)


def test_plan_tiling_large_input_uses_all_vector_cores_and_fits_ub():
    t = plan_tiling(10_000_000, "float16")
    assert t.block_dim == 40 == ascend910b3().vector_cores
    assert t.tile_length == 196608 // 4 // 2  # UB / (2 queues × 2 buffers), in float16 elements
    assert t.ub_bytes_needed() == 196608
    assert "UB 占用" in t.describe()


@settings(max_examples=200, deadline=None)
@given(n=st.integers(1, 10**7), dtype=st.sampled_from(DTYPES), cores=st.integers(1, 40),
       min_core_bytes=st.sampled_from([32, 1024, 8192]))
def test_plan_tiling_invariants(n, dtype, cores, min_core_bytes):
    t = plan_tiling(n, dtype, core_num=cores, min_core_bytes=min_core_bytes)
    size = tl.DTYPE_BYTES[dtype]
    lengths = [t.core_length(b) for b in range(t.block_dim)]
    assert sum(lengths) == n and 1 <= t.block_dim <= cores
    assert (t.block_length * size) % 32 == 0 and (t.tile_length * size) % 32 == 0
    assert 0 < lengths[-1] <= t.block_length
    assert t.block_dim == 1 or t.block_length * size >= min_core_bytes
    assert t.ub_bytes_needed() <= ascend910b3().ub_bytes
    assert sum(sum(t.tile_lengths(b)) for b in range(t.block_dim)) == n


def test_tiling_rejects_ub_overflow_with_a_clear_message():
    with pytest.raises(UBOverflowError, match=r"UB 放不下.*196608 字节.*tileLength 最大可取 24576"):
        plan_tiling(100_000, "float16", tile_length=30_000)
    with pytest.raises(UBOverflowError):  # 3 buffers per queue make a 48 KiB tile too big
        ReluTiling(1 << 20, 1, 1 << 20, 24576, "float16", buffer_num=3).validate()


def test_tiling_rejects_broken_alignment():
    with pytest.raises(AlignmentError, match=r"200 字节，不是 32 字节的整数倍.*16 的倍数"):
        plan_tiling(10_000, "float16", tile_length=100)
    with pytest.raises(AlignmentError, match="blockLength"):
        ReluTiling(100, 2, 50, 16, "float32").validate()


@pytest.mark.parametrize("bad, message", [
    (dict(block_dim=65536), r"\[1, 65535\]"),
    (dict(block_dim=0), "至少 1 个"),
    (dict(buffer_num=0), "BUFFER_NUM"),
    (dict(block_dim=4, block_length=72), "最后一个核无事可做"),
    (dict(tile_length=-16), "tileLength"),
    (dict(buffer_num=33), "超过 InitBuffer 允许的 64 块"),
])
def test_tiling_rejects_impossible_settings(bad, message):
    fields = dict(total_length=200, block_dim=2, block_length=128, tile_length=64, dtype="float32", buffer_num=2)
    fields.update(bad)
    with pytest.raises(TilingError, match=message):
        ReluTiling(**fields).validate()


def test_more_blocks_than_vector_cores_warns_but_runs():
    # blockDim counts logical cores in [1, 65535] (SetBlockDim, atlasopapi_07_00236): a vector-only kernel with more
    # blocks than the 40 AIV of 910B3 is legal, runs in rounds, and is warned about, not rejected
    tiling = ReluTiling(48 * 16384, 48, 16384, 4096, "float16")
    with pytest.warns(TilingWarning, match=r"超过 Ascend910B3 的 40 个 Vector 核.*分 2 轮.*MIX"):
        assert tiling.validate() is tiling
    assert len(tiling.warnings()) == 1 and plan_tiling(48 * 16384, "float16").warnings() == []
    x = np.linspace(-3, 3, tiling.total_length, dtype=np.float16)
    with pytest.warns(TilingWarning):
        run = run_relu(x, tiling)
    np.testing.assert_array_equal(run.y, np.maximum(x, 0))


def test_unsupported_dtypes_are_named():
    with pytest.raises(TilingError, match="bfloat16"):
        plan_tiling(10, "bfloat16")
    with pytest.raises(TilingError, match="float64"):
        run_relu(np.ones(4))


def test_tiling_for_another_input_is_refused():
    with pytest.raises(TilingError, match="tiling 是为 10 个 float32 做的"):
        run_relu(np.ones(11, np.float32), plan_tiling(10, "float32"))


def test_a_smaller_platform_changes_the_plan():
    tiny = Platform("tiny", ub_bytes=4096, block_bytes=32, vector_cores=2)
    t = plan_tiling(10_000, "float32", platform=tiny)
    assert t.block_dim == 2 and t.tile_length == 4096 // 4 // 4
    x = data(10_000, "float32")
    assert np.array_equal(run_relu(x, t, platform=tiny).y, np.maximum(x, 0))


# --- what the pipe itself enforces -----------------------------------------------------------------------


def test_init_buffer_enforces_the_ub_budget_without_the_tiling_check():
    tiling = ReluTiling(1 << 16, 1, 1 << 16, 1 << 15, "float16")  # 4 × 64 KiB buffers
    with pytest.raises(UBOverflowError, match=r"InitBuffer\(VECOUT, 2, 65536\).*UB 只剩 65536 字节"):
        run_relu(np.ones(1 << 16, np.float16), tiling, check_tiling=False)


def test_unaligned_datacopy_is_an_error_and_the_model_loses_the_tail():
    x = np.arange(-10, 11, dtype=np.float32)  # 21 elements = 84 bytes: one tile, 20 bytes past the last block
    with pytest.raises(AlignmentError, match="84 字节，不是 32 字节的整数倍.*只搬 64 字节.*DataCopyPad"):
        run_relu(x, use_pad=False)
    run = run_relu(x, use_pad=False, strict=False)  # the course's model of the undefined behaviour: round down
    assert run.unwritten() == 5 and np.array_equal(run.y[:16], np.maximum(x[:16], 0))


def test_unaligned_tiles_work_only_through_datacopy_pad():
    tiling = ReluTiling(40, 1, 40, 12, "float32")  # 48-byte tiles: every tile is a "tail"
    x = data(40, "float32")
    run = run_relu(x, tiling, check_tiling=False)
    assert np.array_equal(run.y, np.maximum(x, 0)) and {op.name for op in run.trace.ops} == {"DataCopyPad", "Relu"}
    with pytest.raises(AlignmentError):
        run_relu(x, tiling, check_tiling=False, use_pad=False)


def make_queue(num: int = 1, depth: int = 1) -> em.TQue:
    pipe = em.TPipe(ascend910b3())
    que = em.TQue("VECIN", depth=depth)
    pipe.init_buffer(que, num, 64)
    return que


def test_queue_rules():
    que = make_queue(num=1)
    t = que.alloc_tensor(np.float32)
    with pytest.raises(QueueError, match="都在使用中"):
        que.alloc_tensor(np.float32)
    que.en_que(t)
    with pytest.raises(QueueError, match="还在队列里"):
        que.free_tensor(t)
    assert que.de_que() is t
    with pytest.raises(QueueError, match="空的"):
        que.de_que()
    que.free_tensor(t)
    with pytest.raises(QueueError, match="已经 FreeTensor"):
        que.free_tensor(t)
    with pytest.raises(QueueError, match="已经 FreeTensor"):
        t.data.sum()


def test_queue_depth_is_not_the_buffer_count():
    que = make_queue(num=2, depth=1)  # two buffers (double buffering), depth 1
    a, b = que.alloc_tensor(np.float16), que.alloc_tensor(np.float16)
    assert a.addr != b.addr and a.addr % 32 == b.addr % 32 == 0
    que.en_que(a)
    with pytest.raises(QueueError, match="深度为 1"):
        que.en_que(b)
    deep = make_queue(num=2, depth=2)
    deep.en_que(deep.alloc_tensor(np.float16))
    deep.en_que(deep.alloc_tensor(np.float16))


def test_alloc_before_init_buffer_and_wrong_queue():
    with pytest.raises(QueueError, match="InitBuffer"):
        em.TQue("VECOUT").alloc_tensor(np.float16)
    q1, q2 = make_queue(), make_queue()
    with pytest.raises(QueueError, match="不属于"):
        q2.en_que(q1.alloc_tensor(np.float16))


def test_global_memory_bounds():
    gm = em.GlobalTensor()
    gm.set_global_buffer(np.zeros(100, np.float32), 64, 32)
    with pytest.raises(OutOfBoundsError, match="越界"):
        gm[16].span(24)
    with pytest.raises(OutOfBoundsError):
        gm.set_global_buffer(np.zeros(100, np.float32), 90, 32)


def test_datacopy_pad_fills_the_block_with_the_first_element():
    que = make_queue()
    gm = em.GlobalTensor()
    gm.set_global_buffer(np.array([3.0, -1.0, 2.0], np.float32), 0, 3)
    t = que.alloc_tensor(np.float32)
    em.data_copy_pad(t, gm, em.DataCopyExtParams(1, 12, 0, 0, 0))
    assert t.data[:8].tolist() == [3.0, -1.0, 2.0] + [3.0] * 5
    with pytest.raises(AlignmentError, match="元素大小"):
        em.data_copy_pad(t, gm, em.DataCopyExtParams(1, 6, 0, 0, 0))


# --- the timeline model ----------------------------------------------------------------------------------


def timelines(cost=None, n=8 * 1024, tile=512):
    base = plan_tiling(n, "float16", core_num=1, tile_length=tile)
    out = {}
    for b in (1, 2):
        t = ReluTiling(base.total_length, base.block_dim, base.block_length, base.tile_length, "float16", b)
        out[b] = schedule(run_relu(np.ones(n, np.float16), t).trace, cost)
    return out


def test_double_buffering_overlaps_copy_in_with_compute():
    single, double = timelines().values()
    assert double.total_cycles < single.total_cycles
    for line in (single, double):
        assert line.total_cycles >= max(line.busy_cycles(u) for u in em.UNITS)  # the bottleneck bounds it
        starts = {(s.op.unit, s.op.tile): s for s in line.spans}
        for tile in range(16):  # every Relu waits for its copy-in, every copy-out for its Relu
            assert starts["V", tile].start >= starts["MTE2", tile].end
            assert starts["MTE3", tile].start >= starts["V", tile].end
    s1 = {(s.op.unit, s.op.tile): s for s in single.spans}
    assert all(s1["MTE2", i + 1].start >= s1["V", i].end for i in range(15))  # one buffer: no run-ahead
    s2 = {(s.op.unit, s.op.tile): s for s in double.spans}
    assert any(s2["MTE2", i + 1].start < s2["V", i].end for i in range(15))


def test_copy_bound_kernel_gains_little_compute_bound_gains_more():
    single, double = timelines().values()
    assert double.bottleneck() == "MTE2"
    cheap = single.total_cycles / double.total_cycles
    heavy_single, heavy_double = timelines(CostModel(vector_bytes_per_cycle=32)).values()
    assert heavy_single.total_cycles / heavy_double.total_cycles > cheap > 1


def test_cost_model_from_platform_file_and_units():
    cost = CostModel.from_platform_file()
    assert (cost.mte2_bytes_per_cycle, cost.mte3_bytes_per_cycle, cost.clock_ghz) == (32, 64, 1.8)
    line = timelines(cost)[2]
    assert line.microseconds() == pytest.approx(line.total_cycles / 1800)
    assert len(cost.rows()) == 5


# --- the Python model takes the same parameters as the C++ project -----------------------------------------


def cpp(path: str) -> str:
    return (PROJECT / path).read_text(encoding="utf-8")


def constant(source: str, name: str) -> int:
    return int(re.search(rf"constexpr \w+ {name} = (\d+);", source).group(1))


def test_cpp_constants_match_the_model():
    host, kernel = cpp("op_host/relu_custom.cpp"), cpp("op_kernel/relu_custom.cpp")
    assert constant(host, "BUFFER_NUM") == constant(kernel, "BUFFER_NUM") == tl.DEFAULT_BUFFER_NUM
    assert constant(host, "QUEUE_COUNT") == tl.QUEUE_COUNT
    assert constant(host, "BLOCK_BYTES") == constant(kernel, "BLOCK_BYTES") == ascend910b3().block_bytes
    assert constant(kernel, "QUEUE_DEPTH") == 1


def test_tiling_data_fields_match_the_model():
    fields = re.findall(r"TILING_DATA_FIELD_DEF\(uint32_t, (\w+)\)", cpp("op_host/relu_custom_tiling.h"))
    snake = [re.sub(r"([A-Z])", lambda m: "_" + m.group(1).lower(), f) for f in fields]
    assert snake == ["total_length", "block_length", "tile_length"]
    assert all(name in ReluTiling.__dataclass_fields__ for name in snake)
    assert set(fields) <= set(plan_tiling(10, "float16").as_tiling_data())


def test_registered_dtypes_match_the_model():
    spec = json.loads(cpp("relu_custom.json"))[0]
    json_types = {"float16": "float16", "float": "float32", "int32": "int32"}
    for desc in spec["input_desc"] + spec["output_desc"]:
        assert [json_types[t] for t in desc["type"]] == list(tl.DTYPE_BYTES)
    host = cpp("op_host/relu_custom.cpp")
    assert host.count("{ge::DT_FLOAT16, ge::DT_FLOAT, ge::DT_INT32}") == 2
    assert 'OP_ADD(ReluCustom)' in host and 'AddConfig("ascend910b")' in host


def test_kernel_mirrors_the_model_structure():
    kernel = cpp("op_kernel/relu_custom.cpp")
    for step in ("CopyIn(i, length)", "Compute(length)", "CopyOut(i, length)", "DataCopyPad", "AscendC::Relu(",
                 "pipe.InitBuffer(inQueueX, BUFFER_NUM", "totalLength - blockLength * (blockNum - 1)"):
        assert step in kernel, step
    presets = json.loads(cpp("CMakePresets.json"))["configurePresets"][0]["cacheVariables"]
    assert presets["ASCEND_COMPUTE_UNIT"]["value"] == "ascend910b" and presets["vendor_name"]["value"] == "npulab"


@pytest.mark.parametrize("soc", ["Ascend310P3", "Ascend910_9391", "Ascend910A", "ascend910b3", "Ascend910B"])
def test_build_script_rejects_socs_its_presets_do_not_cover(soc):
    """build_and_install.sh targets ascend910b only (CMakePresets.json, AddConfig): other SoCs are refused first."""
    import os
    import subprocess

    env = {k: v for k, v in os.environ.items() if k != "ASCEND_HOME_PATH"}
    done = subprocess.run(["bash", str(PROJECT / "build_and_install.sh"), soc], capture_output=True, text=True,
                          env=env, timeout=60)
    assert done.returncode == 2 and f"不支持 {soc}" in done.stderr and "ascend910b" in done.stderr
    assert done.stdout == ""  # nothing was generated or built


def test_build_script_accepts_910b_family_and_then_needs_cann():
    import os
    import subprocess

    presets = json.loads((PROJECT / "CMakePresets.json").read_text(encoding="utf-8"))
    assert presets["configurePresets"][0]["cacheVariables"]["ASCEND_COMPUTE_UNIT"]["value"] == "ascend910b"
    env = {k: v for k, v in os.environ.items() if k != "ASCEND_HOME_PATH"}
    for soc in ("Ascend910B3", "Ascend910B4-1"):
        done = subprocess.run(["bash", str(PROJECT / "build_and_install.sh"), soc], capture_output=True, text=True,
                              env=env, timeout=60)
        assert done.returncode == 2 and "没有 CANN 环境" in done.stderr  # past the SoC check, stopped at CANN
