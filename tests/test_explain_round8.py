"""Round 8 of issue 36's message-reading mechanisms, each on lines written here from the documented message shapes
(never a log of a set): chips and op types in lower or camel case or glued to
Chinese text, a user's question whether a chip or a data type is supported, a device index of -1 and two NPU indices in one
error line."""

from __future__ import annotations

import pytest
from english_checks import no_cjk

from npulab.env import explain as ex


@pytest.mark.parametrize("log, family", [
    ("[ERROR] Get regInfo failed, The binary_info_config.json of socVersion [ascend310b] does not support opType [Foo]",
     "unsupported_soc"),
    ("[Question]: 昇腾 Atlas 300I 上的 310P3 支持bfloat16吗？运行报错", "dtype_unsupported"),
    ("请问现在支持昇腾310P3了吗？NPU 模式运行失败", "unsupported_soc"),
    ("Does the 910A support bfloat16? RuntimeError when loading the model on the NPU", "dtype_unsupported"),
    ("AssertionError: Expects tensor to be on the compute device npu:7, was on npu:0", "visible_devices"),
])
def test_documented_shapes_reach_their_family(log, family):
    assert family in ex.explain_text(log).categories[:2]


def test_device_minus_one_asks_every_process_to_set_its_device(en):
    report = ex.explain_text("RuntimeError: Could not compute stream ID for Foo on device -1 (npu)")
    assert report.categories[0] == "device_unset" and "set_device" in report.findings[0].fix
    assert no_cjk(report.findings[0].fix)


def test_a_cann_line_of_rank_minus_one_is_not_an_unset_device():
    log = "[ERROR] 2026-01-01-00:00:00 (PID:1, Device:0, RankID:-1) ERR00100 PTA call acl api failed"
    assert "device_unset" not in ex.explain_text(log).categories


def test_one_npu_index_named_twice_is_not_two_devices():
    assert "visible_devices" not in ex.explain_text("RuntimeError: copy from npu:0 to npu:0 failed").categories


def test_an_import_that_failed_on_a_shared_library_is_the_library_case():
    log = "ERROR vllm_ascend: Failed to import vllm_ascend_C:libfoo_kernels.so: cannot open shared object file: No such file"
    report = ex.explain_text(log)
    assert report.categories[0] == "missing_library" and "libfoo_kernels.so" in report.findings[0].fix


@pytest.mark.parametrize("log", [
    "昇腾 910B 上用 npu 推理速度比 cpu 还慢",
    "使用 NPU 后端推理时，首次推理和每次换输入都会导致速度变慢",
    "Inference on the Ascend NPU is much slower than on the CPU",
])
def test_a_user_saying_the_npu_run_is_slow_gets_online_compilation(log):
    assert ex.explain_text(log).categories[0] == "first_run_compile"


def test_slowness_without_ascend_evidence_is_no_finding():
    assert ex.explain_text("Training is very slow, slower than the CPU").findings == []


def test_advice_wrapped_over_indented_lines_is_quoted_whole():
    log = ("CMake Error at cmake/ascend.cmake:36 (message):\n"
           "  Failed to find the toolkit, please set the correct\n"
           "  FOO_ASCEND_SDK_ROOT or manually set FOO_ASCEND_SDK_VERSION as\n"
           "  FOO_ASCEND_SDK_VERSION=8.0.0\n"
           "Call Stack (most recent call first):\n")
    found = next(f for f in ex.explain_text(log).findings if f.category == "message_advice")
    assert "FOO_ASCEND_SDK_VERSION=8.0.0" in found.fix


def test_a_traceback_frame_under_an_advice_line_is_not_read_as_its_continuation():
    log = "RuntimeError: NPU call failed, please check the device and\n  File \"/x/ascend.py\", line 3, in run\n"
    found = next(f for f in ex.explain_text(log).findings if f.category == "message_advice")
    assert "File" not in found.fix


@pytest.mark.parametrize("log", [
    "RuntimeError: SetPrecisionMode:x.cpp:1 NPU function error: AclSetCompileopt(ACL_PRECISION_MODE, m), error code is 500001",
    "[NPU] paddle.utils.run_check() fails: ACL error, the error code is : 500001",
])
def test_an_initialisation_step_failing_with_500001_is_cann_python_deps(log):
    assert ex.explain_text(log).categories[0] == "cann_python_deps"


def test_500001_of_an_ordinary_operator_stays_generic():
    log = "RuntimeError: MatMul: NPU function error: aclnnMatmul, error code is 500001"
    assert "cann_python_deps" not in ex.explain_text(log).categories


def test_a_none_attribute_quotes_the_earlier_line_saying_something_is_unavailable(en):
    log = ("/x/site-packages/foo/ext.py:34: UserWarning: foo was compiled without GPU support. Foo kernels are unavailable.\n"
           "[INFO] loading the model on npu:0\n"
           "AttributeError: 'NoneType' object has no attribute 'foo_kernel'\n")
    found = next(f for f in ex.explain_text(log).findings if f.category == "python_exception")
    assert "Foo kernels are unavailable" in found.fix and "Line 1" in found.fix and no_cjk(found.fix)


def test_a_later_unavailable_line_is_not_the_cause_of_an_earlier_none():
    log = ("AttributeError: 'NoneType' object has no attribute 'npu_kernel'\n"
           "[WARNING] torch_npu: profiler is not available\n")
    found = next(f for f in ex.explain_text(log).findings if f.category == "python_exception")
    assert "profiler" not in found.fix


def test_a_submodule_of_a_module_that_is_not_a_package_names_the_stray_module(en):
    log = "import torch_npu\nModuleNotFoundError: No module named 'foo_attn.ops'; 'foo_attn' is not a package"
    found = next(f for f in ex.explain_text(log).findings if f.category == "missing_module")
    assert "foo_attn.py" in found.fix and no_cjk(found.title + found.cause + found.fix)


def test_a_linker_undefined_reference_names_the_defining_library_and_how_to_check_it(en):
    log = ("/usr/bin/ld: main.o: in function `main': main.cpp:(.text+0x1c): undefined reference to "
           "`torch_npu::init_npu(std::string const&)'\ncollect2: error: ld returned 1 exit status")
    found = ex.explain_text(log).findings[0]
    assert found.category == "missing_symbol" and "torch_npu::init_npu" in found.fix and "nm -D" in found.fix
    assert "torch_npu" in found.cause and "PyTorch (torch)" not in found.cause and no_cjk(found.fix)


def test_an_invalid_version_is_an_installed_package_to_find(en):
    report = ex.explain_text("pip install mindspore-foo on the NPU: ERROR: Invalid version: '1.2.3.abc123'")
    found = next(f for f in report.findings if f.category == "requirement")
    assert "1.2.3.abc123" in found.fix and "pip uninstall" in found.fix and no_cjk(found.fix)
