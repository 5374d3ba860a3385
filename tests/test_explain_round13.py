"""Round 13 of issue 36: readings of what a message is made of, each tested on lines written here (never a log of a
set): CANN's documented error names and codes of HCCL and the driver, under whatever wrapping a log gives them;
Python's own words for a distribution that is not installed; a shared library compared without its version or the
hash a wheel's bundled copy carries; a pin on PyTorch's CPU-index variant; and two marks of a machine that is not an
Ascend host (a Windows drive in a traceback, Habana Gaudi's libraries)."""

from __future__ import annotations

import pytest

from npulab.env import explain as ex
from npulab.env.explain.documented import fold
from npulab.env.explain.rules import module

CANN_CONTEXT = "[ERROR] ASCEND(123,python):2026-12-01-10:00:00 runtime\n"  # makes a log about Ascend


# --- CANN's documented error names and codes -------------------------------------------------------------------------

@pytest.mark.parametrize("line, family", [
    ("[PID: 1] 2026-01-01 Communication_Error_Bind_IP_Port(EI0020): Failed to enable listening for the socket.",
     "hccl_network"),
    ("EI0019: listen on the device NIC failed", "hccl_network"),
    ("Communication_Error_Timeout(EI0002): The wait execution of the Notify register times out.", "hccl_timeout"),
    ("Resource_Error_Insufficient_Device_Memory(EI0011): Failed to allocate [3MB] bytes of NPU memory.", "npu_oom"),
    ("EL0019: Failed to allocate 2GB device memory requested by the DRV(hccl) module.", "npu_oom"),
])
def test_a_documented_code_or_name_gives_its_family(line, family):
    report = ex.explain_text(line + "\n")
    assert family in report.categories[:2], report.categories


def test_a_code_still_counts_when_the_log_wraps_its_name():
    text = ("E0517 transfer_executor_base.cpp:263] Failed to connect, errmsg: Communication_Error_Bin\n"
            "d_IP_Port(EI0020): Failed to enable listening for the NPU network adapter socket.\n")
    assert ex.explain_text(text).categories[0] == "hccl_network"


# --- a distribution that is not installed ----------------------------------------------------------------------------

@pytest.mark.parametrize("line, name", [
    ("importlib.metadata.PackageNotFoundError: No package metadata was found for accelerate", "accelerate"),
    ("pkg_resources.DistributionNotFound: The 'sentencepiece>=0.1.99' distribution was not found and is required by "
     "the application", "sentencepiece"),
])
def test_pythons_words_for_a_missing_distribution_name_it(line, name):
    assert module.read(line)["module"] == name


def test_a_package_built_for_another_accelerator_gets_the_npu_alternative_not_an_install_command():
    report = ex.explain_text(CANN_CONTEXT + "importlib.metadata.PackageNotFoundError: No package metadata was found "
                                            "for flash_attn\n")
    found = next(f for f in report.findings if f.rule == module.NAME)
    assert "npu_fusion_attention" in found.fix and "pip install flash" not in found.fix


def test_an_ordinary_missing_package_keeps_its_install_command():
    report = ex.explain_text(CANN_CONTEXT + "importlib.metadata.PackageNotFoundError: No package metadata was found "
                                            "for accelerate\n")
    found = next(f for f in report.findings if f.rule == module.NAME)
    assert "pip install accelerate" in found.fix


# --- a shared library under any of its names -------------------------------------------------------------------------

@pytest.mark.parametrize("written, compared", [
    ("libgomp.so.1: cannot", "libgomp.so: cannot"),
    ("/x/scikit_learn.libs/libgomp-d22c30c5.so.1.0.0: cannot", "/x/scikit_learn.libs/libgomp.so: cannot"),
    ("libstdc++.so.6.0.30 missing", "libstdc++.so missing"),
    ("libascend_hal.so", "libascend_hal.so"),
    ("mylib.so.1", "mylib.so.1"),  # not a "lib…" name: left as written
])
def test_library_names_are_compared_without_version_or_bundling_hash(written, compared):
    assert fold(written) == compared


def test_a_documented_message_matches_a_wheels_bundled_copy_of_the_library():
    text = ("[ERROR] 2026-03-01 MindSpore import failed\n"
            "ImportError: /usr/lib/python3.9/site-packages/scikit_learn.libs/libgomp-d22c30c5.so.1.0.0: cannot "
            "allocate memory in static TLS block\n")
    report = ex.explain_text(text)
    assert any("LD_PRELOAD" in f.fix for f in report.findings[:2]), [f.fix for f in report.findings]


# --- a pin on PyTorch's CPU-index variant ----------------------------------------------------------------------------

def test_a_cpu_variant_pin_points_to_pytorchs_cpu_index():
    text = ("ERROR: Cannot install torch==2.6.0 and torch-npu==2.6.0 because these package versions have conflicting "
            "dependencies.\nThe conflict is caused by:\n    The user requested torch==2.6.0\n"
            "    torch-npu 2.6.0 depends on torch==2.6.0+cpu\n")
    fix = ex.explain_text(text).findings[0].fix
    assert "download.pytorch.org/whl/cpu" in fix and "torch==2.6.0+cpu" in fix


def test_a_plain_conflict_says_nothing_of_the_cpu_index():
    text = ("ERROR: Cannot install torch==2.5.0 and torch-npu==2.6.0 because these package versions have conflicting "
            "dependencies.\nThe conflict is caused by:\n    torch-npu 2.6.0 depends on torch==2.6.0\n")
    fix = ex.explain_text(text).findings[0].fix
    assert "pip check" in fix and "whl/cpu" not in fix


# --- machines that are not Ascend hosts ------------------------------------------------------------------------------

NCCL_MISSING = 'RuntimeError: Distributed package doesn\'t have NCCL built in\n'


def test_nccl_missing_on_an_ascend_host_is_explained():
    text = ('Traceback (most recent call last):\n  File "/home/user/train.py", line 44, in train\n' + NCCL_MISSING)
    assert ex.explain_text(text).findings


def test_the_same_message_from_a_windows_machine_is_not_ascends():
    text = ('Traceback (most recent call last):\n  File "E:\\VC\\hubert\\train.py", line 44, in train\n' + NCCL_MISSING)
    assert ex.explain_text(text).findings == []


def test_habana_gaudis_libraries_mark_another_accelerator():
    text = ("[PT_BRIDGE][error] /npu-stack/pytorch-integration/backend/graph.cpp: Graph compile failed. synStatus=26\n"
            "[PT_BRIDGE][error] /usr/lib/habanalabs/libhl_logger.so(logStackTrace)\n")
    assert ex.explain_text(text).findings == []
