"""Tests of explain's decoder (npulab/data/error_codes.yaml), root-error selection, the generic finding, and the
generic codes that must not be read as a specific family (review finding M11)."""

from __future__ import annotations

import pytest

from npulab.env import explain as ex
from npulab.env.explain import codes as cd
from npulab.env.explain.root import rank


def test_every_documented_code_resolves():
    documented = cd.documented_codes()
    assert len(documented) > 200
    bad = []
    for code, hccl in documented:
        info = cd.decode(code, hccl=hccl)
        if not (info and info.known and info.meaning and info.source.startswith("https://")
                and info.describe().startswith(f"`{code}`：")):
            bad.append(code)
    assert not bad, bad


@pytest.mark.parametrize(("code", "scheme", "module_part"), [
    ("EZ4321", "cann", "模块 Z"),  # unknown number, documented module
    ("E19876", "cann", "GE"),
    ("EI5555", "cann", "HCCL"),
    ("ERR01042", "torch_npu", "OPS"),
    ("ERR07001", "torch_npu", "未列出的子模块"),
    ("507999", "acl", "Runtime"),
    ("161999", "acl", "aclnn"),
    ("-8099", "dcmi", "DCMI"),
])
def test_unknown_codes_of_a_known_scheme_still_decode_their_module(code, scheme, module_part):
    info = cd.decode(code)
    assert info is not None and info.scheme == scheme and not info.known and module_part in info.module


def test_internal_range_and_codes_of_no_scheme():
    assert "内部错误" in cd.decode("EH9123").meaning and "用户类错误" in cd.decode("EH0123").meaning
    for code in ("EQ1234", "123456", "907015", "12", "E1234", "ERR1234"):
        assert cd.decode(code) is None, code
    assert cd.decode("11", hccl=True).meaning == "TCP 连接失败"


def test_dcmi_codes_follow_the_documented_table():
    assert cd.decode("-8005").name == "DCMI_ERR_CODE_INNER_ERR"
    assert cd.decode("-8020").name == "DCMI_ERR_CODE_RESOURCE_OCCUPIED"
    assert explain_families("dcmi module initialize failed. ret is -8005") == ["device_permission"]
    assert explain_families("dcmi model initialized failed, because the device is used. ret is -8020") == ["device_busy"]


def explain_families(log: str) -> list[str]:
    return ex.explain_text(log).families


def test_codes_are_found_only_in_an_error_context():
    report = ex.explain_text("step 507015 loss 0.161002\n{'epoch': 207004}\n")
    assert report.codes == [] and report.findings == []
    report = ex.explain_text("aclrtSynchronizeStream failed, error code is 507015\n[ERROR] x ERR01100 OPS call acl api failed")
    assert [h.info.code for h in report.codes] == ["507015", "ERR01100"]
    assert report.codes[0].info.name == "ACL_ERROR_RT_AICORE_EXCEPTION" and report.codes[0].line == 1
    hccl = ex.explain_text("RuntimeError: HCCL function error: HcclGetRootInfo(&hcclID), error code is 11")
    assert [(h.info.scheme, h.info.code) for h in hccl.codes] == [("hccl", "11")]


@pytest.mark.parametrize("log, not_family", [
    ("RuntimeError: Initialize: NPU function error: AclSetCompileopt, error code is 500001", "cann_python_deps"),
    ("[ERROR] 2024-01-01-00:00:00 (PID:1, Device:0, RankID:-1) ERR01007 OPS feature not supported", "op_fallback"),
    ("rtStreamSynchronize failed, ErrCode=107020", "hccl_timeout"),
])
def test_generic_codes_are_hints_not_families(log, not_family):
    report = ex.explain_text(log)
    assert not_family not in report.categories
    assert report.categories == [ex.GENERIC] and report.codes  # decoded, and the generic finding answers


def test_generic_codes_still_count_with_the_familys_own_lines():
    log = ("EH9999: Inner Error!\nEH9999  [Init][Env]init env failed![FUNC:ReportInnerError]\n"
           "        build op model failed, result = 500001[FUNC:ReportInnerError]")
    report = ex.explain_text(log)
    assert report.families == ["cann_python_deps"] and "500001" in report.findings[0].codes


