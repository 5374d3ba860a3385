"""Round 15 of issue 36: general readings, each tested on lines written here (never a log of a set): an NPU back end's
documented warnings (Paddle's CPU fallback, torch_npu's float64 cast) as their families, after any failure; the import
notice of transfer_to_npu is no failure; a traceback pasted on one line after warnings is an error; a failure in a log
that shows no machine gets the generic finding ("never silent"); Paddle's kernel-selection errors name the operator;
a logical device id a container does not have beside ASCEND_VISIBLE_DEVICES."""

from __future__ import annotations

import pytest

from npulab.env import explain as ex
from npulab.env.explain.root import rank
from npulab.env.explain.rules.renumbered import ids

ASCEND = "[INFO] torch_npu 2.5.1 on Ascend 910B3, CANN 8.0.RC3\n"  # a line that makes a log about Ascend


# --- documented warnings of an NPU back end ---------------------------------------------------------------------------

def test_paddles_fallback_warning_is_op_fallback_and_names_the_ops():
    text = ("I1203 10:00:00.1 operator.cc:1601] missing NPU kernel: gather_nd, expected_kernel_key:data_type[int64]:"
            "data_layout[NCHW]:place[Place(npu:1)]:library_type[PLAIN], fallbacking to CPU one!\n"
            "I1203 10:00:00.2 operator.cc:1601] missing NPU kernel: scatter, expected_kernel_key:data_type[float]:"
            "data_layout[NCHW]:place[Place(npu:1)]:library_type[PLAIN], fallbacking to CPU one!\n")
    report = ex.explain_text(text)
    assert report.categories[0] == "op_fallback"
    assert "gather_nd" in report.findings[0].fix and "scatter" in report.findings[0].fix


def test_paddles_fallback_of_another_accelerator_is_not_read():
    text = ("missing XPU kernel: softmax, expected_kernel_key:data_type[float]:place[Place(xpu:0)], "
            "fallbacking to CPU one!\n")
    assert "op_fallback" not in ex.explain_text(text).categories


def test_torch_npus_double_cast_warning_is_dtype_unsupported_even_without_other_ascend_words():
    text = ("step 3 loss 0.52\n[W1203 10:00:00.1 compiler_depend.ts:120] Warning: Warning: Device do not support double"
            " dtype now, dtype cast repalce with float. (function operator())\nstep 4 loss 0.50\n")
    assert ex.explain_text(text).categories[0] == "dtype_unsupported"


def test_a_documented_warning_comes_after_the_failure_of_the_same_log():
    text = (ASCEND + "[W1203 compiler_depend.ts:120] Warning: Warning: Device do not support double dtype now, dtype "
            "cast repalce with float. (function operator())\n"
            "RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB (NPU 0; 60.00 GiB total capacity)\n")
    categories = ex.explain_text(text).categories
    assert categories[0] == "npu_oom" and categories.index("dtype_unsupported") > 0


# --- transfer_to_npu's import notice ----------------------------------------------------------------------------------

def test_transfer_to_npus_import_notice_alone_is_not_its_family():
    text = ("/opt/py/site-packages/torch_npu/contrib/transfer_to_npu.py:250: RuntimeWarning: torch.jit.script and "
            "torch.jit.script_method will be disabled by transfer_to_npu, which currently does not support them, if you "
            "need to enable them, please do not use transfer_to_npu.\nValueError: the model config has no field 'x'\n")
    assert "transfer_to_npu" not in ex.explain_text(text).categories


def test_a_jit_failure_under_transfer_to_npu_keeps_its_family():
    text = ("from torch_npu.contrib import transfer_to_npu\n"
            "RuntimeError: torch.jit.script is not supported under this tool for module Foo\n")
    assert "transfer_to_npu" in ex.explain_text(text).categories


# --- a traceback pasted on one line after warnings --------------------------------------------------------------------

def test_a_pasted_traceback_after_a_warning_is_an_error_line():
    line = ('UserWarning: x is deprecated  warnings.warn(msg) Traceback (most recent call last): File "/a/run.py", '
            'line 3, in <module> main()')
    assert rank(line) == 1
    assert rank("UserWarning: x is deprecated; see Traceback (most recent call last) in the docs") == 0


# --- never silent -----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    "服务启动后第二个请求就报错，推理进程崩溃退出\n",
    "[Bug]: 0.3.1 多卡部署时 decode 节点偶现 crash，fused_topk 算子执行失败\n",
    "RuntimeError: (PreconditionNotMet) op [pd_op.argsort] kernel output args (1) defs should equal op outputs (2)\n",
])
def test_a_failure_in_a_log_that_shows_no_machine_gets_the_generic_finding(text):
    assert ex.explain_text(text).categories == ["generic_triage"]


