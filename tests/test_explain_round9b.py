"""Round 9b of issue 36: classes of logs read from the development half of pool 2026-12j, each tested on lines
written here (never a log of a set): a library of the Ascend stack the index lacks by name, known by the folder the
loader names it in; a Python package said missing in words (a report in prose, not pip's or Python's message); an
extension's op with no implementation for the NPU device (mmcv's device registry); a launcher that chose no
communication back end for the NPU ("unknown"); a CUDA call in an error line of an Ascend log, with its NPU
counterpart; the code choosing "npu" by an availability check it never called."""

from __future__ import annotations

import pytest

from npulab.env import explain as ex
from npulab.env.explain.rules import choice, cuda, library, module, packages

# --- a library of the Ascend stack: by its name, or by the folder it is named in ------------------------------------

@pytest.mark.parametrize("line, family", [
    ("ImportError: /usr/local/Ascend/ascend-toolkit/8.0.0/aarch64-linux/lib64/libnew_thing.so: cannot open shared "
     "object file: No such file or directory", "env_not_loaded"),
    ("OSError: /usr/local/Ascend/cann-8.5.0/lib64/libsomething_else.so.1: cannot open shared object file", "env_not_loaded"),
    ("OSError: /usr/local/Ascend/driver/lib64/common/libnot_listed.so: cannot open shared object file", "driver_not_mounted"),
    ("./serve: error while loading shared libraries: libdummy_tls.so: cannot open shared object file: No such file",
     "env_not_loaded"),
])
def test_a_library_of_the_ascend_stack_is_its_family_even_alone(line, family):
    report = ex.explain_text(line + "\n")
    assert report.categories[0] == family, report.categories


def test_the_folder_is_the_path_just_before_the_name():
    facts = library.read("OSError: /opt/Ascend/ascend-toolkit/latest/lib64/libx_y.so: cannot open shared object file")
    assert facts == {"library": "libx_y.so", "focus": "libx_y.so", "folder": "/opt/Ascend/ascend-toolkit/latest/lib64/"}
    assert library.read("OSError: libx_y.so: cannot open shared object file").get("folder") is None
    assert packages.for_path("/home/me/build/lib/") is None


@pytest.mark.parametrize("line", [
    "ImportError: /usr/lib/x86_64-linux-gnu/libcudnn_ops.so.9: cannot open shared object file",
    "ImportError: /opt/conda/lib/python3.10/site-packages/torch/lib/libtorch_cpu.so: cannot open shared object file",
    "ImportError: libGL.so.1: cannot open shared object file: No such file or directory",
])
def test_a_library_outside_the_ascend_stack_alone_stays_clean(line):
    assert ex.explain_text(line + "\n").findings == []


# --- a package said missing in words ---------------------------------------------------------------------------------

@pytest.mark.parametrize("line, name", [
    ("启动训练时报 CANN 初始化失败，原因是环境里缺少 sympy 依赖包", "sympy"),
    ("ERROR: the run fails because of a missing cffi package", "cffi"),
    ("RuntimeError: package psutil is not installed", "psutil"),
    ("报错：未安装attrs模块", "attrs"),
])
def test_a_package_said_missing_is_read_as_a_missing_module(line, name):
    assert module.read(line)["module"] == name


def test_a_cann_dependency_said_missing_on_ascend_is_the_cann_family():
    log = "Atlas 800T A2 with CANN 8.0\nThe op compile step fails: the environment is missing the decorator package.\n"
    assert ex.explain_text(log).categories[0] == "cann_python_deps"


@pytest.mark.parametrize("line", ["Missing module docstring (missing-module-docstring)", "missing python package",
                                  "TypeError: f() missing 1 required positional argument: 'x'", "缺少参数"])
def test_words_that_name_no_package_are_not_read(line):
    assert module.read(line) is None


# --- an extension's op with no implementation for the NPU (under any of its device names) ----------------------------

@pytest.mark.parametrize("device", ["npu:0", "privateuseone:1", "xla:0"])
def test_an_op_without_an_npu_implementation_is_op_fallback(device):
    log = f"Atlas 300I Duo, torch_npu\nRuntimeError: nms_impl: implementation for device {device} not found.\n"
    assert ex.explain_text(log).categories[0] == "op_fallback"


@pytest.mark.parametrize("log", [
    "RuntimeError: nms_impl: implementation for device xla:0 not found.\n",  # a TPU: no Ascend word
    "Atlas 300I Duo, torch_npu\nRuntimeError: nms_impl: implementation for device cpu not found.\n",
])
def test_other_devices_are_not_op_fallback(log):
    assert "op_fallback" not in ex.explain_text(log).categories


