"""Round 12 of issue 36: general readings of a message's structure, each tested on lines written here (never a log
of a set): a network port that is already taken, in any wording, read in an Ascend log as HCCL's sockets
(``hccl_network``); a chip of the Atlas inference series in an error line, read as ``unsupported_soc`` after any
family the log shows more directly. Both stay silent on other accelerators' logs and on logs with no error."""

from __future__ import annotations

import pytest

from npulab.env import explain as ex
from npulab.env.explain.rules import chip, port

CANN_CONTEXT = "[ERROR] ASCEND(123,python):2026-12-01-10:00:00 runtime\n"  # makes a log about Ascend


# --- a port already taken ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("line", [
    "[ERROR] HCCL(60570,python): socket bind returned EADDRINUSE (Address already in use) for 10.0.0.1:60000",
    "E39999: bind failed on the device port 16666",
    "[ERROR] HCCL: socket listen failed, the port has been bound already by another process",
    "ERROR: HCCL host port conflict between two services on this node",
    "报错：HCCL 通信端口被占用，建链失败",
    "RuntimeError: Bind_Failed when two jobs share the card",
])
def test_a_taken_port_in_an_ascend_log_is_the_hccl_network_family(line):
    report = ex.explain_text(CANN_CONTEXT + line + "\n")
    assert "hccl_network" in report.categories[:2], report.categories
    found = next(f for f in report.findings if f.category == "hccl_network")
    assert found.rule == port.NAME and "HCCL_HOST_SOCKET_PORT_RANGE" in found.fix


@pytest.mark.parametrize("line", [
    "The port number is 60000",                            # a port, no conflict
    "ERROR: NCCL bind failed: Address already in use",     # another back end's port
    "RuntimeError: the cache is already in use",           # "in use" without a port
    "DistNetworkError: failed to bind to [::]:29500 (errno: 98 - Address already in use).",  # torch's MASTER_PORT
])
def test_port_near_misses(line):
    assert port.read(line) is None


def test_a_taken_port_without_ascend_evidence_stays_silent():
    assert ex.explain_text("ERROR: bind failed: Address already in use\n").findings == []


def test_torchs_rendezvous_port_keeps_the_master_port_advice():
    report = ex.explain_text(CANN_CONTEXT + "DistNetworkError: failed to bind to [::]:29500 (errno: 98 - Address "
                                            "already in use).\n")
    assert "hccl_network" not in report.categories and "--master_port" in report.findings[0].fix


# --- an Atlas inference-series chip in an error line ---------------------------------------------------------------

@pytest.mark.parametrize("text", ["Ascend310P3", "310B1", "Atlas 300I Duo", "300iDuo", "300V Pro", "Atlas 200I DK A2",
                                  "Orange Pi AIpro", "Ascend 310", "昇腾310P"])
def test_inference_chips_are_read_in_their_written_forms(text):
    assert chip.read(f"RuntimeError: failed on {text} here") is not None


@pytest.mark.parametrize("line", ["Atlas 800T A2 with Ascend910B3", "Ascend910", "step 310 of 3100", "port 3100",
                                  "version 2.3.10", "A3100P", "batch 300 images"])
def test_other_chips_and_numbers_are_not_inference_chips(line):
    assert chip.read(line) is None


def test_an_error_on_an_inference_chip_is_the_unsupported_soc_family():
    report = ex.explain_text("ERROR: pip install vllm-ascend failed, my card is an Atlas 300I Duo\n")
    assert report.categories[0] == "unsupported_soc", report.categories


def test_the_chip_reading_comes_after_a_family_the_log_shows_directly():
    line = ("RuntimeError: call aclnnCast failed, detail:EZ1001: The param dtype not implemented for DT_BFLOAT16, "
            "should be in dtype support list [DT_FLOAT16,DT_FLOAT,]. on Ascend310P3\n")
    report = ex.explain_text(line)
    assert report.categories[:2] == ["dtype_unsupported", "unsupported_soc"], report.categories


def test_an_inference_chip_outside_an_error_line_stays_silent():
    assert ex.explain_text("INFO: device Ascend310P3 ready\nAll 10 tests passed\n").findings == []
    assert ex.explain_text("Running inference on Atlas 300I Duo, 30 fps\n").findings == []


def test_another_accelerators_log_with_a_chip_name_stays_silent():
    text = "ERROR: CUDA error: out of memory on NVIDIA A100 (host also has an Atlas 300I card)\n"
    assert "unsupported_soc" not in ex.explain_text(text).categories


@pytest.mark.parametrize("lang, words", [("zh", ("推理系列", "端口")), ("en", ("inference-series", "port"))])
def test_both_readings_speak_the_users_language(lang, words, monkeypatch):
    monkeypatch.setenv("NPULAB_LANG", lang)
    soc = next(f for f in ex.explain_text("ERROR: install failed on Atlas 300I Duo\n").findings
               if f.category == "unsupported_soc")
    net = next(f for f in ex.explain_text(CANN_CONTEXT + "ERROR: HCCL port conflict, bind failed\n").findings
               if f.category == "hccl_network")
    assert words[0] in soc.fix and words[1] in net.fix


# --- a symptom told in words: a wrong result, a check that silently answers wrong, the work found on the CPU --------

