"""explain round 31: the Ascend driver's return codes (drvError_t) as data, torch_npu's warning that the driver and
firmware do not match, and a compiler that does not know an AscendCL or HCCL name. The lines are the sources'
templates with their slots filled, not real logs."""

import sys
from pathlib import Path

import pytest

import npulab.env.explain as ex
from npulab.env.explain.catalog import load_catalog
from npulab.env.explain.codes import CodeScanner, driver_codes
from npulab.env.explain.rules.driver import families

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
from extract_driver_error_codes import enumerators  # noqa: E402

# CANN's runtime reports a failed driver call (config_manager.cpp's form) under a torch_npu error
ASCEND = "RuntimeError: InitSoc:torch_npu/csrc/core/npu/NPUFunctions.cpp:1 NPU function error: aclrtSetDevice\n"


def test_the_table_is_the_drivers_enumeration():
    codes = driver_codes()["codes"]
    assert codes[87]["name"] == "DRV_ERROR_RESOURCE_OCCUPIED" and codes[6]["name"] == "DRV_ERROR_OUT_OF_MEMORY"
    assert codes[0xFFFE]["name"] == "DRV_ERROR_NOT_SUPPORT" and codes[6]["runtime"] == "RT_ERROR_DRV_OUT_MEMORY"
    assert 0 not in codes and all(m["name"] != "DRV_ERROR_RESERVED" for m in codes.values())
    names = {m["name"] for m in codes.values()}
    catalogue = {e.id for e in load_catalog()}
    assert set(families()) <= names and set(families().values()) <= catalogue


def test_the_extractor_counts_as_c_does():
    header = ("typedef enum tagDrvError {\n    DRV_ERROR_NONE = 0, /**< success */\n    DRV_ERROR_A = 5,\n"
              "    DRV_ERROR_B,            /**< after A */\n    DRV_ERROR_NOT_SUPPORT = 0xfffe,\n} drvError_t;\n")
    assert enumerators(header) == {0: {"name": "DRV_ERROR_NONE", "comment": "success"}, 5: {"name": "DRV_ERROR_A"},
                                   6: {"name": "DRV_ERROR_B", "comment": "after A"},
                                   65534: {"name": "DRV_ERROR_NOT_SUPPORT"}}


def _codes(text: str) -> dict[str, str]:
    scanner = CodeScanner()
    scanner.feed(1, text.encode())
    return {h.info.code: h.info.scheme for h in scanner.codes()}


def test_a_driver_calls_return_value_decodes_only_beside_the_call():
    assert _codes("halGetDeviceInfo get device type version failed , ret:87[FUNC:Init]\n") == {"87": "driver"}
    assert _codes("halMemAlloc failed: device_id=7, size=1024, type=2, drvRetCode=6!\n") == {"6": "driver"}
    assert "87" not in _codes("RuntimeError: worker exited, ret:87\n")  # no driver call: not the driver's code


@pytest.mark.parametrize("line, family", [
    ("ERROR 08-26 03:01:18 [engine.py:458]   halGetDeviceInfo get device type version failed , ret:87"
     "[FUNC:Init][FILE:config_manager.cpp][LINE:61]\n", "device_busy"),
    ("[ERROR] DRV(1,python):2026-01-01 drvGetDevNum failed, ret = 87\n", "device_busy"),
    ("[ERROR] halMemAlloc failed: device_id=0, size=15069901824, type=2, drvRetCode=6!\n", "npu_oom"),
    ("[ERROR] halGetDeviceInfo failed, ret:88\n", "device_permission"),
    ("[ERROR] halMemGetInfo failed, ret:65534\n", "version_mismatch"),
])
def test_a_mapped_driver_code_reports_its_family(line, family):
    assert family in ex.explain_text(ASCEND + line).categories[:2]


@pytest.mark.parametrize("line", [
    "[ERROR] halGetDeviceInfo get device type version failed , ret:4\n",  # INVALID_HANDLE: wider than a family
    "[ERROR] halDeviceOpen failed. device_id=1, drvRetCode=7.\n",  # INNER_ERR
    "[ERROR] worker exited, ret:87\n",  # no driver call
    "[ERROR] halGetDeviceInfo failed, ret:0x87\n",  # hexadecimal: not the enumeration's decimal value
    "INFO halGetDeviceInfo returned ret:87 while probing\n",  # not an error line
])
def test_other_codes_and_lines_report_no_driver_family(line):
    assert "device_busy" not in ex.explain_text(ASCEND.replace("RuntimeError", "INFO") + line).categories


# torch_npu's NPU_CHECK_SUPPORTED_OR_ERROR (torch_npu/csrc/core/npu/NPUException.h at f38af78), both spellings
FIRMWARE = ("[WARN]operator(),build/CMakeFiles/torch_npu.dir/compiler_depend.ts:77:Feature is not supportted and the "
            "possible cause is that driver and firmware packages do not match.\n")


@pytest.mark.parametrize("warning", [FIRMWARE, FIRMWARE.replace("supportted", "supported")])
def test_torch_npus_firmware_warning_beside_an_error(warning):
    log = warning + "RuntimeError: The Inner error is reported as above. The process exits for this inner error.\n"
    assert "version_mismatch" in ex.explain_text(log).categories[:2]


def test_torch_npus_firmware_warning_alone_is_no_failure():
    assert "version_mismatch" not in ex.explain_text(FIRMWARE + "step 10, loss 0.52\n").categories


@pytest.mark.parametrize("line", [
    "torch_npu/csrc/core/npu/NPUGraph.cpp:12:5: error: unknown type name 'aclmdlRICondHandle'\n",
    "/src/pytorch/torch_npu/csrc/framework/OpCommand.cpp:40:9: error: 'aclrtSetStreamAttribute' was not declared in "
    "this scope\n",
    "torch_npu/csrc/aten/ops.cc:7:1: error: 'aclnnFooGetWorkspaceSize' was not declared in this scope; did you mean "
    "'aclnnFoo'?\n",
    "torch_npu/csrc/distributed/comm.h:3:1: fatal error: 'HcclCommConfig' does not name a type\n",
    "torch_npu/csrc/core/npu/graph.c:9:3: error: use of undeclared identifier 'aclmdlRICaptureBegin'\n",
    "unknown type name 'aclmdlRICondHandle', unknown type name 'aclmdlRICondTaskParams'\n",  # no file named
])
def test_torch_npus_tree_or_no_tree_built_against_a_cann_that_lacks_an_ascend_name(line):
    assert "version_mismatch" in ex.explain_text(line).categories[:2]


@pytest.mark.parametrize("line", [
    # another project's tree: round 18 names the tree and its update (tests/test_explain_round18.py)
    "acl_ops.cpp:40:9: error: 'aclrtSetStreamAttribute' was not declared in this scope\n",
    "/work/llama.cpp/ggml/src/ggml-cann/aclnn_ops.cpp:1203:5: error: use of undeclared identifier 'aclnnFoo'\n",
    "aclnn_ops.cpp:1786:49: error: 'float16_t' was not declared in this scope; did you mean 'float_t'?\n",
    "x.c:1:1: error: unknown type name 'aclass'\n",  # a lower-case word after "acl": not an AscendCL name
    "main.cpp:3:1: error: 'Hccl' does not name a type\n",  # no name after the prefix
])
def test_other_undeclared_names_are_not_a_version_mismatch(line):
    assert "version_mismatch" not in ex.explain_text(line).categories