CHAINED = """\
Traceback (most recent call last):
  File "/x/torch_npu/__init__.py", line 4, in <module>
    from torch_npu import _C
ImportError: libhccl.so: cannot open shared object file: No such file or directory

During handling of the above exception, another exception occurred:

Traceback (most recent call last):
  File "train.py", line 1, in <module>
RuntimeError: Failed to load the backend extension: torch_npu. You can disable extension auto-loading with TORCH_DEVICE_BACKEND_AUTOLOAD=0.
Aborted (core dumped)
"""


def test_root_error_is_the_innermost_exception_not_the_trailing_noise():
    report = ex.explain_text(CHAINED)
    assert report.root_error.line == 4 and report.root_error.text.startswith("ImportError: libhccl.so")


def test_root_error_prefers_the_message_to_a_bare_inner_error_and_skips_warnings():
    log = ("WARNING 12-01 08:00:00 [utils.py:10] Failed to import from vllm._C with ModuleNotFoundError\n"
           "[ERROR] RecentErrMsg: EZ9999: Inner Error!\n"
           "EZ9999: [PID: 1] 2025-08-04-08:48:53.009.463 Cannot find bin of op AddRmsNormQuant, integral key 0/1/\n"
           "ERROR 12-01 [core.py:1] EngineCore failed to start.\n")
    report = ex.explain_text(log)
    assert report.root_error.line == 3 and "Cannot find bin" in report.root_error.text
    assert report.families[0] == "kernels_missing" and report.categories[-1] == ex.GENERIC


@pytest.mark.parametrize("line, expected", [
    ("RuntimeError: NPU out of memory.", 3),
    ("EZ1001: [PID: 1] The param dtype not implemented", 3),
    ("[ERROR] HCCL(1,python):2025 wait socket establish timeout", 2),
    ("EZ9999: Inner Error!", 2),
    ("Segmentation fault (core dumped)", 1),
    ("[WARNING] some op failed to fuse", 0),
    ("/x/site-packages/y.py:5: UserWarning: failed to load", 0),
    ("  File \"/x/errors.py\", line 3, in raise_error", 0),
    ("{'loss': 0.7, 'epoch': 1}", 0),
    ("npu 0: passed=12, failed=0", 0),
    ("aclrtSetDevice ret = 0, error code: 0", 0),
    ("[INFO] errors: 0, warnings: 3", 0),
])
def test_rank_of_error_lines(line, expected):
    assert rank(line) == expected


def test_never_silent_on_an_unrecognised_ascend_error_and_silent_on_healthy_logs():
    unknown = ex.explain_text("[ERROR] RUNTIME(1,python3):2025-01-01 [device.cc:1] something new broke on npu:0")
    assert unknown.categories == [ex.GENERIC]
    generic = unknown.findings[0]
    assert generic.kind == "generic" and "ASCEND_LAUNCH_BLOCKING=1" in generic.fix and "npu-smi info" in generic.fix
    assert "ASCEND_GLOBAL_LOG_LEVEL" in generic.fix and "ASCEND_SLOG_PRINT_TO_STDOUT" in generic.fix
    assert "~/ascend/log" in generic.fix and "python -m npulab doctor" in generic.fix
    assert "根错误行" in ex.render(unknown) and "知识库里没有对应的案例" in ex.render(unknown)
    healthy = ("[W compiler_depend.ts:51] Warning: CAUTION: something on npu\n"
               "INFO 11-26 22:57:04 selector.py:183] Using ASCEND backend.\n{'loss': 1.2, 'grad_norm': 0.8}\n")
    assert ex.explain_text(healthy).findings == []


def test_a_code_without_a_family_is_shown_with_its_documented_meaning():
    report = ex.explain_text("[ERROR] aclrtSetDevice failed: 507901")
    text = ex.render(report)
    assert report.categories == [ex.GENERIC]
    assert "`507901`：" in text and "ACL_ERROR_RT_SOCKET_CLOSE" in text and "rt_error_codes.h" in text


@pytest.mark.parametrize("encoding", ["gb18030", "utf-16"])
def test_codes_decode_in_odd_encodings_and_around_binary_junk(encoding):
    text = "错误：算子执行失败\nRuntimeError: call aclnnAddmm failed, error code is 161002\n"
    data = b"\x00\xff\xfe junk\n" + text.encode(encoding) if encoding == "gb18030" else text.encode(encoding)
    report = ex.explain_bytes(data)
    assert [h.info.code for h in report.codes] == ["161002"] and "aclnn_param_check" in report.families
