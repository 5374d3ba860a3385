"""explain round 21: a package pip or uv finds no version of, placed by the course's stack table (npulab/data/stacks.yaml
``outside_pypi``) on an index other than PyPI, gets that index and the install command; an aclnnStatus is a code."""

import npulab.env.explain as ex
from npulab.env.explain.rules import component, package_index

UV = ("  × No solution found when resolving dependencies:\n"
      "  ╰─▶ Because there is no version of triton-ascend==3.2.1 and you require triton-ascend==3.2.1, we can conclude "
      "that your requirements are unsatisfiable.\n")


def test_the_requirement_is_read_from_pips_and_uvs_wording():
    pip = component.read("ERROR: No matching distribution found for triton_ascend==3.2.2")
    assert pip["id"] == "pip_no_distribution" and pip["requirement"] == "triton_ascend==3.2.2"
    uv = component.read("Because torch-npu was not found in the package registry and you require torch-npu, we can")
    assert uv["requirement"] == "torch-npu"


def test_a_package_the_stack_table_places_off_pypi_gets_its_index_and_command():
    said = package_index.hint("triton_ascend==3.2.2")
    assert "https://mirrors.huaweicloud.com/ascend/repos/pypi" in said
    assert "pip install triton_ascend==3.2.2 --extra-index-url https://mirrors.huaweicloud.com/ascend/repos/pypi" in said
    assert package_index.hint("numpy==9.9") is None and package_index.hint("") is None


def test_uvs_resolver_report_is_an_error_the_finding_names_the_index():
    report = ex.explain_text(UV)
    found = next(f for f in report.findings if f.category == "component")
    assert "--extra-index-url https://mirrors.huaweicloud.com/ascend/repos/pypi" in found.fix


def test_an_aclnn_status_is_read_as_its_code_and_names_the_parameter_check():
    """"… GetWorkspaceSize failed with aclnnStatus=161001" (the aclnn API's return type, aclnnStatus)."""
    report = ex.explain_text("RuntimeError: aclnnFooGetWorkspaceSize failed with aclnnStatus=161001.\n")
    assert [h.info.code for h in report.codes] == ["161001"] and report.categories[0] == "aclnn_param_check"
