"""Round 16 of issue 36: general readings, each tested on lines written here (never a log of a set): installed
releases a package listing shows that do not pair (documented pairs: torch_npu and torch, torchvision and torch,
torchaudio and torch, vllm-ascend and vLLM, a wheel's +torch label) as ``version_mismatch``; a second fallback for the
PrivateUse1 dispatch key (two out-of-tree back ends in one process) as ``two_accelerators``; Paddle-Lite's NNAdapter
as weak NPU evidence and Paddle-Lite as the component that raised."""

from __future__ import annotations

import pytest

from npulab.env import explain as ex
from npulab.env.explain.rules.pairing import release

ASCEND = "[INFO] torch_npu on Ascend 910B3, CANN 8.0.RC3\n"  # a line that makes a log about Ascend
FAILED = "RuntimeError: the model failed to start\n"


@pytest.mark.parametrize("listing", [
    "torch            2.5.1\ntorch-npu        2.4.0.post2\n",  # pip list
    "torch==2.6.0\ntorch_npu==2.5.1\n",  # pip freeze
    "torch 2.5.1\ntorchvision 0.16.0\n",  # torchvision 0.16 is torch 2.1's
    "torch 2.5.1\ntorchaudio 2.1.0\n",
    "vllm                0.8.4\nvllm_ascend         0.7.3rc2\n",
    "torch 2.5.1\nmindietorch 2.0a3+torch2.1.0.abi0\n",  # a wheel built for torch 2.1.0
])
def test_a_listing_of_releases_that_do_not_pair_is_version_mismatch(listing):
    report = ex.explain_text(ASCEND + FAILED + listing)
    assert report.categories[0] == "version_mismatch"


@pytest.mark.parametrize("listing", [
    "torch            2.5.1\ntorch-npu        2.5.1rc1\ntorchvision      0.20.1\ntorchaudio       2.5.1\n",
    "torch 2.10.0+cpu\ntorch-npu 2.10.0.post2\n",
    "vllm 0.7.3+empty\nvllm_ascend 0.7.3rc2\n",
    "vllm 0.27.1.dev0+g4bdc8a788\nvllm-ascend 0.26.0rc1\n",  # a development build of vLLM is not compared
    "torch 2.12.0\ntorchaudio 2.11.0\n",  # torchaudio 2.11 is built against the stable ABI: later torch releases fit
])
def test_a_listing_of_pairs_that_fit_says_nothing_of_versions(listing):
    assert "version_mismatch" not in ex.explain_text(ASCEND + FAILED + listing).categories


def test_a_listing_in_a_log_of_another_accelerator_says_nothing():
    text = "torch 2.5.1+cu121\ntorchvision 0.16.0\nRuntimeError: CUDA error: out of memory\n"
    assert ex.explain_text(text).findings == []


def test_the_listing_is_named_in_the_fix():
    report = ex.explain_text(ASCEND + FAILED + "torch 2.6.0\ntorch-npu 2.5.1\n")
    assert "2.6.0" in report.findings[0].fix and "2.5.1" in report.findings[0].fix


def test_release_numbers():
    assert release("2.5.1rc1") == (2, 5, 1) and release("0.20.1", 2) == (0, 20) and release("2.1.0.post3") == (2, 1, 0)


# --- the PrivateUse1 key registered twice ------------------------------------------------------------------------------

@pytest.mark.parametrize("key", ["PrivateUse1", "AutogradPrivateUse1"])
def test_a_second_privateuse1_fallback_is_two_accelerators(key):
    text = ("terminate called after throwing an instance of 'c10::Error'\n"
            f"  what():  Tried to register multiple backend fallbacks for the same dispatch key {key}; previous "
            "registration registered at a.cpp:1, new registration registered at b.cpp:2\n")
    assert ex.explain_text(text).categories[0] == "two_accelerators"


def test_a_second_fallback_for_another_key_is_not_two_accelerators():
    text = "RuntimeError: Tried to register multiple backend fallbacks for the same dispatch key Conjugate\n"
    assert "two_accelerators" not in ex.explain_text(text).categories


# --- Paddle-Lite's NNAdapter ---------------------------------------------------------------------------------------------

