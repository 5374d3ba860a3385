"""Round 7 of issue 36's message-reading mechanisms, each on lines written here from the documented message shapes
(never a log of a set): the Ascend libraries a linker or a reader cannot find, MindSpore's Ascend plugin that does
not load, AscendCL's single-operator compile, a C extension built for an older Python and the runtime asking the
driver for a feature, codes in ONNX Runtime's "CANN failure N" form with the advice their meaning gives, the
framework whose C++ sources an error quotes, an option whose value was not accepted, a dotted class without an
attribute, and NVIDIA cards named by model as another accelerator's machine."""

from __future__ import annotations

import pytest
from english_checks import no_cjk

from npulab.env import explain as ex


@pytest.mark.parametrize("log, family", [
    ("/usr/bin/ld: cannot find -lascendcl: No such file or directory\ncollect2: error: ld returned 1 exit status",
     "env_not_loaded"),
    ("CMake Error: libascendcl.so not found, set the environment first", "env_not_loaded"),
    ("Load dynamic library: libmindspore_ascend.so.2 failed. libge_runner.so: cannot open shared object file",
     "mindspore_target"),
    ("[ERROR] CannCall: CANN failure 500001: ACL_ERROR_FAILURE ; expr=aclopCompileAndExecute(opname.c_str(), ...)",
     "op_compile_failed"),
    ("E40000: Compile op[Cast_12,] failed, oppath[/x/cast.py]", "op_compile_failed"),
    ("[ascend] SystemError: PY_SSIZE_T_CLEAN macro must be defined for '#' formats", "version_mismatch"),
    ("EE8888: Inner Error!\n  rtStreamCreateWithFlags execute failed, reason=[feature not support]", "version_mismatch"),
])
def test_documented_shapes_reach_their_family(log, family):
    assert family in ex.explain_text(log).categories[:2]


def test_warning_of_the_mindspore_plugin_is_no_finding():
    log = "[WARNING] ME(1:1,MainProcess):2024 Load dynamic library: libmindspore_ascend.so.2 failed. libx.so: missing"
    assert "mindspore_target" not in ex.explain_text(log).categories


def test_python_c_extension_message_alone_is_not_an_ascend_case():
    assert ex.explain_text("SystemError: PY_SSIZE_T_CLEAN macro must be defined for '#' formats").findings == []


def test_onnxruntime_cann_failure_code_is_decoded_with_its_advice_and_component():
    log = ("2025-01-01 [E:onnxruntime:Default, cann_call.cc:137 CannCall] CANN failure 100002: "
           "ACL_ERROR_REPEAT_INITIALIZE ; NPU=0")
    report = ex.explain_text(log)
    assert [h.info.code for h in report.codes] == ["100002"]
    fix = report.findings[-1].fix
    assert "ACL_ERROR_REPEAT_INITIALIZE" in fix and "onnxruntime-cann" in fix


def test_an_option_the_line_names_as_unparsable_is_named_in_the_fix():
    log = "NPU error: Failed to parse provider option \"arena_size\": not a number"
    assert "arena_size" in ex.explain_text(log).findings[-1].fix


def test_a_dotted_class_without_an_attribute_names_the_attribute():
    report = ex.explain_text("AttributeError: 'paddle.base.Config' object has no attribute 'enable_npu'")
    found = next(f for f in report.findings if f.category == "python_exception")
    assert "enable_npu" in found.fix and "paddle.base.Config" in found.fix


@pytest.mark.parametrize("card", ["32GB V100", "an A100 80GB", "RTX 4090"])
def test_nvidia_cards_by_model_are_another_accelerator(card):
    log = f"ValueError: No available memory for the cache blocks. on my {card}"
    assert ex.explain_text(log).findings == []


def test_new_texts_are_english_in_english(en):
    log = ("[E:onnxruntime:Default] CANN failure 100002: ACL_ERROR_REPEAT_INITIALIZE\n"
           "NPU error: Failed to parse provider option \"arena_size\"\n"
           "AttributeError: 'paddle.base.Config' object has no attribute 'enable_npu'")
    for finding in ex.explain_text(log).findings:
        no_cjk(finding.fix)


def test_onnxruntime_cann_provider_is_a_component_with_its_documented_remedy():
    log = ("EP Error /x/onnxruntime/core/providers/cann/cann_execution_provider_info.cc:40 FAIL : something\n"
           "Falling back to ['CPUExecutionProvider'] and retrying.")
    report = ex.explain_text(log)
    found = next(f for f in report.findings if f.rule == "component")
    assert "onnxruntime-cann" in found.fix and "npu_mem_limit" in found.fix


