"""explain round 27: more of CANN's registered error classes read as catalogue families, each by the registry's own
text (explain_rules.yaml registry.families): the stream synchronisation time-out, a device that does not come up, the
root-info detection of a communicator, an invalid device ID, an operator's dtype check, the compiler's Python side and
a device whose process limit the previous job still fills."""

import pytest

import npulab.env.explain as ex
from npulab.env.explain.registry import registry
from npulab.env.explain.rules.registry import family_of

MAPPED = {
    "EE1002": "hccl_timeout",
    "E39009": "device_setup_failed",
    "E30005": "device_setup_failed",
    "E39007": "device_setup_failed",
    "E39005": "device_setup_failed",
    "E30006": "device_setup_failed",
    "E39004": "device_setup_failed",
    "E39006": "device_setup_failed",
    "E39011": "device_setup_failed",
    "E40020": "cann_python_deps",
    "E40024": "cann_python_deps",
    "E30003": "device_busy",
    "EI0015": "hccl_network",
    "EL0002": "visible_devices",
    "EZ0007": "dtype_unsupported",
    "EZ0019": "dtype_unsupported",
    "EZ0020": "dtype_unsupported",
    "EZ0021": "dtype_unsupported",
}


def _message(code: str) -> str:
    """The registered message of a code, its %s slots filled, as CANN prints it after the code."""
    return registry()[code]["message"].replace("%ld", "1").replace("%s", "x")


@pytest.mark.parametrize(("code", "family"), sorted(MAPPED.items()))
def test_a_registered_class_reads_as_its_family(code, family):
    assert family_of(registry()[code]["title"]) == family
    log = f"[ERROR] RUNTIME(4242,python):2026-01-01-00:00:00.000.000 {code}: {_message(code)}\n"
    assert family in ex.explain_text(log).categories[:2]  # the aim's measure: among the first two findings


def test_the_compilers_missing_python_module_by_its_code_comes_first():
    log = ("[ERROR] GE(2116,python):2026-01-01-00:00:00.000.000 E40020: Failed to import Python module "
           "[tbe.common.utils]. Reason: [No module named 'decorator'].\n")
    assert ex.explain_text(log).categories[0] == "cann_python_deps"


def test_classes_wider_than_one_family_stay_unmapped():
    # EZ3002's labelled logs carry op_fallback, unsupported_soc or a cause the catalogue lacks; EL0015 names another
    # container's binding and a missing permission; the operator base's shape checks name no family's cause
    for code in ("EZ3002", "EZ3003", "EL0015", "EZ0008", "EL0001"):
        assert family_of(registry()[code]["title"]) is None, code


def test_a_mapped_code_on_an_info_line_is_not_read():
    for code in ("EE1002", "EZ0019"):
        log = f"[INFO] {code} is registered as {_message(code)}\n"
        assert MAPPED[code] not in ex.explain_text(log).categories, code


def test_a_mapped_message_whose_code_was_cut_off_is_read_by_its_registered_template():
    hccl = ("RuntimeError: The HCCL versions are inconsistent: tag [HcomAllReduce_1_0], local_version [1.83], "
            "remote_version [1.84]\n")
    assert ex.explain_text(hccl).categories[0] == "version_mismatch"
    dtype = "RuntimeError: Parameter self of aclnnAdd has incorrect dtype DT_DOUBLE. It should be [DT_FLOAT].\n"
    assert ex.explain_text(dtype).categories[0] == "dtype_unsupported"
    # at WARNING/INFO level, or a template too short to be CANN's alone (29 literal characters), it is not read
    assert ex.explain_text("[INFO] " + hccl.removeprefix("RuntimeError: ")).categories == []
    assert "device_setup_failed" not in ex.explain_text("ERROR: Failed to connect the device.\n").categories


def test_templates_are_those_of_mapped_classes_and_long_enough():
    from npulab.env.explain.rules.registry import MIN_LITERAL, _literals, _templates

    codes = [code for code, _pattern, _longest in _templates()]
    assert {"EI0008", "EI0015", "EZ0019", "E39007"} <= set(codes)
    assert "E39009" not in codes and "EL0005" not in codes  # "Failed to connect the device.", "The resources are busy."
    for code in codes:
        assert family_of(registry()[code]["title"])
        assert sum(map(len, _literals(registry()[code]["message"]))) >= MIN_LITERAL
