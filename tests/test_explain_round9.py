"""Round 9 of issue 36: general mechanisms rather than phrases of single threads, each tested on lines written here
(never a log of a set): a documented code in prose is an error line; a symptom told in words (a crash, a version
conflict, garbled output, a device not detected) is one too in a log about Ascend; two requirers that pin one
package to different versions; a framework's own switch for synchronous operators; Apple's MPS and DirectML as
other accelerators."""

from __future__ import annotations

import pytest
from english_checks import no_cjk

from npulab.env import explain as ex
from npulab.env.explain.rules import requirement

# --- a documented code in prose ("returns N") is an error line, and the log is never silent --------------------------

def test_a_code_a_call_returns_is_decoded_and_reported():
    report = ex.explain_text("On our Atlas board, aclnnFoo returns 561103 for int8 inputs; int32 is fine.\n")
    assert [h.info.code for h in report.codes] == ["561103"]
    assert report.findings and report.root_error is not None and report.root_error.line == 1


def test_a_number_a_function_returns_is_not_a_code_of_an_unknown_component():
    report = ex.explain_text("the loader returns 999999 samples per epoch\n")
    assert report.codes == [] and report.findings == []


# --- a symptom told in words, in a log about Ascend ------------------------------------------------------------------

@pytest.mark.parametrize("symptom", [
    "The server crashes right after the first request.",
    "Installing both packages gives a dependency conflict.",
    "The answers come out garbled after a few tokens.",
    "The container cannot detect the accelerator at all.",
    "两个包的版本冲突，装不到一起。",
    "推理结果全是乱码。",
])
def test_a_symptom_in_words_on_ascend_gets_a_finding(symptom):
    log = f"Hardware: Atlas 800 with Ascend 910B, CANN 8.0\n{symptom}\n"
    report = ex.explain_text(log)
    assert report.findings, symptom
    assert report.root_error is not None and report.root_error.line == 2


@pytest.mark.parametrize("log", [
    "GPU: RTX 4090, CUDA version: 12.1\nThe server crashes right after the first request.\n",  # another accelerator
    "The server crashes right after the first request.\n",  # no accelerator named at all
    "Hardware: Ascend 910B\nINFO training finished, no conflicts in the config\n",  # an INFO line is never an error
])
def test_a_symptom_in_words_elsewhere_stays_clean(log):
    assert ex.explain_text(log).findings == []


# --- two requirers pin one package to different versions ------------------------------------------------------------

def test_disagreeing_pins_lists_each_package_with_two_versions():
    pins = [("torch", "2.1.0"), ("numpy", "1.26.4"), ("torch", "2.2.0"), ("numpy", "1.26.4"), ("torch_npu", "2.1.0"),
            ("torch-npu", "2.2.0")]
    assert requirement.disagreeing_pins(pins) == {"torch": ["2.1.0", "2.2.0"], "torch-npu": ["2.1.0", "2.2.0"]}


@pytest.mark.parametrize("log", [
    "pkg-a 1.0 requires torch==2.1.0\npkg-b (from the index) pulls in torch==2.2.0\n",
    "装的时候发现 pkg-a 依赖torch==2.1.0，而 pkg-b 依赖torch==2.2.0，装不上\n",
])
def test_two_pins_of_the_torch_stack_are_a_version_mismatch(log, en):
    report = ex.explain_text("Host: Atlas 800T with Ascend 910B\n" + log)
    assert "version_mismatch" in report.categories[:2]
    found = next(f for f in report.findings if f.category == "version_mismatch")
    assert "torch==2.1.0" in found.fix and "torch==2.2.0" in found.fix  # the reading, added to the family's fix
    no_cjk(found.fix)


def test_two_pins_outside_the_stack_are_read_but_not_a_family():
    report = ex.explain_text("Ascend 910B host\nlib-a requires requests==2.31.0\nlib-b needs requests==2.25.1\n")
    assert "version_mismatch" not in report.categories
    assert any(f.rule == "requirement" and "requests" in f.title for f in report.findings)