def test_the_generic_fix_reads_the_whole_line_past_the_evidence():
    filler = "x" * (ex.EVIDENCE_CHARS + 100)
    log = f"NPU error: {filler} Failed to parse provider option \"arena_size\""
    report = ex.explain_text(log)
    assert "arena_size" not in report.root_error.text and "arena_size" in report.findings[-1].fix


@pytest.mark.parametrize("log, named", [
    ("ERROR: Package 'vllm-ascend' requires a different Python: 3.8.10 not in '>=3.9'", ">=3.9"),
    ("RuntimeError: torch_npu only supports Python 3.9, 3.10 and 3.11, but got 3.12", "3.9, 3.10 and 3.11"),
    ("RuntimeError: [ascend] Python 3.12 is not supported by this release", "3.12"),
])
def test_a_python_version_requirement_is_named_in_the_fix(log, named):
    assert named in ex.explain_text(log).findings[-1].fix


def test_a_runtime_internal_error_code_gets_the_internal_error_advice():
    report = ex.explain_text("RuntimeError: NPU function error: aclrtSynchronizeStream, error code is 507000")
    assert "`507000`" in report.findings[-1].fix


def test_python_and_internal_texts_are_english_in_english(en):
    for log in ("RuntimeError: torch_npu only supports Python 3.9, 3.10 and 3.11, but got 3.12",
                "RuntimeError: [ascend] Python 3.12 is not supported by this release",
                "RuntimeError: NPU function error: aclrtSynchronizeStream, error code is 507000"):
        for finding in ex.explain_text(log).findings:
            no_cjk(finding.fix)


@pytest.mark.parametrize("log, what", [
    ("RuntimeError: libdemo.so was built for CANN 3.3.0, but the Ascend toolkit found is 5.0.4", "CANN 3.3.0"),
    ("ImportError: this torch_npu extension was compiled against torch 2.1.0, found 2.3.1", "torch 2.1.0"),
])
def test_a_binary_built_for_another_release_is_a_version_mismatch_naming_it(log, what):
    report = ex.explain_text(log)
    assert report.categories[0] == "version_mismatch" and what in report.findings[-1].fix


def test_built_for_without_ascend_evidence_is_no_ascend_family():
    assert "version_mismatch" not in ex.explain_text("ImportError: x.so was compiled against torch 2.1.0").categories


def test_an_error_said_in_words_of_not_finding_is_not_silent():
    assert ex.explain_text("在昇腾 910B 上运行 torch_npu 程序时无法加载模型").categories == [ex.GENERIC]
    assert ex.explain_text("torch_npu: unable to open the model file").categories == [ex.GENERIC]


def test_built_for_text_is_english_in_english(en):
    for finding in ex.explain_text("RuntimeError: libdemo.so was built for CANN 3.3.0 (Ascend)").findings:
        no_cjk(finding.fix)


FALLBACK = ("/x/site-packages/onnxruntime/capi/onnxruntime_inference_collection.py:69: UserWarning: Specified provider "
            "'CANNExecutionProvider' is not in available provider names.Available providers: 'CPUExecutionProvider'\n"
            "  warnings.warn(\n")


def test_the_cann_provider_missing_warning_is_not_silent():
    report = ex.explain_text(FALLBACK)
    assert report.categories == [ex.GENERIC] and "onnxruntime-cann" in report.findings[0].fix


def test_the_fallback_text_is_english_in_english(en):
    finding = ex.explain_text(FALLBACK).findings[0]
    no_cjk(finding.cause)
    no_cjk(finding.fix)


@pytest.mark.parametrize("log, pip", [
    ("RuntimeError: (PreconditionNotMet) aclnnAdd failed (at /paddle/backends/npu/kernels/add_kernel.cc:42) on NPU",
     "paddle-custom-npu"),
    ("ExternalError: ACL error, the error code is : 500002. (at /work/Paddle/paddle/fluid/operators/npu_op_runner.cc:1)",
     "paddlepaddle"),
])
def test_the_framework_whose_cpp_sources_the_error_quotes_is_named(log, pip):
    assert f"pip install -U {pip}" in ex.explain_text(log).findings[-1].fix


@pytest.mark.parametrize("line", ["torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB",
                                  "RuntimeError: CUDA error: device-side assert triggered",
                                  "RuntimeError: CUBLAS_STATUS_NOT_SUPPORTED when calling cublasGemmEx"])
def test_cuda_runtime_failures_are_another_accelerator(line):
    assert ex.explain_text(f"{line}\nValueError: No available memory for the cache blocks.").findings == []