@pytest.mark.parametrize("text", [
    # an English traceback with no machine named: most such logs in the labelled sets are CUDA users' (measured cost)
    "ValueError: the tokenizer of this checkpoint has no pad token\n",
    "the conversion failed: the exported graph has an invalid attribute\n",
    # TensorRT's library marks an NVIDIA machine, whatever the language
    "按照文档检测不通过，提示 error code is libnvinfer.so: cannot open shared object file\n",
])
def test_an_unmarked_english_error_or_a_tensorrt_log_stays_silent(text):
    assert ex.explain_text(text).findings == []


@pytest.mark.parametrize("text", [
    "NVIDIA-SMI 550.54 | CUDA Version: 12.4\nValueError: the tokenizer of this checkpoint has no pad token\n",
    "step 10 loss 0.1\nepoch 3 done\n",
    "test_a.py ... failed to import optional plugin, skipped\n=========== 12 passed in 3.10s ===========\n",
])
def test_another_machine_a_clean_run_or_a_finished_run_stays_silent(text):
    assert ex.explain_text(text).findings == []


# --- Paddle's kernel selection ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("line, op", [
    ("RuntimeError: (PreconditionNotMet) op [pd_op.index_put] kernel input args (2) defs should equal op inputs (3)",
     "index_put"),
    ("NotFoundError: The kernel with key (npu, Undefined(AnyLayout), float32) of kernel `flash_attn` is not registered.",
     "flash_attn"),
])
def test_paddles_kernel_selection_error_names_the_operator(line, op):
    generic = ex.explain_text(line + "\n").findings[-1]
    assert generic.category == "generic_triage" and f"`{op}`" in generic.fix


# --- device ids inside a container ------------------------------------------------------------------------------------

def test_ids_expand_the_runtimes_forms():
    assert ids("0-2,4") == [0, 1, 2, 4] and ids("5") == [5] and ids("npu0") is None


def test_the_container_start_line_counts_as_the_mounted_chips():
    text = ("docker run -it -e ASCEND_VISIBLE_DEVICES=4 img bash\nexport ASCEND_DEVICE_ID=4\n"
            "RuntimeError: the NPU device is not available\n")
    assert ex.explain_text(text).categories[0] == "visible_devices"


def test_a_logical_id_the_container_does_not_have_is_visible_devices():
    text = ("kubectl exec -it infer-pod -- bash  # 进入容器\nexport ASCEND_VISIBLE_DEVICES=2,3\n"
            "export ASCEND_RT_VISIBLE_DEVICES=3\npython serve.py\nNPU not available, the model runs on the CPU\n")
    report = ex.explain_text(text)
    assert report.categories[0] == "visible_devices"
    assert "0 到 1" in report.findings[0].fix or "0 to 1" in report.findings[0].fix


@pytest.mark.parametrize("text", [
    # ids inside the container's range
    "docker run -it -e ASCEND_VISIBLE_DEVICES=2,3 img bash\nexport ASCEND_RT_VISIBLE_DEVICES=0,1\nNPU runs on the CPU\n",
    # no container: ASCEND_VISIBLE_DEVICES does nothing on a bare host, the ids are the host's
    "export ASCEND_VISIBLE_DEVICES=5\nexport ASCEND_RT_VISIBLE_DEVICES=5\nNPU runs on the CPU\n",
])
def test_ids_the_container_has_or_no_container_are_not_read(text):
    assert "visible_devices" not in ex.explain_text(text).categories


# --- vLLM's sleep mode that freed nothing -----------------------------------------------------------------------------

def test_vllm_ascends_sleep_that_freed_nothing_names_expandable_segments():
    text = ("INFO 03-02 10:00:01 [worker_v1.py:180] Sleep mode freed 0.00 GiB memory, 41.20 GiB memory is still in use.\n"
            "INFO 03-02 10:00:01 [executor_base.py:200] It took 0.001 seconds to fall asleep.\n")
    report = ex.explain_text(text)
    assert report.categories[0] == "sleep_freed_nothing"
    assert "expandable_segments:False" in report.findings[0].fix


def test_a_sleep_that_freed_memory_is_not_read():
    text = ASCEND + "INFO 03-02 10:00:01 [worker_v1.py:180] Sleep mode freed 38.51 GiB memory, 2.70 GiB memory is still in use.\n"
    assert ex.explain_text(text).findings == []


# --- dynamic shapes a chip does not support ---------------------------------------------------------------------------

def test_dynamic_shape_not_supported_on_the_chip_names_static_shapes_and_gears():
    text = ASCEND + ("E39999: Op [MatMul] of Ops kernel [AIcoreEngine] is unsupported. Reason: Dynamic shape is not "
                     "supported on this chip!\n")
    found = ex.explain_text(text).findings[0]
    assert found.category == "unsupported_soc"
    assert "input_shape" in found.fix and "dynamic_dims" in found.fix
