"""Round 6 of issue 36's message-reading rules (npulab/env/explain): another accelerator's log gets no Ascend finding,
an error line's own command, versions, condition and failing call name the fix, prefix-less exception messages are
error lines; English text and linear time."""

from __future__ import annotations

import time

import pytest
from english_checks import CJK

from npulab.env import explain as ex

SUBPROCESS = ('Traceback (most recent call last):\n'
              '  File "/work/app/mytool/utils/device.py", line 197, in get_versions\n'
              '    result = subprocess.run(["npu-smi", "info", "-i", "1"], check=True)\n'
              '  File "/usr/local/python3.11.14/lib/python3.11/subprocess.py", line 571, in run\n'
              '    raise CalledProcessError(retcode, process.args,\n'
              "subprocess.CalledProcessError: Command '['npu-smi', 'info', '-i', '1']' returned non-zero exit status 215.\n")


def test_another_accelerator_log_gets_no_finding_even_with_npu_words():
    intel = ("benchmark_app -d NPU -m model.onnx\n[ERROR] [vpux-compiler] Got Diagnostic: error\n"
             "LLVM ERROR: Failed to infer result type(s).\n")
    assert ex.explain_text(intel).findings == []
    rocm = "RuntimeError: HIP error: invalid device function\nROCm version 6.1 on NPU-less host\n"
    assert ex.explain_text(rocm).findings == []
    cuda = ("(EngineCore pid=1) ValueError: Free memory on device cuda:1 (19.77/22.05 GiB) on startup is less than "
            "desired GPU memory utilization (0.9, 19.84 GiB).\n")
    assert ex.explain_text(cuda).findings == []
    gpu_ms = "[ERROR] DEVICE(1,python): [mindspore/ccsrc/plugin/device/gpu/hal/device/cuda_driver.cc:55] cudaFree failed\n"
    assert ex.explain_text(gpu_ms).findings == []
    # Ascend's own words decide alone: a CUDA path in an Ascend log does not silence it
    assert ex.explain_text("export CUDA_VISIBLE_DEVICES=0\nRuntimeError: call aclnnAdd failed, ERR01100\n").findings
    # bare "NPU" still counts when no other accelerator shows
    assert ex.explain_text("[Bug] [NPU] model missing 1 required positional argument: 'interpolation'\n").findings


def test_nccl_without_gpus_needs_ascend_context():
    line = "RuntimeError: ProcessGroupNCCL is only supported with GPUs, no GPUs found!\n"
    assert ex.explain_text(line).findings == []
    assert "nccl_backend" in ex.explain_text("import torch_npu\n" + line).categories


def test_the_failed_command_and_the_failing_call_are_named():
    report = ex.explain_text(SUBPROCESS)
    fix = report.findings[-1].fix
    assert "npu-smi info -i 1" in fix and "215" in fix and "get_versions" in fix and "mytool/utils/device.py" in fix
    assert "subprocess.py" not in fix  # Python's own library is not the caller


def test_versions_and_the_failure_condition_in_the_error_line_are_quoted():
    fix = ex.explain_text("torch_npu: the error appears when transformers>4.49 and torch==2.2.0 are installed; "
                          "error\n").findings[-1].fix
    assert "transformers>4.49" in fix and "torch==2.2.0" in fix
    fix = ex.explain_text("[CANN] the cann backend build failed when manually specify SOC_TYPE.\n").findings[-1].fix
    assert "manually specify SOC_TYPE" in fix
    assert "size<=1.5" not in ex.explain_text("aclnn error: size <= 1.5 failed\n").findings[-1].fix


def test_prefixless_exception_messages_and_acl_codes_are_error_lines():
    assert ex.explain_text("import torch_npu\n'NoneType' object has no attribute 'cadam32bit_grad_fp32'\n").findings
    report = ex.explain_text("ExternalError:  ACL error, the error code is : 500002.\n")
    assert [h.info.code for h in report.codes] == ["500002"] and report.findings
    assert ex.explain_text("'NoneType' object has no attribute 'x'\n").findings == []  # no Ascend evidence


def test_english_and_chinese(monkeypatch):
    monkeypatch.setenv("NPULAB_LANG", "en")
    fix = ex.explain_text(SUBPROCESS).findings[-1].fix
    assert not CJK.search(fix) and "The command that failed is `npu-smi info -i 1` (exit status 215)" in fix
    assert "The failing call is `get_versions`" in fix
    monkeypatch.setenv("NPULAB_LANG", "zh")
    assert "失败的是命令 `npu-smi info -i 1`（退出码 215）" in ex.explain_text(SUBPROCESS).findings[-1].fix


def test_linear_time_on_long_lines():
    line = "error failed when " + "a" * 200_000 + " transformers" + ">1" * 50_000 + "\n"
    start = time.perf_counter()
    ex.explain_text("torch_npu\n" + line * 3)
    assert time.perf_counter() - start < 5


def test_an_import_failure_said_in_words_is_read_like_a_missing_module():
    report = ex.explain_text("[Bug]: triton.language import error on the Atlas 300I Duo NPU\n")
    assert report.categories[0] == "missing_module" and "triton-ascend" in report.findings[0].fix
    assert "missing_module" in ex.explain_text("torch_npu\nRuntimeError: Failed to import mindspeed.ops\n").categories
    assert "missing_module" not in ex.explain_text("torch_npu\nRuntimeError: the import error above\n").categories


def test_a_device_sync_timeout_is_the_collective_timeout_family_after_any_other():
    log = ("EE1002: Stream synchronize timeout. rtDeviceSynchronize execute failed, reason=[stream sync timeout]\n")
    assert ex.explain_text(log).categories[0] == "hccl_timeout"


def test_a_capability_line_naming_the_data_type_wins_over_one_naming_only_the_op():
    log = ("[ERROR] GE(1,python3.7): GetDNNEngineName: assign engine failed, op LogicalAnd is not supported\n"
           "The reason why this op LogicalAnd is not supported by op information library[tbe-builtin] is that "
           "[Dynamic check]: data type DT_INT8 of input [x1] is not supported.\n")
    assert ex.explain_text(log).categories[0] == "dtype_unsupported"


@pytest.mark.parametrize("log", [
    # Rockchip's RKNN runtime: its transfer client is called NPUTransfer, which is no Ascend plugin class
    "I NPUTransfer: Starting NPU Transfer Client\nE RKNNAPI: rknn_init, driver open fail!\n"
    "Exception: RKNN init failed. error code: RKNN_ERR_DEVICE_UNAVAILABLE\n",
    "E RKNN: failed to open rknpu module, need to insmod rknpu driver!\nRuntimeError: init runtime failed\n",
    "hailort: HAILO_OUT_OF_PHYSICAL_DEVICES\nRuntimeError: no NPU device found\n",
    "RuntimeError: Synapse initialization failed (habana_frameworks.torch)\n",
])
def test_other_vendors_npus_and_tpus_are_another_accelerator(log):
    assert ex.explain_text(log).findings == []


def test_an_ascend_plugin_class_still_counts_as_ascend():
    assert ex.explain_text("(NPUWorker pid=7) RuntimeError: call aclnnMatmul failed, ERR01100\n").findings


def test_an_exception_after_a_full_width_colon_is_the_root_line():
    """A title or a sentence in Chinese that quotes the error after "：" still gives its root line."""
    report = ex.explain_text("部署时报错：ValueError: unsupported dtype uint16 on npu\n环境：torch_npu 2.5.1\n")
    assert report.root_error is not None and report.root_error.line == 1 and report.findings
    assert ex.explain_text("说明：ValueError 不会出现在这里\n").root_error is None  # no message after the type