def test_pins_in_a_log_with_no_ascend_evidence_say_nothing():
    assert ex.explain_text("pkg-a requires torch==2.1.0\npkg-b pulls in torch==2.2.0\n").findings == []


def test_one_pin_asked_twice_is_no_conflict():
    report = ex.explain_text("Ascend 910B host\nlib-a requires torch==2.1.0\nlib-b requires torch==2.1.0\n")
    assert "version_mismatch" not in report.categories


# --- a framework's own switch for synchronous operators --------------------------------------------------------------

def test_paddles_npu_status_check_names_paddles_sync_switch(en):
    report = ex.explain_text("OSError: (External) ACL error, the error code is : 507015. (at foo.cc:12)\n")
    fix = report.findings[-1].fix
    assert "FLAGS_npu_blocking_run=true" in fix and no_cjk(fix)
    assert any("PaddleCustomDevice" in s for s in report.findings[-1].sources)


def test_a_torch_npu_error_keeps_torch_npus_switch_only():
    report = ex.explain_text("RuntimeError: ACL stream synchronize failed, error code:507015\n[ERROR] torch_npu\n")
    fix = report.findings[-1].fix
    assert "FLAGS_npu_blocking_run" not in fix and "ASCEND_LAUNCH_BLOCKING" in fix


# --- Apple's MPS and DirectML are other accelerators ----------------------------------------------------------------

@pytest.mark.parametrize("log", [
    "RuntimeError: MPS backend out of memory (MPS allocated: 1 GB). The NPU path was not used.\n",
    "RuntimeError: torch_directml device failed to run the op on the npu\n",
])
def test_an_mps_or_directml_log_gets_no_ascend_advice(log):
    assert ex.explain_text(log).findings == []


# --- an Ascend variable set one letter away from a documented name ---------------------------------------------------

@pytest.mark.parametrize("a, b, near", [("ASCEND_RT_VISIBLE_DEVICE", "ASCEND_RT_VISIBLE_DEVICES", True),
                                        ("HCCL_CONECT_TIMEOUT", "HCCL_CONNECT_TIMEOUT", True),
                                        ("HCCL_EXEC_TIMEOUTS", "HCCL_EXEC_TIMEOUT", True),
                                        ("HCCL_IF_IP", "HCCL_IF_IP", False), ("HCCL_ALGO", "HCCL_BUFFSIZE", False)])
def test_one_edit(a, b, near):
    from npulab.env.explain.rules.misspelt import one_edit

    assert one_edit(a, b) is near and one_edit(b, a) is near


@pytest.mark.parametrize("line, family", [
    ("export ASCEND_RT_VISIBLE_DEVICE=2,3\nRuntimeError: device init failed on npu:0", "visible_devices"),
    ("HCCL_CONECT_TIMEOUT=1200 torchrun --nproc_per_node 8 train.py\n[ERROR] HCCL(1): timeout", "hccl_timeout"),
    ("os.environ[\"ASCEND_RT_VISIBLE_DEVICE\"] = \"1\"\nRuntimeError: npu:1 is not available", "visible_devices"),
])
def test_a_misspelt_variable_reaches_the_family_of_the_documented_one(line, family, en):
    report = ex.explain_text(line)
    assert family in report.categories[:2]
    found = next(f for f in report.findings if f.category == family)
    assert found.rule == "misspelt_variable" and no_cjk(found.fix)


def test_documented_and_foreign_variables_are_not_misspelt():
    for line in ("export ASCEND_RT_VISIBLE_DEVICES=0,1\nRuntimeError: failed", "export CUDA_VISIBLE_DEVICE=0\nRuntimeError: x",
                 "export ASCEND_SOMETHING_NEW=1\nRuntimeError: failed on Ascend"):
        assert all(f.rule != "misspelt_variable" for f in ex.explain_text(line).findings), line


# --- a missing library in other words ---------------------------------------------------------------------------------

