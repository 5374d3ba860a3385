"""Round 9b of issue 36: classes of logs read from the development half of pool 2026-12j, each tested on lines
written here (never a log of a set): a library of the Ascend stack the index lacks by name, known by the folder the
loader names it in; a Python package said missing in words (a report in prose, not pip's or Python's message); an
extension's op with no implementation for the NPU device (mmcv's device registry); a launcher that chose no
communication back end for the NPU ("unknown")."""

from __future__ import annotations

import pytest

from npulab.env import explain as ex
from npulab.env.explain.rules import library, module, packages

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
