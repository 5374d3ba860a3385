"""explain round 29: message classes MindSpore prints for any operator — its kernel selection on Ascend that found no
kernel (before 2.4: ``kernel_select_ascend.cc``; from 2.4: ``ge_kernel_executor.cc``), and its aclnn wrapper's
"aclnnXGetWorkSpaceSize call failed" with no reason from CANN (MindSpore's FAQ: a CANN older than the operator). The
lines are the sources' messages with their slots filled (operator and data types chosen here), not real logs."""

import pytest

import npulab.env.explain as ex

# kernel_select_ascend.cc CollectNotMatchMessage (mindspore-ai/mindspore at 2b08f1d): "#umsg#" becomes a new line
NO_VALID_KERNEL = (
    "TypeError: Can not select a valid kernel info for [Erf] in AI CORE or AI CPU kernel info candidates list.\n"
    "----------------------------------------------------\n- Kernel Info Candidates List:\n"
    "----------------------------------------------------\nAI CORE:\n"
    "(<Float16xDefaultFormat>, object_type: [Tensor]) -> (<Float16xDefaultFormat>, object_type: [Tensor], "
    "kernel_type: TBE_KERNEL, op_type: UNKNOWN_OP_TYPE)\n"
    "(<Float32xDefaultFormat>, object_type: [Tensor]) -> (<Float32xDefaultFormat>, object_type: [Tensor], "
    "kernel_type: TBE_KERNEL, op_type: UNKNOWN_OP_TYPE)\n"
    "AI CPU:\n{}\nPlease check the given data type or shape:\n")
NO_KERNEL = ("RuntimeError: Can not find any available kernel info for: Lgamma. Maybe the operator is not supported on "
             "Ascend platform.\n")
# ge_kernel_executor.cc PrintQueryAclTypeErr (the MindSpore 2.10.0 wheel's plugin/libmindspore_ascend.so.2)
NO_PROTOTYPE = ("[ERROR] DEVICE(1,1,python):2026-01-01-00:00:00.000.000 [mindspore/ccsrc/plugin/device/ascend/hal/"
                "hardware/ge_kernel_executor.cc:139] PrintQueryAclTypeErr] The current [Default/Cumsum-op12] operator "
                "did not match any operator prototype library. The reason is:\n")
DTYPE_REASON = ("The supported input and output data types for the current operator are:\n"
                "InputDesc [0] support {float16,float,}\nInputDesc [1] support {int32,int64,}\n"
                "OutputDesc [0] support {float16,float,}\n"
                "But current operator's input and output data types is:\n"
                "InputDesc [0] is Float64\nInputDesc [1] is Int32\nInputDesc [0] is Float64\n")
ADAPTER_REASON = "The current operator needs to be supplemented with an adapter, please check in `transform` directory.\n"
# the exception 2.4+ raises (kernel_select_ascend.cc CollectNotMatchMessage, mindspore-ai/mindspore_test at 0fd4f04)
TYPES_EXCEPTION = ("TypeError: Ascend operator selection failed info: The supported input and output data types for the "
                   "current operator are: node is Default/network/Cumsum-op3\nInputDesc [0] support {float16,float,}\n"
                   "OutputDesc [0] support {float16,float,}\n\nBut current operator's input and output data types is:\n"
                   "InputDesc [0] is Float64\nOutputDesc [0] is Float64\n")
ADAPTER_EXCEPTION = ("RuntimeError: The current operator needs to be supplemented with an adapter, please check in "
                     "`transform` directory. node is Default/Lgamma-op1\n")
# MindSpore's aclnn wrapper; the operators are the two its FAQ pages name (operators_api, tools; r2.10.0)
WORKSPACE = "RuntimeError: aclnnRingAttentionUpdateGetWorkSpaceSize call failed, please check!\n"


def _fix(log: str, family: str) -> str:
    return next(f.fix for f in ex.explain_text(log).findings if f.category == family)