def test_an_nnadapter_failure_is_not_silent_and_names_paddle_lite():
    text = ("[F 12/ 1 14:47:20.689 ...le-Lite/lite/kernels/nnadapter/engine.cc:294 Engine] Check failed: "
            "(device_names.size() > 0): 0!>0 No device specified.\n")
    report = ex.explain_text(text)
    # round 18: the failing component (Paddle-Lite's C++ sources) first, the generic finding naming its pip name last
    assert report.categories == ["failing_component", "generic_triage"] and "paddlelite" in report.findings[-1].fix


def test_nnadapter_beside_another_accelerator_stays_silent():
    text = ("[I lite/kernels/nnadapter/engine.cc:100] device rockchip_npu, librknpu_ddk.so loaded\n"
            "[F lite/kernels/nnadapter/engine.cc:294 Engine] Check failed: model build\n")
    assert ex.explain_text(text).findings == []


# --- an aclnn call that failed on a stated requirement ---------------------------------------------------------------

def test_an_aclnn_failure_with_a_stated_requirement_is_aclnn_param_check():
    text = ("RuntimeError: npu_rotary_mul:op_plugin/RotaryMulKernelNpuOpApi.cpp:40 NPU function error: call "
            "aclnnRotaryPositionEmbedding failed, error code is 561002\n"
            "[ERROR] 2026-01-01-00:00:00 (PID:1, Device:0, RankID:-1) ERR00100 PTA call acl api failed.\n"
            "EZ9999: Inner Error!\n"
            "EZ9999[PID: 1] 2026-01-01-00:00:00.000.000 (EZ9999): the last dim of x must be 64 or 128, "
            "but got 80.[FUNC:CheckShape][FILE:rotary_tiling.cpp][LINE:12]\n")
    report = ex.explain_text(text)
    assert report.categories[0] == "aclnn_param_check" and "must be 64 or 128" in report.findings[0].fix


def test_a_requirement_without_a_failed_aclnn_call_is_not_aclnn_param_check():
    text = ("[ERROR] HCCL(1,python):2026-01-01 [hccl_comm.cc:10] EI9999: buffer size must be larger than 200MB\n"
            "RuntimeError: HCCL init failed on Ascend 910B\n")
    assert "aclnn_param_check" not in ex.explain_text(text).categories


def test_a_failed_aclnn_call_without_a_requirement_is_not_read_as_one():
    text = ("RuntimeError: call aclnnAdd failed, error code is 561000\nEZ9999: Inner Error!\n"
            "EZ9999[PID: 1] (EZ9999): kernel launch timeout.[FUNC:Launch][FILE:a.cpp][LINE:1]\n")
    assert "aclnn_param_check" not in ex.explain_text(text).categories


# --- never silent: a last line that tells how the process ended ---------------------------------------------------------

ASCEND_RUN = "[INFO] loading the model on Ascend 910B with torch_npu 2.5.1\nstep 1 loss 2.31\n"


@pytest.mark.parametrize("last", ["Process finished with exit code 139", "进程已结束，退出代码为 -1", "exit status 1",
                                  "exitcode  : -9 (pid: 1234)", "The process was killed by signal 9", "Terminated",
                                  "[1]    12345 killed     python train.py", "stuck at loading the weights",
                                  "卡住了，没有任何输出"])
def test_an_ascend_log_that_ends_abnormally_gets_the_generic_finding(last):
    report = ex.explain_text(ASCEND_RUN + last + "\n")
    assert report.categories == ["generic_triage"] and report.root_error.line == 3


@pytest.mark.parametrize("last", ["Process finished with exit code 0", "进程已结束，退出代码为 0", "step 2 loss 2.10"])
def test_an_ascend_log_that_ends_normally_stays_silent(last):
    assert ex.explain_text(ASCEND_RUN + last + "\n").findings == []


def test_an_abnormal_end_only_counts_on_the_last_line():
    assert ex.explain_text(ASCEND_RUN + "exit status 1\nretrying\nstep 2 loss 2.10\n").findings == []


@pytest.mark.parametrize("log", ["python train.py\nKilled\n", "training on a V100\nProcess finished with exit code 1\n"])
def test_an_abnormal_end_without_ascend_evidence_stays_silent(log):
    assert ex.explain_text(log).findings == []