@pytest.mark.parametrize("line", ["\tlibhccl.so => not found", "运行时提示 libhccl.so 找不到", "cannot find libhccl.so anywhere",
                                  "the container is missing libhccl.so"])
def test_a_library_not_found_in_other_words_is_read_as_a_missing_library(line):
    from npulab.env.explain.rules import library

    assert library.read(line)["library"] == "libhccl.so"


@pytest.mark.parametrize("line", ["version `GLIBCXX_3.4.30' not found (required by /opt/lib/libfoo.so)",
                                  "ld: cannot find -lhccl", "No module named 'libfoo'"])
def test_other_not_found_lines_are_not_a_missing_library(line):
    from npulab.env.explain.rules import library

    assert library.read(line) is None


# --- an Ascend variable set to a value its documentation does not allow ----------------------------------------------

def test_a_visible_device_list_out_of_order_reaches_visible_devices(en):
    report = ex.explain_text("export ASCEND_RT_VISIBLE_DEVICES=3,1\nRuntimeError: no NPU is available on this node\n")
    assert report.categories[0] == "visible_devices"
    found = report.findings[0]
    assert found.rule == "variable_value" and "3,1" in found.fix and no_cjk(found.fix)


def test_a_value_outside_its_documented_range_is_read():
    from npulab.env.explain.rules import values

    hit = values.read("HCCL_CONNECT_TIMEOUT=5 torchrun train.py")
    assert hit and hit["variable"] == "HCCL_CONNECT_TIMEOUT" and hit["value"] == "5"


@pytest.mark.parametrize("line", [
    "export ASCEND_RT_VISIBLE_DEVICES=0,1,2,3",  # a documented value
    "export ASCEND_RT_VISIBLE_DEVICES=$DEVICES",  # a value the shell computes
    "For the real call stack, please set the environment variable ASCEND_LAUNCH_BLOCKING=1.",  # the message's advice
    "export MY_OWN_SETTING=whatever",  # not a documented variable
    "        HCCL_BUFFSIZE_EP is too small, HCCL_BUFFSIZE=5.[FUNC:Check]",  # a message quoting a value, not a command
])
def test_documented_computed_advised_and_foreign_values_are_not_read(line):
    from npulab.env.explain.rules import values

    assert values.read(line) is None


@pytest.mark.parametrize("line, names", [("$ export ASCEND_RT_VISIBLE_DEVICES=1,0", ["ASCEND_RT_VISIBLE_DEVICES"]),
                                         ("HCCL_IF_IP=1.2.3.4 HCCL_BUFFSIZE=5 python x.py", ["HCCL_IF_IP", "HCCL_BUFFSIZE"]),
                                         ("ENV HCCL_BUFFSIZE=5", ["HCCL_BUFFSIZE"]),
                                         ("the limit, HCCL_BUFFSIZE=5, is too small", [])])
def test_user_settings_are_the_assignments_of_a_command(line, names):
    from npulab.env.explain.rules.values import user_settings

    assert [s.name for s in user_settings(line)] == names


# --- the release the error lines themselves say works ----------------------------------------------------------------

@pytest.mark.parametrize("line, found", [
    ("RuntimeError: foo failed on Ascend; downgrading to torch-npu==2.1.0 works", ("torch-npu", "2.1.0")),
    ("报错 AttributeError: 'X' object has no attribute 'y'，降级到 mypkg 1.4.2 后正常", ("mypkg", "1.4.2")),
    ("ImportError: cannot import name 'z' — with transformers 4.40.0 everything works", ("transformers", "4.40.0")),
    ("RuntimeError: it fails with torch 2.5.1 on the NPU", None),
])
def test_working_release(line, found):
    from npulab.env.explain.triage import working_release

    assert working_release(line) == found


def test_the_generic_fix_pins_the_release_the_log_says_works(en):
    report = ex.explain_text("RuntimeError: aclnnFoo failed on the NPU; switching back to mypkg 1.4.2 works\n")
    fix = report.findings[-1].fix
    assert "pip install mypkg==1.4.2" in fix and no_cjk(fix)