def test_no_valid_kernel_is_a_data_type_the_kernels_lack():
    report = ex.explain_text(NO_VALID_KERNEL)
    assert report.categories[0] == "dtype_unsupported"
    fix = _fix(NO_VALID_KERNEL, "dtype_unsupported")
    assert "`Erf`" in fix and "(Float16)" in fix and "(Float32)" in fix


def test_no_prototype_with_the_data_types_names_both_sides():
    log = NO_PROTOTYPE + DTYPE_REASON
    assert ex.explain_text(log).categories[0] == "dtype_unsupported"
    fix = _fix(log, "dtype_unsupported")
    assert "`Cumsum`" in fix and "InputDesc [0] {float16, float}" in fix
    assert "InputDesc [0] Float64" in fix and fix.count("InputDesc [0] Float64") == 1  # the output row is not an input


def test_the_exception_form_names_the_node_and_the_types():
    assert ex.explain_text(TYPES_EXCEPTION).categories[0] == "dtype_unsupported"
    fix = _fix(TYPES_EXCEPTION, "dtype_unsupported")
    assert "`Cumsum`" in fix and "InputDesc [0] {float16, float}" in fix and "InputDesc [0] Float64" in fix


@pytest.mark.parametrize("log", [NO_KERNEL, NO_PROTOTYPE + ADAPTER_REASON, ADAPTER_EXCEPTION])
def test_no_kernel_at_all_is_an_operator_the_npu_lacks(log):
    assert "op_fallback" in ex.explain_text(log).categories[:2]
    assert "dtype_unsupported" not in ex.explain_text(log).categories


@pytest.mark.parametrize("log", [
    # the header with a reason that is neither: no family of this rule
    NO_PROTOTYPE + "The current operator is specified not to select ACL. Please contact the relevant engineer for help.\n",
    # the candidates' and descriptors' rows without the message that heads them (a model summary, a debug dump)
    "(<Float16xDefaultFormat>, object_type: [Tensor]) -> (<Float16xDefaultFormat>, object_type: [Tensor])\n"
    "InputDesc [0] is Float32\nepoch 1 done\n",
])
def test_rows_without_their_message_say_nothing_of_data_types(log):
    assert "dtype_unsupported" not in ex.explain_text(log).categories


def test_a_workspace_call_without_a_reason_is_a_cann_older_than_the_operator():
    report = ex.explain_text(WORKSPACE)
    assert report.categories[0] == "version_mismatch"
    assert "aclnnRingAttentionUpdate" in _fix(WORKSPACE, "version_mismatch")


def test_a_workspace_call_with_canns_reason_is_read_by_that_reason():
    # an operator the FAQ pages do not name (their two operators are documented entries of version_mismatch)
    log = WORKSPACE.replace("RingAttentionUpdate", "Cumsum") + ("EZ1001: [PID: 1] 2026-01-01 self not implemented for DT_DOUBLE, should be in dtype support "
                       "list [DT_FLOAT16,DT_FLOAT,].\n")
    report = ex.explain_text(log)
    assert report.categories[0] == "dtype_unsupported"
    assert "version_mismatch" not in report.categories


@pytest.mark.parametrize("line", [
    "RuntimeError: call aclnnMatmul failed, detail:EZ1001: mat2 not implemented for DT_DOUBLE\n",  # torch_npu's wrapper
    "RuntimeError: aclnnRecomputeWUFwdGetWorkspaceSize failed with aclnnStatus=161001.\n",  # a status: a parameter
])
def test_other_aclnn_failures_are_not_read_as_versions(line):
    assert "version_mismatch" not in ex.explain_text(line).categories


def test_the_faq_pages_operators_are_documented_entries():
    """MindSpore's FAQ (operators_api, tools; r2.10.0) quotes two such failures: each reads as its documented cause."""
    for line in ("RuntimeError: aclnnAllFiniteGetWorkspaceSize call failed, please check!\n", WORKSPACE):
        assert ex.explain_text(line).categories[0] == "version_mismatch"
