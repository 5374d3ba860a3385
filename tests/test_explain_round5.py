"""Round 5 of issue 36's message-reading rules (npulab/env/explain): each rule read from the form of a message, its
false-positive guard, its English text, and linear time on pathological lines."""

from __future__ import annotations

import time

import pytest
from english_checks import CJK

from npulab.env import explain as ex

DEVICE_STRING = ("RuntimeError: Expected one of cpu, cuda, ipu, xpu, mkldnn, meta, hpu, mtia, privateuseone device "
                 "type at start of device string: npu")
BUFFSIZE = ("EZ1008: Failed to execute operator MoeDispatch. Reason: Failed to execute tiling function.\n"
            "        TraceBack (most recent call last):\n"
            "        HCCL_BUFFSIZE_EP is too SMALL, NEEDED_HCCL_BUFFSIZE = 600MB, HCCL_BUFFSIZE=256MB.[FUNC:Check]\n")


def _first(text: str) -> ex.Finding:
    report = ex.explain_text(text)
    assert report.findings, text
    return report.findings[0]


def test_torch_not_knowing_the_npu_device_means_torch_npu_was_not_imported():
    found = _first(DEVICE_STRING)
    assert found.category == "npu_device_unknown" and "import torch_npu" in found.fix
    assert _first("AttributeError: module 'torch' has no attribute 'npu'").category == "npu_device_unknown"
    assert ex.explain_text("RuntimeError: Expected one of cpu, cuda device type at start of device string: gpu").findings == []


def test_a_size_named_like_a_variable_that_is_too_small_names_the_setting_and_the_need():
    found = next(f for f in ex.explain_text(BUFFSIZE).findings if f.category == "size_setting")
    assert "HCCL_BUFFSIZE=" in found.fix and "600MB" in found.fix and "256MB" in found.cause
    assert "HCCL_BUFFSIZE_EP" not in found.fix  # the derived quantity is not what the user sets
    assert ex.explain_text("INFO the batch is too small for HCCL_BUFFSIZE_EP\n").findings == []  # no error here


def test_a_choice_only_an_ascend_plugin_registers_names_the_plugin():
    log = ("usage: vllm serve [model_tag] [options]\nvllm serve: error: argument --quantization/-q: invalid choice: "
           "'ascend' (choose from " + ", ".join(f"'method{i}'" for i in range(60)) + ", None)")
    found = _first(log)
    assert found.category == "python_exception" and "vllm-ascend" in found.fix


def test_advice_after_a_comma_and_lines_that_say_they_can_be_ignored():
    found = _first("RuntimeError: Cannot re-initialize NPU in forked subprocess. To use NPU with multiprocessing, "
                   "you must use the 'spawn' start method")
    assert found.category == "message_advice" and "spawn" in found.fix
    assert ex.explain_text("torch_npu.memory: [ERROR] [1] Get a block from the existing pool failed. Try to free "
                           "cached blocks and reallocate. This error log can be ignored.").findings == []


@pytest.mark.parametrize("log, family", [
    ("EJ0001: 2024-05-21-11:57:54.167.645 Failed to initialize the HCCP process. Reason: Maybe the last training "
     "process is running.", "device_busy"),
    ("(EngineCore pid=1) bishengir-compile: for the --target option: Cannot find option named 'Ascend310P3'!",
     "unsupported_soc"),
    ("[Log] Optype [TransData] of Ops kernel [AIcoreEngine] is unsupported. Reason: [tbe-custom]:op type TransData "
     "is not found in this op store.", "kernels_missing"),
    ("[Bug]: High TTFT for the first request on vllm-ascend", "first_run_compile"),
])
def test_catalog_patterns_of_round_5(log, family):
    assert family in ex.explain_text(log).categories[:2]


def test_op_store_line_with_the_builtin_reason_is_not_a_missing_kernel():
    log = ("[ERROR] GE(1,python): Op type Conv2D of ops kernel AIcoreEngine is unsupported, reason : [tbe-custom]:op "
           "type Conv2D is not found in this op store.[tbe-builtin]:[Static shape check]: not supported. Reason is: "
           "[fmap's channel must be a multiple of groups].")
    assert "kernels_missing" not in ex.explain_text(log).categories


def test_cuda_toolkit_evidence_keeps_a_cpu_wheel_error_silent():
    log = "nvcc: NVIDIA (R) Cuda compiler driver\nAssertionError: Torch not compiled with CUDA enabled\n"
    assert ex.explain_text(log).findings == []


def test_npu_api_names_are_ascend_evidence_and_the_caller_is_named():
    log = ('(TaskRunner pid=1)   File "/data/work/verl-0.5.0/verl/workers/actor/dp_actor.py", line 42, in <module>\n'
           "(TaskRunner pid=1)     from transformers.integrations.npu_flash_attention import pad_input\n"
           "(TaskRunner pid=1) ImportError: cannot import name 'pad_input' from "
           "'transformers.integrations.npu_flash_attention'\n")
    found = _first(log)
    assert found.category == "missing_module" and "pip install -U verl" in found.fix
    intel = "Exception from src/plugins/intel_npu_compiler/src/x.cpp:361:\nRuntimeError: Unsupported precision\n"
    assert ex.explain_text(intel).findings == []