# --- a launcher that chose no back end for the NPU ---------------------------------------------------------------------

@pytest.mark.parametrize("line", ["the distributed job on the NPU stops: backend was set to 'unknown'",
                                  "ValueError: Invalid backend: 'unknown' (device npu)",
                                  "RuntimeError: unknown backend: nccl on NPU"])
def test_a_launcher_without_a_backend_for_the_npu_is_nccl_backend(line):
    report = ex.explain_text("Ascend 910B cluster, torch_npu 2.1\n" + line + "\n")
    assert report.categories[0] == "nccl_backend"
    assert "hccl" in report.findings[0].fix


@pytest.mark.parametrize("log", ["Ascend 910B\nINFO backend: unknown (auto-detected later)\n",
                                 "ValueError: Invalid backend: 'unknown'\n"])  # no Ascend word
def test_a_backend_named_unknown_elsewhere_is_not_nccl_backend(log):
    assert "nccl_backend" not in ex.explain_text(log).categories


# --- a CUDA call in an error line of an Ascend log --------------------------------------------------------------------

@pytest.mark.parametrize("line, npu", [
    ("RuntimeError: the step failed inside torch.cuda.synchronize()", "torch.npu.synchronize()"),
    ("On the 910B the evaluation fails at cuda synchronize", "torch.npu.synchronize()"),
    ("ERROR: torch.cuda.mem_get_info() failed", "torch.npu.mem_get_info"),
    ("RuntimeError: model.cuda() failed on the NPU machine", "tensor.npu()"),
    ("ValueError: tensor.to('cuda:0') failed on the NPU", "tensor.to('npu')"),
])
def test_a_cuda_call_in_an_error_line_is_cuda_hardcoded_with_its_counterpart(line, npu):
    report = ex.explain_text("Ascend 910B, torch_npu 2.1\n" + line + "\n")
    assert report.categories[0] == "cuda_hardcoded"
    assert npu in report.findings[0].fix


@pytest.mark.parametrize("log", [
    "Ascend 910B\nINFO torch.cuda.synchronize() is patched by transfer_to_npu\n",  # not an error line
    "Ascend 910B\nERROR capture failed with cudagraph_mode=FULL_DECODE_ONLY\n",  # CUDA graphs are not calls
    "Ascend 910B\nRuntimeError: torch.cuda.OutOfMemoryError in the allocator\n",  # a type, not a call
    "RuntimeError: the step failed inside torch.cuda.synchronize()\n",  # no Ascend word
])
def test_no_cuda_call_no_cuda_hardcoded(log):
    assert "cuda_hardcoded" not in ex.explain_text(log).categories


def test_a_cuda_call_where_the_catalog_reports_transfer_to_npu_is_not_cuda_hardcoded():
    log = ("from torch_npu.contrib import transfer_to_npu\n"
           "AssertionError: Torch not compiled with CUDA enabled\n"
           "RuntimeError: the step failed inside torch.cuda.synchronize()\n")
    categories = ex.explain_text(log).categories
    assert "transfer_to_npu" in categories and "cuda_hardcoded" not in categories


def test_the_counterpart_of_an_unmapped_call_is_torch_npus_mirror():
    assert cuda.counterpart("torch.cuda.reset_peak_memory_stats") == "torch.npu.reset_peak_memory_stats"


# --- the code chose "npu" by a check it never called ------------------------------------------------------------------

UNKNOWN_NPU = ("RuntimeError: Expected one of cpu, cuda, xpu, mps, meta device type at start of device string: npu\n")


@pytest.mark.parametrize("source, check", [
    ("    57         elif is_npu_available:\n", "is_npu_available"),  # IPython's traceback: line number, code
    ("    if torch.npu.is_available and use_npu:\n", "torch.npu.is_available"),
    ("--> 9 device = 'npu' if utils.is_torch_npu_available else 'cpu'\n", None),  # an expression, not an if
])
def test_an_uncalled_check_comes_first_in_the_npu_device_fix(source, check):
    log = "Traceback (most recent call last):\n  File \"run.py\", line 9, in <module>\n" + source + UNKNOWN_NPU
    report = ex.explain_text(log)
    assert report.categories[0] == "npu_device_unknown"
    fix = report.findings[0].fix
    if check:
        assert f"`{check}()`" in fix and fix.index(f"`{check}()`") < fix.index("import torch_npu"), fix
    else:
        assert "available()`" not in fix, fix


@pytest.mark.parametrize("line", ["  if is_npu_available():", "  if npu_available:", "  elif torch.npu.is_available() and x:",
                                  "# is_npu_available: a function"])
def test_a_called_check_or_a_flag_is_not_read(line):
    assert choice.read(line) is None
