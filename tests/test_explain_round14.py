"""Round 14 of issue 36: general readings, each tested on lines written here (never a log of a set): more marks of
another accelerator's host; the names and
meanings of EI0011, EI0019, EI0020 and EL0019; the message's own advice after an exception's colon or a comma; a
native crash while a command imports a module (its wheel); a release said to work on another machine or environment;
a log that ends in a finished run's summary."""

from __future__ import annotations

import pytest

from npulab.env import explain as ex
from npulab.env.explain.codes import decode
from npulab.env.explain.rules.advice import clauses
from npulab.env.explain.triage import working_release

ASCEND = "[INFO] torch_npu 2.5.1 on Ascend 910B3, CANN 8.0.RC3\n"  # a line that makes a log about Ascend


# --- messages of a CPU-only torch wheel: still the family on an Ascend host (their gating was tried and reverted) ---

@pytest.mark.parametrize("line, family", [
    ("AssertionError: Torch not compiled with CUDA enabled", "cuda_hardcoded"),
    ("RuntimeError: Distributed package doesn't have NCCL built in", "nccl_backend"),
])
def test_the_same_message_on_an_ascend_host_keeps_its_family(line, family):
    assert family in ex.explain_text(ASCEND + line + "\n").categories[:2]


# --- another accelerator's host ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("mark", [
    "| GPU  Name  Persistence-M | Bus-Id  Disp.A | Volatile Uncorr. ECC | GPU-Util  Compute M. |",
    "loading /usr/lib/libQnnHtp.so for the Hexagon backend",
    "OpenCL: Adreno (TM) 740 compiler",
    "import torch_mlu  # Cambricon MLU370",
    "Failed to load delegate from libedgetpu.so.1",
    "import intel_extension_for_pytorch as ipex",
    "neuronx-cc compile --framework XLA",
])
def test_another_accelerator_silences_an_npu_word_error(mark):
    text = f"{mark}\nRuntimeError: the NPU worker failed to start\n"
    assert ex.explain_text(text).findings == []


def test_an_ascend_log_that_mentions_cuda_names_still_speaks():
    text = ASCEND + ("  File \"/usr/local/lib/python3.10/site-packages/vllm/v1/worker/gpu_model_runner.py\", line 9\n"
                     "RuntimeError: ACL stream synchronize failed, error code:507035\n")
    assert ex.explain_text(text).findings


# --- the documented codes round 13 matched, now decoded ---------------------------------------------------------------

@pytest.mark.parametrize("code, name", [
    ("EI0011", "Resource_Error_Insufficient_Device_Memory"),
    ("EI0019", "Communication_Error_Bind_IP_Port"),
    ("EI0020", "Communication_Error_Bind_IP_Port"),
    ("EL0019", "Resource_Error_Insufficient_Device_Memory"),
])
def test_the_codes_have_their_documented_names(code, name, monkeypatch):
    info = decode(code)
    assert info is not None and info.known and info.name == name and info.source.startswith("https://www.hiascend.com/")
    monkeypatch.setenv("NPULAB_LANG", "en")
    assert decode(code).meaning.isascii() and "NPU" in decode(code).meaning


# --- the message's own advice -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("line, advice", [
    ("ValueError: Please pin sentencepiece below 0.3 for this tokenizer", "Please pin sentencepiece below 0.3"),
    ("RuntimeError: kernel launch broke, consider passing --no-fuse to the converter", "consider passing --no-fuse"),
    ("ImportError: protobuf 5 is not supported; pip install 'protobuf<5' to fix it", "pip install 'protobuf<5'"),
    ("RuntimeError: To avoid this, set MY_TOOL_WORKSPACE=/data/ws before the run", "set MY_TOOL_WORKSPACE=/data/ws"),
    ("error: the repo holds custom code; pass --allow-custom to load it", "pass --allow-custom"),
])
def test_advice_is_read_after_a_colon_a_comma_or_a_semicolon(line, advice):
    assert any(c.startswith(advice) for c in clauses(line)), clauses(line)


def test_a_bare_imperative_without_content_is_not_advice():
    assert clauses("INFO: use cache") == []
    assert clauses("RuntimeError: To fix this,") == []


def test_the_advice_is_the_first_rule_finding_of_an_ascend_log():
    report = ex.explain_text(ASCEND + "ValueError: Please pin sentencepiece below 0.3 for this tokenizer\n")
    assert report.categories[0] == "message_advice" and "sentencepiece" in report.findings[0].fix