def test_inner_error_codes_add_the_upgrade_step_only_when_nothing_else_was_found():
    log = ("import torch_npu\nRuntimeError: HCCL function error: hcclCommInitRootInfoConfig, error code is 15\n"
           "EE9999: Inner Error!\n")
    generic = ex.explain_text(log).findings[-1]
    assert generic.category == "generic_triage" and "EE9999" in generic.fix


def test_english_texts_of_round_5(monkeypatch):
    monkeypatch.setenv("NPULAB_LANG", "en")
    found = _first(DEVICE_STRING)
    text = " ".join([found.title, found.cause, found.fix])
    assert CJK.search(text) is None and "torch_npu was not imported" in found.title
    size = next(f for f in ex.explain_text(BUFFSIZE).findings if f.category == "size_setting")
    text = " ".join([size.title, size.cause, size.fix])
    assert CJK.search(text) is None and "Raise `HCCL_BUFFSIZE`" in size.fix and "600MB" in size.fix
    monkeypatch.setenv("NPULAB_LANG", "zh")
    assert "没有导入 torch_npu" in _first(DEVICE_STRING).title


@pytest.mark.parametrize("line", [
    'File "' + "/a" * 30000 + '"\nImportError: cannot import name \'x\' from \'torch_npu.y\'\n',
    'File "' + "/ab-1" * 12000 + '"\nImportError: cannot import name \'x\' from \'torch_npu.y\'\n',
    "import torch_npu\nRuntimeError: " + "A_B " * 15000 + "is too small " + "NEEDED " * 5000 + "\n",
    "import torch_npu\nerror: argument --x: invalid choice: 'npu' (choose from " + "'a', " * 12000 + ")\n",
    "import torch_npu\nRuntimeError: " + "x" * 60000 + " device string: npu\n",
])
def test_round_5_rules_stay_fast_on_long_lines(line):
    start = time.perf_counter()
    ex.explain_text(line)
    assert time.perf_counter() - start < 2.0


def test_did_you_mean_is_quoted_as_the_messages_own_advice():
    report = ex.explain_text("import torch_npu\nAttributeError: module 'torch_npu' has no attribute 'npu_rms_norm'. "
                             "Did you mean: 'npu_rmsnorm'?")
    assert "message_advice" in report.categories[:2]
    assert "npu_rmsnorm" in next(f for f in report.findings if f.category == "message_advice").fix


def test_a_programs_own_version_check_names_the_version_it_requires(monkeypatch):
    log = "import torch_npu\nImportError: flash_attn requires torch>=2.3 but found torch 2.1.0"
    assert "pip install 'torch>=2.3'" in _first(log).fix
    monkeypatch.setenv("NPULAB_LANG", "en")
    found = _first("ascend\nRuntimeError: mylib requires sympy>=1.12, but the installed version is 1.10")
    assert found.category == "requirement" and CJK.search(found.title + found.cause + found.fix) is None
    assert "pip install 'sympy>=1.12'" in found.fix and "1.10" in found.cause


@pytest.mark.parametrize("log, word", [
    ("torch_npu\nOSError: [Errno 28] No space left on device", "df -h"),
    ("torch_npu\nPermissionError: [Errno 13] Permission denied: '/usr/local/Ascend/log'", "ls -ld /usr/local/Ascend/log"),
])
def test_errno_forms_name_their_remedy(log, word, monkeypatch):
    assert word in _first(log).fix
    monkeypatch.setenv("NPULAB_LANG", "en")
    found = _first(log)
    assert word in found.fix and CJK.search(found.title + found.cause + found.fix) is None


def test_zsh_form_of_a_missing_npu_smi():
    assert ex.explain_text("zsh: command not found: npu-smi").categories[:1] == ["driver_not_mounted"]


def test_recompile_limit_warning_is_read_on_ascend_logs_only(monkeypatch):
    warning = "W1205 10:00:00.000 torch/_dynamo/convert_frame.py:762] torch._dynamo hit config.cache_size_limit (8)\n"
    found = _first("import torch_npu\n" + warning)
    assert found.category == "recompile_limit" and "mark_dynamic" in found.fix and "cache_size_limit" in found.fix
    assert ex.explain_text(warning).findings == []  # nothing of Ascend: not this tool's business
    assert ex.explain_text("import torch_npu\nW1205 torch/_dynamo/eval_frame.py] skipping frame\n").findings == []
    monkeypatch.setenv("NPULAB_LANG", "en")
    found = _first("import torch_npu\n" + warning)
    assert CJK.search(found.title + found.cause + found.fix) is None and "TORCH_LOGS" in found.fix
