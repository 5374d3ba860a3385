"""explain round 28: versions said not to match (MindSpore's release check at import, the same said in Chinese), CANN's
"soc version … does not match" in any of its forms, and torch_npu's own C bindings (``_C._npu_<name>``) as Ascend
evidence. The lines are the sources' templates with their slots filled, not real logs."""

import pytest

import npulab.env.explain as ex

# mindspore/run_check/_check_version.py (MindSpore 2.10.0): AscendEnvChecker.check_version and the custom-operator check
MINDSPORE_CHECK = (
    "[WARNING] ME(2353:139862008907584,MainProcess):2026-01-01-00:00:00.000.000 "
    "[mindspore/run_check/_check_version.py:288] MindSpore version 2.3.0 and Ascend AI software package (Ascend Data "
    "Center Solution)version 7.0 does not match, the version of software package expect one of ['8.0']. Please "
    "refer to the match info on: https://www.mindspore.cn/install\n")
CUSTOM_OP_CHECK = ("[WARNING] ME(1:1,MainProcess):2026-01-01 [mindspore/run_check/_check_version.py:307] The version 7.0 "
                   "used for compiling the custom operator does not match Ascend AI software package version 8.0 in the "
                   "current environment.\n")


@pytest.mark.parametrize("log", [
    MINDSPORE_CHECK + "Traceback (most recent call last):\n  File \"train.py\", line 1, in <module>\n",
    CUSTOM_OP_CHECK + "RuntimeError: Launch kernel failed, name: Custom_add\n",
    "Cann软件与Ascend驱动版本不匹配\n",
    "RuntimeError: 训练报错，torch_npu 与 CANN 的版本不配套\n",
])
def test_versions_said_not_to_match_read_as_a_version_mismatch(log):
    assert "version_mismatch" in ex.explain_text(log).categories[:2]


@pytest.mark.parametrize("log", [
    # MindSpore's GPU build checking CUDA: another accelerator's log, no Ascend finding
    "[WARNING] ME(1:1,MainProcess):2026-01-01 [mindspore/run_check/_check_version.py:115] MindSpore version 2.3.0 and "
    "cuda version 10.1 does not match, CUDA version [['11.1', '11.6']] are supported by MindSpore officially.\n",
    # versions compared with no Ascend word, and a shape that "does not match": not this family
    "ValueError: model version 2 and tokenizer version 3 does not match\n",
    "RuntimeError: NPU tensor shape [2, 3] does not match the expected shape [3, 2]\n",
    "这两个文件的版本不一致\n",
])
def test_other_mismatches_are_not_a_version_mismatch(log):
    assert "version_mismatch" not in ex.explain_text(log).categories


def test_mindspores_check_alone_is_no_failure():
    """The release check is a WARNING at import: a run that works prints it too, so with no error line it says nothing."""
    log = MINDSPORE_CHECK + "epoch: 1 step: 10, loss is 0.52\nTraining completed\n"
    assert "version_mismatch" not in ex.explain_text(log).categories
    assert "version_mismatch" not in ex.explain_text(MINDSPORE_CHECK + "epoch: 1 step: 10, loss is 0.52\n").categories


@pytest.mark.parametrize("log", [
    "The soc version=Ascend910B1 has been set, device cannot be created on real soc version=Ascend910B3, the current "
    "input soc version does not match the NPU type. rtSetDevice:ErrCode=507033 GEInitialize failed\n",
    "[ERROR] the socversion Ascend910B1 of bin package does not match the current device socverison Ascend310P3.\n",
])
def test_a_soc_version_that_does_not_match_the_chip(log):
    assert "soc_mismatch" in ex.explain_text(log).categories[:2]


def test_torch_npus_own_bindings_show_an_ascend_log():
    log = ('Error in atexit._run_exitfuncs: Traceback (most recent call last):\n'
           '  File "/usr/lib/python3.7/site-packages/torch/__init__.py", line 429, in _npu_shutdown\n'
           '    torch._C._npu_shutdown()\nRuntimeError\n')
    assert ex.explain_text(log).findings  # an Ascend error (Ascend's PyTorch fork), no longer silent
    bare = log.replace("torch._C._npu_shutdown()", "torch._C._shutdown()").replace("_npu_shutdown", "_shutdown")
    assert not ex.explain_text(bare).findings  # the same traceback without the NPU binding shows no machine