# --- a native crash while a command imports a module ------------------------------------------------------------------

def test_a_native_crash_at_import_names_the_module_and_its_wheel():
    text = ASCEND + ('$ python -c "import my_npu_kernels; import torch"\n'
                     "terminate called after throwing an instance of 'std::bad_alloc'\n"
                     "  what():  std::bad_alloc\nAborted (core dumped)\n")
    report = ex.explain_text(text)
    fix = report.findings[-1].fix
    assert report.categories == ["generic_triage"] and "my_npu_kernels" in fix and "wheel" in fix


def test_a_python_exception_after_an_import_is_not_a_native_crash():
    text = ASCEND + '>>> import my_npu_kernels\nRuntimeError: my_npu_kernels needs CANN 8\n'
    assert "wheel" not in ex.explain_text(text).findings[-1].fix


# --- a release said to work elsewhere ---------------------------------------------------------------------------------

@pytest.mark.parametrize("line, release", [
    ("on another machine with onnx 1.15.0 it works", ("onnx", "1.15.0")),
    ("在另一台服务器上的python3.9.18的版本可以正常运行", ("python", "3.9.18")),
    ("切换到 paddlepaddle 2.6.1 后正常", ("paddlepaddle", "2.6.1")),
])
def test_a_release_said_to_work(line, release):
    assert working_release(line) == release


def test_a_python_that_works_elsewhere_is_named_in_the_fix_wherever_the_line_stands():
    text = ASCEND + ("ERROR: Could not install my_plugin\n" + "building wheel ...\n" * 20
                     + "在另一个环境里 python3.9.18 的版本可以正常安装\n")
    fix = ex.explain_text(text).findings[-1].fix
    assert "python=3.9" in fix


# --- a finished run ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("last", [
    "================ 42 passed, 3 skipped in 12.50s ================",
    "Training completed. Do not forget to share your model on huggingface.co/models =)",
    "训练完成",
])
def test_a_log_that_ends_in_success_gets_no_finding(last):
    text = ASCEND + "[ERROR] first warmup try failed, retrying\n" + last + "\n"
    assert ex.explain_text(text).findings == []


@pytest.mark.parametrize("last", ["=========== 1 failed, 41 passed in 12.50s ===========", "still running"])
def test_a_log_that_does_not_end_in_success_still_speaks(last):
    text = ASCEND + "[ERROR] first warmup try failed, retrying\n" + last + "\n"
    assert ex.explain_text(text).findings


def test_an_exception_before_a_success_line_still_speaks():
    text = ASCEND + "RuntimeError: ACL stream synchronize failed, error code:507035\nTraining completed\n"
    assert ex.explain_text(text).findings


# --- a missing Python dependency retold in words ----------------------------------------------------------------------

@pytest.mark.parametrize("line", [
    "finetuning fails: no modules named 'sympy'",
    "the image is missing the sympy Python library, so the operator compile returns an error",
    "报错：环境里缺少 sympy 库",
])
def test_a_cann_dependency_retold_in_words_gives_its_family(line):
    assert ex.explain_text(ASCEND + line + "\n").categories[0] == "cann_python_deps"


@pytest.mark.parametrize("line", ["error: missing the libascend_hal library", "error: 缺少 libhccl.so 库"])
def test_a_shared_library_is_not_read_as_a_python_module(line):
    assert "missing_module" not in ex.explain_text(ASCEND + line + "\n").categories


# --- an undefined symbol: whose library, by name, folder or the package the line names -------------------------------

@pytest.mark.parametrize("line", [
    "ImportError: /usr/local/Ascend/nnal/atb/latest/atb/cxx_abi_1/lib/libmy_adapter.so: undefined symbol: my_fn",
    "torch-npu==2.6.0 import fails: undefined symbol: MsprofReportApi",
])
def test_an_undefined_symbol_of_the_ascend_stack_is_a_version_mismatch(line):
    assert ex.explain_text(line + "\n").categories[0] == "version_mismatch"


def test_an_undefined_symbol_of_an_unknown_library_stays_a_rule_finding():
    line = "ImportError: /opt/tools/libfoo.so: undefined symbol: foo_init"
    assert ex.explain_text(ASCEND + line + "\n").categories[0] == "missing_symbol"