@pytest.mark.parametrize("line", [
    "The output was incorrect when using transfer_to_npu",
    "torch.npu.is_available() silently returns False on this host",
    "the launcher mis-detects the device and picks the wrong worker",
    "I deployed the model on the Ascend card but it is running on CPU",
    "模型部署在昇腾卡上，但是跑在CPU上",
])
def test_a_symptom_in_words_is_an_error_line_in_an_ascend_log(line):
    report = ex.explain_text(CANN_CONTEXT.replace("[ERROR]", "[INFO]") + line + "\n")
    assert report.findings and report.root_error is not None, report.categories
    assert report.root_error.text.startswith(line[:10]), report.root_error


@pytest.mark.parametrize("line", ["Loaded the tokenizer on CPU", "the wrong answer rate dropped to 2%", "All tests passed"])
def test_words_near_a_symptom_are_not_errors(line):
    assert ex.explain_text(CANN_CONTEXT.replace("[ERROR]", "[INFO]") + line + "\n").findings == []


def test_a_symptom_without_ascend_evidence_stays_silent():
    assert ex.explain_text("The result is incorrect and it runs on CPU\n").findings == []


# --- a variable's documented role names its family -----------------------------------------------------------------

@pytest.mark.parametrize("line, family", [
    ("RuntimeError: ASCEND_RT_VISIBLE_DEVICES must be in ascending order, got 1,0", "visible_devices"),
    ("ERROR: wrong value of ASCEND_DEVICE_ID for rank 3", "visible_devices"),
    ("[ERROR] HCCL: the interface HCCL_SOCKET_IFNAME=eth9 is invalid", "hccl_network"),
    ("ERROR: HCCL_CONNECT_TIMEOUT out of range", "hccl_timeout"),
    ("RuntimeError: ASCEND_OPP_PATH is not set", "env_not_loaded"),
])
def test_an_error_about_a_documented_variable_is_its_roles_family(line, family):
    report = ex.explain_text(CANN_CONTEXT + line + "\n")
    assert family in report.categories[:2], report.categories


def test_a_variable_only_advised_is_not_the_cause():
    report = ex.explain_text(CANN_CONTEXT + "RuntimeError: op failed, please set ASCEND_RT_VISIBLE_DEVICES to debug\n")
    assert "visible_devices" not in report.categories


def test_every_mapped_variable_is_documented_and_every_family_exists():
    from npulab.env.explain.rules.base import rules_data
    from npulab.env.explain.rules.setting import _documented

    mapped = rules_data()["setting"]["variable_families"]
    assert set(mapped) <= set(ex.CATEGORIES)
    undocumented = {n for names in mapped.values() for n in names} - _documented()
    assert undocumented <= {"ASCEND_VISIBLE_DEVICES", "HCCL_HOST_SOCKET_PORT_RANGE", "HCCL_NPU_SOCKET_PORT_RANGE"}, undocumented


# --- the NPU not detected in a container ---------------------------------------------------------------------------

@pytest.mark.parametrize("line", [
    "the worker cannot detect the NPU devices",
    "RuntimeError: No NPU device found",
    "ERROR: no davinci devices were detected",
    "容器里识别不到NPU",
])
def test_a_device_not_seen_in_a_container_is_the_driver_not_mounted_family(line):
    text = CANN_CONTEXT + "started the worker with docker run --name w ascend-image\n" + line + "\n"
    assert ex.explain_text(text).categories[0] == "driver_not_mounted", ex.explain_text(text).categories


def test_a_device_not_seen_outside_a_container_is_not_read_as_a_mount():
    report = ex.explain_text(CANN_CONTEXT + "RuntimeError: No NPU device found\n")
    assert "driver_not_mounted" not in report.categories and report.findings


@pytest.mark.parametrize("line", ["cannot find the config file", "no devices left to test", "the device was found"])
def test_container_near_misses(line):
    from npulab.env.explain.rules import container

    assert container.read(line) is None


# --- the work on the CPU: the Ascend back end's documented limits ---------------------------------------------------

def test_a_gguf_model_on_the_cpu_gets_the_cann_backends_data_types():
    text = "Deployed Qwen-14B-GGUF (Q4_K_M) on an Ascend 910B3 NPU, but it is running on CPU only\n"
    report = ex.explain_text(text)
    found = next(f for f in report.findings if f.rule == "cpu_fallback")
    assert "Q8_0" in found.fix and "Q4_0" in found.fix and "FP16" in found.fix
    assert report.findings.index(found) <= 1


def test_the_cpu_without_a_documented_back_end_is_only_the_root_line():
    report = ex.explain_text(CANN_CONTEXT.replace("[ERROR]", "[INFO]") + "the model is running on CPU\n")
    assert report.categories == ["generic_triage"]


def test_the_cpu_in_a_healthy_log_stays_silent():
    assert ex.explain_text("llama.cpp: loaded model.gguf, 32 layers offloaded to NPU, 0 layers on CPU\n").findings == []


@pytest.mark.parametrize("lang, word", [("zh", "容器"), ("en", "container")])
def test_the_container_reading_speaks_the_users_language(lang, word, monkeypatch):
    monkeypatch.setenv("NPULAB_LANG", lang)
    text = CANN_CONTEXT + "in the docker container\nERROR: no NPU devices found\n"
    found = next(f for f in ex.explain_text(text).findings if f.category == "driver_not_mounted")
    assert word in found.fix
