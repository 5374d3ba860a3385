"""explain round 26: CANN's error-code registry (npulab/data/cann_error_registry.yaml, from the error manager's own
tables) read as data: a code whose registered class denotes a catalogue family reports it, any other user-class code
its registered solution when the log printed none, and the decoded code is named by its class."""

import npulab.env.explain as ex
from npulab.env.explain.catalog import load_catalog
from npulab.env.explain.codes import decode
from npulab.env.explain.registry import registry
from npulab.env.explain.rules.base import rules_data
from npulab.env.explain.rules.registry import family_of


def _categories(log: str) -> list[str]:
    return ex.explain_text(log).categories


def test_registry_holds_the_error_managers_entries_with_pinned_sources():
    codes = registry()
    assert len(codes) > 550  # hicann/runtime's error_code.json, hicann/ge's and hicann/opbase's registered codes
    assert codes["EI0008"]["title"] == "Package_Error_Incorrect_HCCL_Version"
    assert codes["E10001"]["title"] == "Invalid_Argument"  # a graph engine code, from GE's C++ source
    assert all("/blob/" in e["source"] and len(e["source"].split("/blob/")[1].split("/")[0]) == 40
               for e in codes.values())  # every entry cites its file at a commit


def test_class_titles_map_to_catalogue_families():
    families = {e.id for e in load_catalog()}
    assert {f["family"] for f in rules_data()["registry"]["families"]} <= families
    assert family_of("Package_Error_Incorrect_HCCL_Version") == "version_mismatch"
    assert family_of("Package_Error_Incorrect_Driver_Version") == "version_mismatch"
    assert family_of("Resource_Busy") == "device_busy"
    assert family_of("Invalid_Argument") is None
    # every mapped class exists in the registry (a pattern no code carries would be a needle for nothing)
    titles = {e.get("title", "") for e in registry().values()}
    assert all(any(family_of(t) == f["family"] for t in titles) for f in rules_data()["registry"]["families"])


def test_a_coded_version_inconsistency_is_version_mismatch():
    log = ("ERROR : GeOp5_0GEOP::::DoRunAsync Failed\nError Message is :\n"
           "EI0008: The HCCL versions are inconsistent: tag [HcomAllReduce_1_0], local_version [1.83], "
           "remote_version [1.84]\n")
    assert _categories(log)[0] == "version_mismatch"


def test_a_coded_busy_resource_without_its_solution_line():
    log = "[ERROR] RUNTIME(123,python):2025-01-01-00:00:00 [device.cc:100] EL0005: The resources are busy.\n"
    report = ex.explain_text(log)
    assert report.categories[0] == "device_busy"
    assert "Close applications not in use" in report.findings[0].fix


def test_an_operator_data_type_check_by_its_code_alone():
    log = ("[ERROR] TBE(1,python):2025-01-01 E60005: The dtype of [x] of op[Cast] must in [float16, float32], "
           "actual dtype is [float64]\n")
    assert _categories(log)[0] == "dtype_unsupported"


def test_another_user_code_gets_its_registered_solution_unless_the_log_printed_one():
    log = "RuntimeError: EI0014: Value 1.0 for ranktable variable version is invalid. Expected value: 2.0.\n"
    report = ex.explain_text(log)
    assert report.categories[0] == "cann_registry"
    assert "valid cluster configuration in the ranktable file" in report.findings[0].fix
    printed = log + "        Solution: Try again with a valid ranktable.\n"
    assert "cann_registry" not in _categories(printed)
    # an internal-error code (9000-9999) is not given the registry's generic advice: the lines after it tell the cause
    assert "cann_registry" not in _categories("RuntimeError: EZ9999: Inner Error!\n")


def test_a_code_outside_an_error_line_or_inside_a_word_is_not_read():
    assert "cann_registry" not in _categories("[INFO] EI0014 is the ranktable check code\n")
    assert "cann_registry" not in _categories("RuntimeError: failed at XEI0014Y\n")


def test_the_decoded_code_is_named_by_its_registered_class():
    info = decode("EI0014")
    assert info is not None and info.name == "Ranktable_Check_Failed" and "hicann/runtime" in info.source
    # an operator check's code, whose module character the documented module table lacks, decodes through the registry
    checked = decode("E60005")
    assert checked is not None and checked.name == "Not_Supported_Data_Type"
    assert decode("E69999") is None  # neither in the module table nor registered


def test_a_code_below_9000_the_registry_files_as_an_inner_error_is_not_called_a_usage_error():
    inner = [code for code, entry in registry().items()
             if entry.get("title", "").startswith("Inner_Error") and code[2:].isdigit() and int(code[2:]) < 9000]
    assert inner, "the registry files some codes below 9000 as inner errors"
    for code in inner:
        meaning = decode(code).meaning
        assert "内部错误" in meaning and "用户类" not in meaning, (code, meaning)
    assert "用户类" in decode("EI0014").meaning  # a registered usage error keeps its number's band
