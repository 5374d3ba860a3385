"""npulab.pytorch.compile and ``bench compile``: compile time kept out of the steady-state median, sync before the
clock, compilations counted, buckets, graph breaks, and the training-step memory formula against real tensors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from npulab.bench import compile as bench_compile
from npulab.core.device import Device
from npulab.core.provenance import Kind
from npulab.core.timing import StepTimes, Timing, time_steps
from npulab.env import triton_ascend
from npulab.pytorch import compile as cc
from npulab.testing.fake_triton import forgotten_modules, make_fake_triton

CPU = Device("cpu", "test CPU")


class FakeAsync:
    """fn() queues work on a fake device; the clock advances only when the device is synchronised."""

    def __init__(self, durations):
        self.durations, self.now, self.pending, self.calls, self.syncs = list(durations), 0.0, 0.0, 0, 0

    def fn(self):
        self.pending += self.durations[self.calls]
        self.calls += 1

    def sync(self):
        self.syncs += 1
        self.now += self.pending
        self.pending = 0.0


def test_first_call_is_timed_alone_and_kept_out_of_the_median():
    fake = FakeAsync([100.0, 5.0, 5.0, 2.0, 3.0, 2.0, 2.0])  # the first call compiles
    fake.pending = 50.0  # work queued before the measurement must not be billed to the first call
    r = time_steps(fake.fn, sync=fake.sync, warmup=3, repeats=4, clock=lambda: fake.now, device="npu")
    assert r.first_s == 100.0
    assert r.steady.times == (2.0, 3.0, 2.0, 2.0) and r.steady.warmup == 2
    assert r.steady.median == 2.0 and 100.0 not in r.steady.times
    assert r.one_off_s == 98.0
    assert fake.calls == 7


def test_without_sync_the_first_call_would_look_free():
    fake = FakeAsync([100.0, 1.0, 1.0])
    r = time_steps(fake.fn, sync=lambda: None, warmup=1, repeats=2, clock=lambda: fake.now, device="npu")
    assert r.first_s == 0.0  # the pitfall: an asynchronous launch returns at once


def _run(first, times):
    return StepTimes("x", None, first, Timing(tuple(times), 2, "cpu"))


def test_comparison_arithmetic_and_figures():
    c = cc.CompileComparison(_run(0.05, [0.010] * 3), _run(2.004, [0.004] * 3))
    assert c.compile_time == pytest.approx(2.0)
    assert c.speedup == pytest.approx(2.5)
    assert c.saving == pytest.approx(0.006)
    assert c.break_even_steps == pytest.approx(2.0 / 0.006)
    figures = c.figures(CPU)
    assert [f.kind for f in figures] == [Kind.MEASURED] * 4 + [Kind.DERIVED] * 3
    assert figures[-1].value == round(2.0 / 0.006)
    slower = cc.CompileComparison(_run(0.05, [0.010] * 3), _run(2.0, [0.020] * 3))
    assert slower.break_even_steps is None and slower.speedup == pytest.approx(0.5)
    assert slower.figures(CPU)[-1].value == float("inf")


def test_compare_compile_runs_both_from_the_same_weights():
    torch.manual_seed(0)
    model = cc.mlp_model(16, 32, 1)
    x, target = torch.randn(4, 16), torch.randn(4, 16)
    r = cc.compare_compile(model, x, target, CPU, backend="eager", warmup=1, repeats=2)
    assert len(r.eager.steady.times) == 2 and len(r.compiled.steady.times) == 2
    assert r.compiled.first_s > 0 and r.backend == "eager"


def _gelu2(x):
    return torch.nn.functional.gelu(x) * 2


SIZES = (8, 16, 24, 32)


def test_changing_shapes_recompile_once_then_go_dynamic():
    log = cc.count_compilations(_gelu2, [torch.randn(n, 4) for n in SIZES])
    assert log.graphs_after == (1, 2, 2, 2)  # static first, then automatically dynamic
    assert log.signatures[0] == "(8, 4)" and log.signatures[1].startswith("(s")


def test_signatures_of_a_module_show_the_data_not_the_weights():
    log = cc.count_compilations(cc.MLPBlock(8, 16), [torch.randn(n, 8) for n in (3, 5)])
    assert log.graphs_after == (1, 2) and log.signatures[0] == "(3, 8)" and log.signatures[1].startswith("(s")
    assert log.signatures[1].endswith(", 8)")


def test_static_shapes_recompile_for_every_shape_and_mark_dynamic_compiles_once():
    assert cc.count_compilations(_gelu2, [torch.randn(n, 4) for n in SIZES], dynamic=False).graphs_after == (1, 2, 3, 4)
    log = cc.count_compilations(_gelu2, [torch.randn(n, 4) for n in SIZES], mark_dynamic_dim=0)
    assert log.compilations == 1 and log.signatures[0].startswith("(s")


def test_buckets_bound_the_number_of_shapes():
    assert cc.bucket_size(5, (16, 8)) == 8 and cc.bucket_size(8, (8, 16)) == 8 and cc.bucket_size(9, (8, 16)) == 16
    with pytest.raises(ValueError, match="超过了最大的桶"):
        cc.bucket_size(17, (8, 16))
    x = torch.ones(5, 3)
    padded = cc.pad_to_bucket(x, (8, 16))
    assert padded.shape == (8, 3) and padded[:5].eq(1).all() and padded[5:].eq(0).all()
    assert cc.pad_to_bucket(torch.ones(8, 3), (8, 16)).shape == (8, 3)
    inputs = [cc.pad_to_bucket(torch.randn(n, 4), (16, 32)) for n in (5, 9, 16, 17, 30)]
    assert cc.count_compilations(_gelu2, inputs, dynamic=False).compilations == 2


def test_explain_finds_the_data_dependent_branch_and_its_fix():
    def branchy(x):
        y = x.sin()
        if y.sum() > 0:
            return y * 2
        return y - 1

    def branchless(x):
        y = x.sin()
        return torch.where(y.sum() > 0, y * 2, y - 1)

    broken = cc.explain(branchy, torch.randn(8))
    assert broken.breaks == 1 and broken.graphs == 2 and len(broken.reasons) == 1
    fixed = cc.explain(branchless, torch.randn(8))
    assert fixed.breaks == 0 and fixed.graphs == 1
    x = torch.randn(8)
    assert torch.equal(branchy(x), branchless(x))


def test_launch_overhead_and_cuda_graph_guard():
    r = cc.launch_overhead(CPU, steps=10, warmup=1, repeats=3)
    assert r.ops == 20 and r.per_op == pytest.approx(r.timing.median / 20) and r.per_op > 0
    assert torch.allclose(cc.op_chain(torch.ones(1), 2), torch.ones(1) * 1.0001 * 1.0001 + 0.0001 * 1.0001 + 0.0001)
    with pytest.raises(ValueError, match="CUDA"):
        cc.cuda_graph_replay(CPU)


def test_count_ops_counts_dispatched_operators():
    x = torch.ones(3)
    assert cc.count_ops(lambda: cc.op_chain(x, 5)) == 10
    assert cc.count_ops(lambda: None) == 0


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_cuda_graph_replay_live():
    r = cc.cuda_graph_replay(Device("cuda", "gpu"), steps=50, warmup=2, repeats=5)
    assert r.replay.ops == r.eager.ops == 100 and r.speedup > 0


@pytest.mark.parametrize(("dim", "hidden", "depth", "batch"), [(16, 64, 1, 4), (32, 48, 3, 5)])
@pytest.mark.parametrize("optimizer", ["sgd", "momentum", "adam"])
def test_memory_formula_matches_the_tensors_of_a_real_step(dim, hidden, depth, batch, optimizer):
    torch.manual_seed(0)
    model = cc.mlp_model(dim, hidden, depth)
    assert sum(p.numel() for p in model.parameters()) == cc.mlp_parameters(dim, hidden, depth)
    opt = {"sgd": lambda p: torch.optim.SGD(p, lr=0.1), "momentum": lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9),
           "adam": lambda p: torch.optim.Adam(p)}[optimizer](model.parameters())
    measured = cc.measure_step_memory(model, opt, torch.randn(batch, dim), torch.randn(batch, dim), CPU)
    assert measured.counted == cc.mlp_step_memory(dim, hidden, depth, batch, optimizer=optimizer)
    assert measured.peak_allocated is None  # a CPU has no allocator statistics


def test_memory_formula_values_and_errors():
    m = cc.mlp_step_memory(256, 1024, 2, 64)
    p = 2 * (2 * 256 + 256 * 1024 + 1024 + 1024 * 256 + 256)
    assert m.weights == m.gradients == 4 * p and m.optimizer_state == 8 * p + 4 * 12
    assert m.activations == 4 * (2 * 64 * (2 * 256 + 2 * 1024 + 2) + 2 * 64 * 256)
    assert m.as_dict()["total"] == m.total == m.weights * 2 + m.optimizer_state + m.activations
    assert cc.mlp_step_memory(8, 8, 1, 1, bytes_per_value=2).weights == 2 * cc.mlp_parameters(8, 8, 1)
    with pytest.raises(ValueError, match="optimizer"):
        cc.mlp_step_memory(8, 8, 1, 1, optimizer="lion")


def test_saved_activations_exclude_the_weights():
    w = torch.randn(4, 4, requires_grad=True)
    x = torch.randn(2, 4, requires_grad=True)  # both need gradients, so matmul saves both
    assert cc.saved_activation_bytes(lambda: (x @ w).sum(), exclude=[w]) == x.numel() * 4
    assert cc.saved_activation_bytes(lambda: (x @ w).sum()) == (x.numel() + w.numel()) * 4


@pytest.fixture
def isolated_triton():
    """Every ``triton*`` module forgotten for one test and restored afterwards (fake packages stay out of later tests)."""
    with forgotten_modules("triton"):
        yield


NPU = Device("npu", "Ascend910B3")


@pytest.mark.parametrize("libdevice", ["cann", "ascend"])
def test_npu_picks_inductor_only_with_triton_ascend_importable(tmp_path, monkeypatch, isolated_triton, libdevice):
    monkeypatch.syspath_prepend(str(make_fake_triton(tmp_path, libdevice=libdevice, ascend_backend=True)))
    choice = bench_compile.choose_backend(NPU)
    assert choice.backend == "inductor" and f"triton.language.extra.{libdevice}.libdevice" in choice.reason
    assert sys.modules[f"triton.language.extra.{libdevice}.libdevice"].__file__.startswith(str(tmp_path))


def test_npu_without_the_ascend_backend_is_not_enough(tmp_path, monkeypatch, isolated_triton):
    monkeypatch.syspath_prepend(str(make_fake_triton(tmp_path, libdevice="cann", ascend_backend=False)))
    choice = bench_compile.choose_backend(NPU)
    assert choice.backend == "aot_eager" and "triton.backends.ascend" in choice.reason


def test_npu_with_community_triton_falls_back_to_aot_eager():
    """The real community triton of requirements.txt (3.7.1 here) has no Ascend libdevice: no inductor on the NPU.
    (Its C extension cannot be imported twice in one process, so this test keeps whatever triton is loaded.)"""
    pytest.importorskip("triton")
    choice = bench_compile.choose_backend(NPU)
    assert choice.backend == "aot_eager"
    assert "社区版 triton" in choice.reason and "triton.language.extra.cann.libdevice" in choice.reason
    assert "npugraphs" in choice.reason


def test_npu_with_no_triton_at_all(tmp_path, monkeypatch, isolated_triton):
    monkeypatch.setattr(sys, "path", [p for p in sys.path if not (Path(p) / "triton").is_dir()])
    monkeypatch.setattr(triton_ascend, "metadata_version", lambda name: None)
    choice = bench_compile.choose_backend(NPU)
    assert choice.backend == "aot_eager" and "没有安装任何 triton" in choice.reason


def test_cuda_needs_triton_and_cpu_a_cpp_compiler(monkeypatch):
    monkeypatch.setattr(bench_compile.importlib.util, "find_spec", lambda name: object() if name == "triton" else None)
    assert bench_compile.choose_backend(Device("cuda", "gpu")).backend == "inductor"
    monkeypatch.setattr(bench_compile.importlib.util, "find_spec", lambda name: None)
    assert bench_compile.choose_backend(Device("cuda", "gpu")).backend == "aot_eager"
    monkeypatch.setattr(bench_compile.shutil, "which", lambda name: None)
    choice = bench_compile.choose_backend(CPU)
    assert choice.backend == "aot_eager" and "g++" in choice.reason
    monkeypatch.setattr(bench_compile.shutil, "which", lambda name: "/usr/bin/g++")
    choice = bench_compile.choose_backend(CPU)
    assert choice.backend == "inductor" and "/usr/bin/g++" in choice.reason and str(choice).startswith("inductor：")


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "npulab", "bench", "compile", *args], capture_output=True, text=True,
                          env={**__import__("os").environ, "NPULAB_DEVICE": "cpu"})


def test_cli_json_shape():
    r = _cli("--json", "--backend", "aot_eager", "--dim", "16", "--hidden", "32", "--depth", "1", "--batch", "4",
             "--repeats", "3")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["device"].startswith("cpu") and doc["repeats"] == 3 and doc["backend"] == "aot_eager"
    assert doc["size"] == {"dim": 16, "hidden": 32, "depth": 1, "batch": 4}
    assert [row["mode"] for row in doc["results"]] == ["eager", "compiled"]
    compiled = doc["results"][1]
    assert doc["compile_ms"] == pytest.approx(compiled["first_call_ms"] - compiled["median_ms"])
    assert doc["speedup"] == pytest.approx(doc["results"][0]["median_ms"] / compiled["median_ms"])


def test_cli_text_and_usage_errors():
    r = _cli("--backend", "eager", "--dim", "8", "--hidden", "8", "--depth", "1", "--batch", "2", "--repeats", "2")
    assert r.returncode == 0 and "编译耗时" in r.stdout and "回本步数" in r.stdout and "Traceback" not in r.stderr
    assert "选这个后端的原因：命令行指定" in r.stdout
    for bad in (["--repeats", "0"], ["--dim", "-3"], ["--backend", "tvm"], ["--backend", "npugraphs"]):
        r = _cli(*bad)
        assert r.returncode == 2 and "Traceback" not in r.stderr, bad


# --- lint-npu knows torchair and npugraph_ex (shipped inside the torch_npu wheel) -------------------------------

TORCHAIR_FILES = {
    "torch_npu/__init__.py": "from . import dynamo\n",
    "torch_npu/dynamo/__init__.py": "import sys\n",
    "torch_npu/dynamo/torchair/__init__.py": (
        "__all__ = ['get_npu_backend', 'CompilerConfig']\nfrom torchair.npu_fx_compiler import get_npu_backend\n"
        "from torchair.configs.compiler_config import CompilerConfig\nimport torchair.inference\n"),
    "torch_npu/dynamo/torchair/npu_fx_compiler.py": "def get_npu_backend(compiler_config=None):\n    pass\n",
    "torch_npu/dynamo/torchair/configs/__init__.py": "",
    "torch_npu/dynamo/torchair/configs/compiler_config.py": (
        "class CompilerConfig:\n    def __init__(self):\n        self.mode = 'max-autotune'\n\n    def as_dict(self):\n"
        "        return {}\n"),
    "torch_npu/dynamo/torchair/inference/__init__.py": "from torchair.inference._cache import cache_compile\n",
    "torch_npu/dynamo/torchair/inference/_cache.py": "def cache_compile(fn):\n    return fn\n",
    "torch_npu/dynamo/npugraph_ex/__init__.py": "from npugraph_ex.npu_fx_compiler import compile_fx\n",
    "torch_npu/dynamo/npugraph_ex/npu_fx_compiler.py": "def compile_fx(gm, inputs):\n    return gm\n",
    "torch_npu-9.9.8.dist-info/METADATA": "Name: torch_npu\nVersion: 9.9.8\n",
}


@pytest.fixture(scope="module")
def torchair_cache(tmp_path_factory):
    import zipfile

    cache = tmp_path_factory.mktemp("cache")
    with zipfile.ZipFile(cache / "torch_npu-9.9.8-cp311-cp311-manylinux_2_28_x86_64.whl", "w") as zf:
        for name, text in TORCHAIR_FILES.items():
            zf.writestr(name, text)
    return cache


def test_index_follows_torchairs_absolute_imports(torchair_cache):
    from npulab.pytorch.torch_npu_names import load_index, torch_npu_path

    assert torch_npu_path("torchair.get_npu_backend") == "torch_npu.dynamo.torchair.get_npu_backend"
    assert torch_npu_path("npugraph_ex") == "torch_npu.dynamo.npugraph_ex" and torch_npu_path("torchairx.y") is None
    index = load_index("9.9.8", torchair_cache)
    for name in ("torchair.get_npu_backend", "torchair.CompilerConfig", "torchair.CompilerConfig.as_dict",
                 "torchair.inference.cache_compile", "npugraph_ex.compile_fx", "torch_npu.dynamo.torchair.CompilerConfig"):
        assert index.resolve(name), name
    assert index.namespaces["torch_npu.dynamo.torchair"].names["CompilerConfig"] == \
        "torch_npu.dynamo.torchair.configs.compiler_config:CompilerConfig"  # not opaque: its members are checked
    assert index.resolve("torchair.CompilerConfig.as_dcit") is None
    assert "as_dict" in index.missing("torchair.CompilerConfig.as_dcit").suggestions
    assert "get_npu_backend" in index.missing("torchair.get_npu_bakend").suggestions


def _lint_cell(tmp_path, source, cache, version):
    import nbformat

    nb = nbformat.v4.new_notebook()
    source = source.replace("%%npu\n", "%%npu 预期：只检查 torchair 的名字（依据：本测试）\n", 1)
    cell = nbformat.v4.new_code_cell(source, metadata={"tags": ["npu", "skip-execution"]})
    nb.cells = [cell]
    nbformat.write(nb, tmp_path / "lesson.ipynb")
    return subprocess.run([sys.executable, "-m", "npulab", "lint-npu", "lesson.ipynb", "--torch-npu-version", version,
                           "--cache-dir", str(cache)], capture_output=True, text=True, cwd=tmp_path)


def test_lint_checks_torchair_names_in_npu_cells(tmp_path, torchair_cache):
    good = ("%%npu\nimport torch\nimport torch_npu\nimport torchair\nimport torchair as tng\n"
            "from torchair.configs.compiler_config import CompilerConfig\n"
            "config = torchair.CompilerConfig()\nbackend = tng.get_npu_backend(compiler_config=config)\n"
            "f = torchair.inference.cache_compile\n")
    r = _lint_cell(tmp_path, good, torchair_cache, "9.9.8")
    assert r.returncode == 0, r.stdout + r.stderr
    r = _lint_cell(tmp_path, "%%npu\nimport torchair\nbackend = torchair.get_npu_bakend()\n", torchair_cache, "9.9.8")
    assert r.returncode == 1 and "`torchair.get_npu_backend`" in r.stdout and "torch_npu.dynamo.torchair" in r.stdout
    r = _lint_cell(tmp_path, "%%npu\nfrom torchair.configs.compiler_confg import CompilerConfig\n", torchair_cache, "9.9.8")
    assert r.returncode == 1 and "compiler_confg" in r.stdout


REAL_TORCHAIR_NAMES = [
    "torchair.get_npu_backend", "torchair.CompilerConfig", "torchair.inference.cache_compile",
    "torchair.configs.compiler_config.CompilerConfig", "torchair.use_internal_format_weight", "torchair.logger",
    "npugraph_ex.get_npu_backend", "npugraph_ex.CompilerConfig", "torch.npu.NPUGraph", "torch.npu.graph",
    "torch.npu.make_graphed_callables", "torch.npu.graph_pool_handle", "torch.npu.memory_summary",
    "torch.npu.memory_snapshot", "torch.npu.memory_stats", "torch.npu.reset_peak_memory_stats",
    "torch.npu.memory._record_memory_history", "torch.npu.memory._dump_snapshot",
]


@pytest.fixture(scope="module")
def real_index():
    from npulab.pytorch.torch_npu_names import pinned_index

    return pinned_index()  # the pinned torch_npu wheel, downloaded once into the user's cache


@pytest.mark.parametrize("name", REAL_TORCHAIR_NAMES)
def test_real_wheel_has_the_lessons_graph_and_memory_names(real_index, name):
    assert real_index.resolve(name), name


# --- lab 03, questions 6 and 7 ------------------------------------------------------------------------------


@pytest.fixture
def lab(monkeypatch):
    from npulab.course.labs import lab03

    monkeypatch.delenv("NPULAB_LAB_STRICT", raising=False)
    return lab03.make_lab()


def test_lab_recompiles_is_checked_against_dynamo(lab, capsys):
    from npulab.course.labs import lab03

    truth = lab03.expected_recompiles()
    assert truth == {"default": (1, 1, 2, 2, 2), "static": (1, 1, 2, 3, 3)}
    assert lab.check("recompiles", {"default": ..., "static": ...}) is False and lab.results["recompiles"] is None
    assert not lab.check("recompiles", {"default": truth["static"], "static": truth["static"]})
    assert "自动动态形状" in capsys.readouterr().out
    assert not lab.check("recompiles", {"default": truth["default"], "static": (1, 2, 3, 4, 5)})
    assert "已经见过的形状" in capsys.readouterr().out
    assert not lab.check("recompiles", [1, 2])
    assert lab.check("recompiles", {"default": list(truth["default"]), "static": truth["static"]})


def test_lab_memory_hints_name_the_missing_term(lab, capsys):
    from npulab.course.labs import lab03

    m = cc.mlp_step_memory(**lab03.MEMORY_CASE)
    assert lab.check("memory", ...) is False and lab.results["memory"] is None
    for wrong, hint in ((m.total - m.optimizer_state, "优化器状态"), (m.total - m.optimizer_state / 2, "一份状态"),
                        (m.total - m.activations, "少了激活"), (m.total / 2**20, "字节数"), ("many", "数字")):
        assert not lab.check("memory", wrong)
        assert hint in capsys.readouterr().out
    assert lab.check("memory", m.total) and lab.check("memory", m.total - 4 * 6 * 3)
