"""Tests of explain's general rules (npulab/env/explain/rules/): each rule on a line of the documented form and on
a near miss, the package index (module, library, symbol → package), the order of findings, and odd inputs
(GB18030, UTF-16 with a byte-order mark, binary junk) that carry a rule's line. The lines are written here after
the formats of the cited documentation and source code; the held-out logs are never used to build them."""

from __future__ import annotations

import codecs
import json

import pytest

from npulab.env import explain as ex
from npulab.env.explain.rules import RULES, packages
from npulab.env.explain.rules import advice as advice_rule
from npulab.env.explain.rules.base import rules_data

CANN_CONTEXT = "[ERROR] ASCEND(123,python):2026-12-01-10:00:00 runtime\n"  # makes a log about Ascend


def report(text: str) -> ex.Report:
    return ex.explain_text(text)


def categories(text: str) -> list[str]:
    return report(text).categories


def finding(text: str, category: str) -> ex.Finding:
    return next(f for f in report(text).findings if f.category == category)


# ---------------------------------------------------------------------------------------------------------------
# The message's own advice
# ---------------------------------------------------------------------------------------------------------------


def test_advice_in_the_error_line_is_quoted_as_the_first_fix():
    log = ("RuntimeError: EZ9999: the current CANN version do not support this format. "
           "Please try to update the version of CANN.\n")
    out = report(log)
    assert out.categories[0] in ("message_advice", "unsupported_capability")
    advice = finding(log, "message_advice")
    assert "Please try to update the version of CANN" in advice.fix and advice.kind == "rule"
    assert advice.evidence[0].line == 1


def test_advice_on_a_solution_line_under_an_error():
    log = ("[PID: 7] 2026-12-01 Environment_Error_Failed_To_Import_Python_Module(EC0010): Failed to import Python module.\n"
           "        Solution: Check that all required components are properly installed, and run set_env.sh in the "
           "installation package.\n")
    advice = finding(log, "message_advice")
    assert "Check that all required components are properly installed" in advice.fix
    assert advice.evidence[0].line == 2


def test_advice_near_misses_stay_silent():
    assert advice_rule.clauses("Try 3/10 loaded") == []  # too short to be advice
    assert advice_rule.clauses("Rectify the fault based on the error information in the ascend log.") == []  # boilerplate
    warning = "[W compiler_depend.ts:12] Warning: torch_npu: please set ASCEND_RT_VISIBLE_DEVICES to use fewer devices\n"
    assert report(CANN_CONTEXT + warning).categories.count("message_advice") == 0  # a warning is not an error
    info = "INFO 12-01 Ascend platform ready. Please wait while the model loads.\n"
    assert report(info).findings == []


def test_advice_clauses_split_numbered_solutions():
    line = "Solution: 1. Check the rank service processes with other errors.2. Please increase HCCL_CONNECT_TIMEOUT."
    assert advice_rule.clauses(line) == ["Check the rank service processes with other errors",
                                         "Please increase HCCL_CONNECT_TIMEOUT"]


# ---------------------------------------------------------------------------------------------------------------
# Missing modules, libraries and symbols
# ---------------------------------------------------------------------------------------------------------------


def test_missing_top_level_module_names_its_distribution():
    f = finding("ModuleNotFoundError: No module named 'vllm_ascend'\n", "missing_module")
    assert "vllm_ascend" in f.title and "vllm-ascend" in f.fix


def test_missing_cann_python_module_is_the_environment_family():
    f = finding("ModuleNotFoundError: No module named 'te'\n" + CANN_CONTEXT, "env_not_loaded")
    assert f.rule == "missing_module" and "set_env.sh" in f.fix and "CANN Toolkit" in f.fix


def test_missing_cann_dependency_is_the_python_deps_family():
    f = finding(CANN_CONTEXT + "ModuleNotFoundError: No module named 'decorator'\n", "cann_python_deps")
    assert "decorator" in f.fix


def test_missing_compiled_extension_means_the_source_tree_shadows_the_package():
    f = finding("ModuleNotFoundError: No module named 'mindspore._c_expression'\n", "missing_module")
    assert "源码目录" in f.fix and "mindspore" in f.title


def test_missing_submodule_means_a_version_mismatch():
    f = finding("ModuleNotFoundError: No module named 'torch_npu.dynamo.torchair'\n", "missing_module")
    assert "子模块" in f.title and "torch-npu" in f.fix


def test_cannot_import_name_names_the_package_and_the_name():
    f = finding("ImportError: cannot import name 'GraphCaptureFeature' from 'mindspeed.features_manager'\n", "missing_module")
    assert "GraphCaptureFeature" in f.title and "MindSpeed" in f.fix


def test_module_without_an_attribute_is_a_version_question():
    f = finding("AttributeError: module 'torch_npu' has no attribute 'npu_fancy_op'\n", "version_mismatch")
    assert f.rule == "missing_module" and "npu_fancy_op" in f.fix and "torch-npu" in f.fix
    g = finding("AttributeError: module 'vllm.envs' has no attribute 'VLLM_FOO'\n" + CANN_CONTEXT, "missing_module")
    assert "vllm.envs 里没有 VLLM_FOO" == g.title and "vllm-ascend" in g.fix


def test_module_near_misses():
    assert report("WARNING 12-01 Failed to import from vllm._C with ModuleNotFoundError(\"No module named 'vllm._C'\")\n"
                  "INFO Platform plugin ascend is activated\n").findings == []
    assert report("ModuleNotFoundError: No module named 'pandas'\n").findings == []  # nothing about Ascend


def test_missing_library_of_cann_is_the_environment_family():
    f = finding("OSError: libascendcl.so: cannot open shared object file: No such file or directory\n", "env_not_loaded")
    assert f.rule == "missing_library" and "libascendcl.so" in f.fix


def test_missing_library_of_a_pip_package_points_at_its_lib_folder():
    f = finding("ImportError: libtorch_npu.so: cannot open shared object file: No such file or directory\n",
                "missing_library")
    assert "torch_npu" in f.fix and "LD_LIBRARY_PATH" in f.fix and "os.path.dirname(torch_npu.__file__)" in f.fix


def test_unknown_library_is_found_and_added_to_the_loader_path():
    log = CANN_CONTEXT + "./infer: error while loading shared libraries: libfoo_npu.so.3: cannot open shared object file\n"
    f = finding(log, "missing_library")
    assert "libfoo_npu.so.3" in f.title and "find /" in f.fix and "LD_LIBRARY_PATH" in f.fix


def test_library_near_miss():
    assert report("INFO loaded libhccl.so from /usr/local/Ascend/cann/lib64\n").findings == []


def test_undefined_symbol_names_both_packages():
    log = "ImportError: /x/torch_npu/lib/libtorch_npu.so: undefined symbol: _ZN3c1017RegisterOperatorsD1Ev\n"
    f = finding(log, "version_mismatch")
    assert f.rule == "missing_symbol" and "c10::RegisterOperators" in f.fix and "PyTorch" in f.fix


def test_missing_aclnn_function_asks_for_a_newer_cann():
    log = CANN_CONTEXT + "RuntimeError: aclnnFooBar or aclnnFooBarGetWorkspaceSize not in libopapi.so, or libopapi.so not found.\n"
    f = finding(log, "version_mismatch")
    assert "aclnnFooBar" in f.fix and "CANN 算子包" in f.fix


def test_symbol_of_an_unknown_library_stays_a_rule_finding():
    log = CANN_CONTEXT + "OSError: libmyplugin.so: undefined symbol: my_plugin_entry\n"
    f = finding(log, "missing_symbol")
    assert "my_plugin_entry" in f.title and f.kind == "rule"


# ---------------------------------------------------------------------------------------------------------------
# The package index
# ---------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("module, package_id", [
    ("torch_npu", "torch_npu"), ("torch_npu.contrib.transfer_to_npu", "torch_npu"), ("tbe.common", "cann_toolkit"),
    ("te", "cann_toolkit"), ("triton", "triton_ascend"), ("vllm_ascend.attention", "vllm_ascend"),
    ("mindspeed_llm.tasks", "mindspeed_llm"), ("mindspeed", "mindspeed"), ("msprobe", "msprobe"),
    ("google.protobuf", "cann_python_deps"), ("mindie_turbo", "mindie"), ("msprof_analyze", "msprof_analyze"),
])
def test_module_index(module, package_id):
    assert packages.for_module(module).id == package_id


def test_module_index_unknown_and_partial_names():
    assert packages.for_module("pandas") is None
    assert packages.for_module("google") is None  # only google.protobuf is listed


@pytest.mark.parametrize("library, package_id", [
    ("libhccl.so", "cann_hccl"), ("libascendcl.so", "cann_toolkit"), ("libopapi.so", "cann_ops"), ("libatb.so", "nnal"),
    ("libascend_hal.so", "driver"), ("/usr/lib/libc10.so.2", "torch"), ("libtorch_npu.so", "torch_npu"),
])
def test_library_index(library, package_id):
    assert packages.for_library(library).id == package_id


@pytest.mark.parametrize("symbol, package_id, head", [
    ("_ZN3atb15CreateOperationINS_5infer14GroupTopkParamEEEiRKT_PPNS_9OperationE", "nnal", "atb::CreateOperation"),
    ("_ZN7c10_npu9SetDeviceEa", "torch_npu", "c10_npu::SetDevice"), ("aclnnAddGetWorkspaceSize", "cann_ops", None),
    ("HcclAllReduce", "cann_hccl", None), ("aclrtSetDevice", "cann_toolkit", None),
])
def test_symbol_index(symbol, package_id, head):
    assert packages.for_symbol(symbol).id == package_id
    if head:
        assert packages.demangled_head(symbol) == head


def test_every_indexed_package_is_defined_with_sources_and_its_family_exists():
    data = packages.index()
    used = set(data["modules"].values()) | set(data["libraries"].values()) | set(data["symbols"].values())
    assert used <= set(data["packages"])
    for pid in data["packages"]:
        pkg = packages.package(pid)
        assert pkg.sources and all(s.startswith("https://") for s in pkg.sources)
        assert pkg.family is None or pkg.family in ex.CATEGORIES


def test_every_rule_data_source_is_public_and_every_family_exists():
    data = rules_data()
    text = json.dumps(data)
    assert "http://" not in text
    families = [data["communication"]["family"], data["symbol"]["family"],
                *[k.get("family") for k in data["capability"]["kinds"].values()],
                *[k.get("family") for k in data["resource"]["kinds"].values()]]
    assert {f for f in families if f} <= set(ex.CATEGORIES)
    assert len({r.name for r in RULES}) == len(RULES)


# ---------------------------------------------------------------------------------------------------------------
# Capability, communication, graph capture, resources
# ---------------------------------------------------------------------------------------------------------------


def test_unsupported_chip_is_the_unsupported_soc_family():
    f = finding("RuntimeError: Unsupported soc version: Ascend910_9391\n", "unsupported_soc")
    assert f.rule == "unsupported_capability" and "Ascend910_9391" in f.fix


def test_unsupported_dtype_on_a_chip_names_both():
    log = "RuntimeError: matmul: DT_BFLOAT16 is not supported on Ascend310P3, use float16 instead\n"
    f = finding(log, "dtype_unsupported")
    assert "DT_BFLOAT16" in f.fix and "Ascend310P3" in f.fix


def test_unsupported_format_gives_the_documented_alternative():
    f = finding("[ERROR] ME(1,python): Only support export file in 'AIR' format with Ascend backend.\n",
                "unsupported_capability")
    assert "只支持" in f.title and "AIR" in f.title and "MINDIR" in f.fix


def test_an_unsupported_feature_on_a_chip_names_both():
    f = finding("ValueError: Quantization method w4a4_demo is not supported on Ascend310P3.\n", "unsupported_soc")
    assert "Quantization method w4a4_demo" in f.fix and "Ascend310P3" in f.fix


def test_unsupported_near_misses():
    assert report("INFO bf16 is not supported by this chip, falling back to fp16 on Ascend310P\n").findings == []
    only_text = CANN_CONTEXT + "[ERROR] x ERR01007 OPS feature not supported\n"
    assert "unsupported_capability" not in categories(only_text)  # nothing named: the generic finding answers


def test_hccl_connect_timeout_names_the_connect_setting():
    log = "[ERROR] HCCL(1,python):2026-12-01 [hccl_socket_manager.cc:778] wait socket establish timed out, role[1] rank[3]\n"
    f = finding(log, "hccl_timeout")
    assert f.rule == "communication_timeout" and "HCCL_CONNECT_TIMEOUT" in f.fix and "120" in f.fix


def test_collective_execution_timeout_names_the_exec_setting():
    log = "[E1201 rank0] Watchdog caught collective operation timeout: WorkHCCL(SeqNum=9, OpType=ALLREDUCE) timed out\n"
    f = finding(log, "hccl_timeout")
    assert "HCCL_EXEC_TIMEOUT" in f.fix and "1836" in f.fix


def test_device_sync_timeout_names_acl_device_sync_timeout():
    log = CANN_CONTEXT + "RuntimeError: synchronize: NPU function error: aclrtSynchronizeDeviceWithTimeout timed out\n"
    f = finding(log, "hccl_timeout")  # round 6: a sync timeout is reported as the collective-timeout family
    assert "ACL_DEVICE_SYNC_TIMEOUT" in f.fix and f.priority == 1 and f.rule == "communication_timeout"


def test_communication_near_misses():
    nccl = ("[E1201 ProcessGroupNCCL.cpp:607] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, "
            "OpType=ALLREDUCE) ran for 600009 milliseconds before timing out.\n")
    assert report(nccl).findings == []  # a CUDA user's NCCL
    env_dump = CANN_CONTEXT + "HCCL_CONNECT_TIMEOUT=7200\nHCCL_EXEC_TIMEOUT=7200\n"
    assert "hccl_timeout" not in categories(env_dump)


def test_graph_capture_failure_falls_back_to_eager_and_names_the_op():
    log = ("INFO vllm_ascend platform\nRuntimeError: Failed running call_function my_ops.fused_rope(*(FakeTensor(..., "
           "device='npu:0'),)): graph capture failed\n")
    f = finding(log, "graph_capture")
    assert "my_ops.fused_rope" in f.title and "enforce_eager" in f.fix and "TORCH_LOGS" not in f.fix.split("vLLM")[0]


def test_graph_mode_of_mindspore_falls_back_to_pynative():
    log = "[ERROR] ANALYZER(1,python): mindspore GRAPH_MODE compile failed: unsupported syntax 'yield'\n"
    f = finding(log, "graph_capture")
    assert "PYNATIVE_MODE" in f.fix


def test_graph_near_miss_progress_bar():
    log = CANN_CONTEXT.replace("[ERROR]", "[INFO]") + "Capturing ACL graphs (decode, FULL): 100%|██| 4/4 [00:02<00:00]\n"
    assert report(log).findings == []


def test_ub_overflow_gives_the_tile_knob_and_the_numbers():
    log = CANN_CONTEXT + "error: ub overflow, requires 400000 bits while 196608 bits available\n"
    f = finding(log, "resource_limit")
    assert "Unified Buffer" in f.title and "BLOCK_SIZE" in f.fix and "400000" in f.cause


def test_hbm_exhaustion_is_the_oom_family_with_the_framework_knobs():
    log = "[ERROR] PRE_ACT(1,python): MindSpore device memory: alloc size 30 GB is more than total mem size 29 GB\n"
    f = finding(log, "npu_oom")
    assert f.rule == "resource_limit" and "max_device_memory" in f.fix


def test_resource_near_misses():
    assert report("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n").findings == []
    size_query = CANN_CONTEXT + "RuntimeError: aclnnFooGetWorkspaceSize failed with aclnnStatus=161002\n"
    assert "resource_limit" not in categories(size_query)


# ---------------------------------------------------------------------------------------------------------------
# Order, never silent, odd inputs
# ---------------------------------------------------------------------------------------------------------------


def test_families_first_then_rules_then_generic():
    log = ("RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB\n"
           "ModuleNotFoundError: No module named 'msprobe'. Please run pip install mindstudio-probe\n")
    cats = categories(log)
    assert cats[0] == "npu_oom" and cats[-1] == ex.GENERIC
    assert cats.index("message_advice") < cats.index("missing_module")


def test_a_line_without_an_error_word_is_still_the_root_line():
    out = report("Unsupported SOC version: Ascend310B4\n")
    assert out.root_error is not None and out.root_error.line == 1
    assert out.categories == ["unsupported_soc", ex.GENERIC]


def test_one_line_read_by_two_rules_is_explained_once():
    log = CANN_CONTEXT + "rtMemcpy:ErrCode=107030, desc=[the current capture mode does not support this operation]\n"
    cats = categories(log)
    assert "graph_capture" in cats and "unsupported_capability" not in cats


@pytest.mark.parametrize("encoding", ["gb18030", "utf-16"])
def test_rule_lines_in_other_encodings(encoding):
    text = "训练开始\nModuleNotFoundError: No module named 'torch_npu'\n错误：请检查 CANN 是否安装\n"
    data = text.encode(encoding)
    if encoding == "utf-16":
        assert data[:2] in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)
    out = ex.explain_bytes(data)
    assert "missing_module" in out.categories and out.lines_read == 3


def test_binary_junk_around_a_rule_line():
    junk = bytes(range(256)) * 30
    data = junk + b"\nImportError: libatb.so: cannot open shared object file: No such file or directory\n" + junk
    out = ex.explain_bytes(data)
    assert "nnal_missing" in out.categories
    json.dumps(out.to_dict(), ensure_ascii=False)


def test_advice_under_an_error_line_behind_a_launcher_prefix():
    log = ("(EngineCore pid=7) [Error]: Failed to apply for memory on the Ascend device.\n"
           "(EngineCore pid=7)         Check the remaining storage space in the hardware environment.\n"
           "(EngineCore pid=7) INFO 12-01 [core.py:1] Check the docs for more options about the Ascend engine\n")
    advice = finding(log, "message_advice")
    assert advice.evidence[0].line == 2 and "Check the remaining storage space" in advice.fix
    assert "more options" not in advice.fix  # an INFO line is not advice about an error


def test_advice_pointing_elsewhere_without_an_address_is_dropped():
    assert advice_rule.clauses('Error. For details, please refer to "Device load error message".') == []
    assert advice_rule.clauses("Error. Please refer to https://www.hiascend.com/document for the fix.") != []


def test_the_rules_casebook_section_exists():
    from npulab.core.paths import REPO_ROOT

    text = (REPO_ROOT / ex.CASEBOOK).read_text(encoding="utf-8")
    assert "(read-the-message)=" in text and "read-the-message" == finding(
        "ModuleNotFoundError: No module named 'msprobe'\n", "missing_module").casebook


def test_millions_of_needle_lines_cost_a_bounded_number_of_readings():
    from npulab.env.explain.rules import LOOK_BUDGET, RuleScanner

    line = b"[ERROR] ASCEND run 7: capture graph not supported by this alloc memory workspace, check the timeout\n"
    scanner = RuleScanner()
    for i in range(4):
        scanner.feed(1 + i * 20_000, line * 20_000)
    assert all(n <= LOOK_BUDGET for n in scanner._looked.values()) and max(scanner._looked.values()) == LOOK_BUDGET


def cli_on(tmp_path, name: str, data: bytes):
    import os
    import subprocess
    import sys

    from npulab.core.paths import REPO_ROOT

    path = tmp_path / name
    path.write_bytes(data)
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    return subprocess.run([sys.executable, "-m", "npulab", "explain", str(path), "--no-env"], capture_output=True,
                          env=env, timeout=120)


@pytest.mark.parametrize("name, data", [
    ("gb18030.log", "启动训练\n错误：ModuleNotFoundError: No module named 'torch_npu'\n".encode("gb18030")),
    ("utf16.log", "启动训练\r\nImportError: libatb.so: cannot open shared object file\r\n".encode("utf-16")),
    ("junk.log", bytes(range(256)) * 64 + b"\nRuntimeError: Unsupported soc version: Ascend910_9391\n" + b"\x00\xff" * 999),
])
def test_cli_on_odd_inputs_is_clean_chinese_and_exits_1(tmp_path, name, data):
    done = cli_on(tmp_path, name, data)
    out, err = done.stdout.decode(), done.stderr.decode()
    assert done.returncode == 1 and "读取了" in out and "Traceback" not in err + out


def test_cli_on_pure_junk_exits_0_without_a_traceback(tmp_path):
    done = cli_on(tmp_path, "junk.bin", bytes(range(256)) * 4096)
    assert done.returncode == 0 and "没有识别出" in done.stdout.decode() and b"Traceback" not in done.stderr


# ---------------------------------------------------------------------------------------------------------------
# Issue 36: whose machine the log is from, warnings a user acts on, components, glued advice
# ---------------------------------------------------------------------------------------------------------------

CPU_WHEEL = ('  File "train.py", line 12, in <module>\n    model = model.cuda()\n'
             "AssertionError: Torch not compiled with CUDA enabled\n")


def test_a_cuda_machines_log_gets_no_ascend_finding():
    nvidia = "$ nvidia-smi\nNVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2\n"
    assert report(nvidia + CPU_WHEEL).findings == []
    assert report("torch 2.1.0+cu121\n" + CPU_WHEEL).findings == []
    # the same error with Ascend evidence (or with no evidence either way) is still the Ascend family
    assert "cuda_hardcoded" in categories("import torch_npu\n" + CPU_WHEEL)
    assert "cuda_hardcoded" in categories(CPU_WHEEL)
    # an Ascend log that also mentions NVIDIA stays an Ascend log
    assert "cuda_hardcoded" in categories(nvidia + "import torch_npu\n" + CPU_WHEEL)


def test_loss_scale_collapse_is_fp16_overflow_only_with_ascend_evidence():
    deepspeed = "".join(f"Gradient overflow. Skipping step\nLoss scaler reducing loss scale to {s}\n"
                        for s in ("0.5", "0.25", "5.960464477539063e-08"))
    assert report(deepspeed).findings == []  # apex/DeepSpeed print the same on CUDA
    assert "fp16_overflow" in categories("- NPU type: Ascend910B\n" + deepspeed)
    # a scale that is still large is the loss scaler doing its job, not a finding
    healthy = "- NPU type: Ascend910B\nGradient overflow. Skipping step\nLoss scaler reducing loss scale to 32768.0\n"
    assert report(healthy).findings == []


def test_a_log_ending_in_a_cann_components_error_like_warning_gets_the_generic_finding():
    log = ("[WARNING] HCCL(2605,aicpu_scheduler):2025-12-30-15:08:28.046.768 [aicpu_kfc_rpc_server.cc:335] "
           "[2606][ReadAddrMsg] ReadValidMsg[1] timeout 80s\n"
           "[WARNING] HCCL(2605,aicpu_scheduler):2025-12-30-15:08:28.046.802 [aicpu_kfc_utils.cc:387] ErrToWarn: start print\n")
    found = report(log)
    assert found.categories == [ex.GENERIC] and found.root_error.line == 1
    # ordinary framework warnings in a healthy Ascend run are not that
    healthy = ("INFO 08-06 08:32:22 [__init__.py:235] Platform plugin ascend is activated\n"
               "WARNING 08-06 08:32:23 [_custom_ops.py:20] Failed to import from vllm._C with ModuleNotFoundError\n")
    assert report(healthy).findings == []


def test_advice_glued_to_the_previous_word_is_still_read():
    line = ("E89999: op[Range], outSize from framework is 1, but from tiling is 64, calc by floatplease use float "
            "to calc the size[FUNC:CalculateOutputNum][FILE:range.cc][LINE:113]")
    assert advice_rule.clauses(line) == ["please use float to calc the size"]


def test_a_named_component_gets_its_documented_remedy():
    log = CANN_CONTEXT + "RuntimeError: Ascend Transfer Engine initialization failed.\n"
    assert "ASCEND_MF_STORE_URL" in finding(log, "component").fix
    getnext = CANN_CONTEXT + "[ERROR] DEVICE(1,python):2023 Dump node (Default/GetNext-op18) task error input data\n"
    assert "num_parallel_workers" in finding(getnext, "component").fix


def test_a_summary_component_speaks_only_when_nothing_else_does():
    summary = "RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}\n"
    alone = categories(CANN_CONTEXT + summary)
    assert alone[0] == "component_summary"
    with_cause = categories(CANN_CONTEXT + "RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB\n" + summary)
    assert "npu_oom" in with_cause and "component_summary" not in with_cause


def test_pip_finding_no_distribution_of_an_ascend_package_names_the_index_and_the_platform():
    log = ("ERROR: Could not find a version that satisfies the requirement torch-npu==2.1.0 (from versions: none)\n"
           "ERROR: No matching distribution found for torch-npu==2.1.0\n")
    fix = finding(log, "component").fix
    assert "--index-url" in fix and "aarch64" in fix
    # the same pip error about a package that says nothing of Ascend is not this tool's business
    assert report(log.replace("torch-npu", "left-pad")).findings == []


def test_a_code_after_chinese_words_is_read_and_a_chinese_error_line_is_a_root_error():
    found = report("在 910B 上运行检查程序报错，错误代码 507033\n")
    assert [h.info.code for h in found.codes] == ["507033"]
    assert found.categories[0] == "device_setup_failed"


def test_pips_dependency_conflict_names_the_required_version():
    line = "vllm-ascend 0.9.1 requires torch==2.5.1, but you have torch 2.6.0 which is incompatible.\n"
    found = finding(line, "version_mismatch")  # a package of the torch / vLLM-Ascend stack: the family
    assert "pip install 'torch==2.5.1'" in found.fix and found.rule == "requirement"
    other = CANN_CONTEXT + "transformers 4.46.1 requires tokenizers<0.21,>=0.20, but you have tokenizers 0.21.0 which is incompatible.\n"
    assert "pip install 'tokenizers<0.21,>=0.20'" in finding(other, "requirement").fix
    missing = CANN_CONTEXT + "mindspeed 0.8.0 requires einops, which is not installed.\n"
    assert "环境里没有装它" in finding(missing, "requirement").cause


def test_a_wheel_for_another_python_or_machine_names_both():
    line = "ERROR: torch_npu-2.1.0.post3-cp310-cp310-manylinux_2_17_aarch64.whl is not a supported wheel on this platform.\n"
    found = finding(line, "version_mismatch")
    assert "Python 3.10" in found.fix and "aarch64" in found.fix


def test_an_op_the_npu_backend_cannot_run_is_the_fallback_family():
    line = "NotImplementedError: Could not run 'aten::_fft_r2c' with arguments from the 'NPU' backend.\n"
    assert categories(line)[0] == "op_fallback"


# --- second round of issue 36: Python exceptions, settings, pip's resolver, "unknown location", "only supported on"

NPU_CONTEXT = "import torch_npu\n"  # the log shows Ascend software


def test_unexpected_keyword_argument_is_two_releases_that_do_not_pair():
    f = finding(NPU_CONTEXT + "TypeError: Worker.__init__() got an unexpected keyword argument 'cache_mode'\n",
                "python_exception")
    assert "Worker.__init__" in f.title and "cache_mode" in f.cause and "配套" in f.fix and "pip show" in f.fix


def test_positional_argument_count_is_a_signature_mismatch_too():
    f = finding(NPU_CONTEXT + "TypeError: forward() takes 3 positional arguments but 4 were given\n", "python_exception")
    assert "forward" in f.title and "4 were given" in f.cause


def test_operands_of_two_dtypes_are_cast_to_one():
    f = finding(NPU_CONTEXT + "RuntimeError: expected scalar type Float but found Half\n", "python_exception")
    assert "`Float`" in f.cause and "`Half`" in f.cause and "类型一致" in f.fix


def test_value_outside_its_range_names_argument_and_range():
    f = finding(NPU_CONTEXT + "ValueError: --gpu-memory-utilization must be in the range (0, 1]\n", "python_exception")
    assert "--gpu-memory-utilization" in f.title and "(0, 1]" in f.fix


def test_invalid_choice_names_the_value_and_the_choices():
    f = finding(NPU_CONTEXT + "serve: error: argument --dtype: invalid choice: 'fp8x' (choose from 'auto', 'half')\n",
                "python_exception")
    assert "fp8x" in f.cause and "'auto', 'half'" in f.cause and "--dtype" in f.title


def test_missing_launcher_variable():
    f = finding(NPU_CONTEXT + "KeyError: 'LOCAL_RANK'\n", "python_exception")
    assert "LOCAL_RANK" in f.title and "torchrun" in f.fix


def test_python_exception_near_misses():
    assert "python_exception" not in categories(NPU_CONTEXT + "INFO must be one of the supported values\n")
    assert categories("TypeError: f() got an unexpected keyword argument 'x'\n") == []  # no Ascend evidence


def test_name_from_a_module_of_unknown_location_is_a_shadowing_directory():
    f = finding(NPU_CONTEXT + "ImportError: cannot import name 'LLM' from 'vllm' (unknown location)\n", "missing_module")
    assert "同名目录" in f.title and "其他目录" in f.fix and "__path__" in f.fix


def test_missing_path_under_ascend_points_at_set_env():
    f = finding(NPU_CONTEXT + "FileNotFoundError: [Errno 2] No such file or directory: "
                "'/usr/local/Ascend/ascend-toolkit/latest/version.cfg'\n", "setting")
    assert "set_env.sh" in f.fix and "version.cfg" in f.title


def test_environment_variable_named_by_an_error():
    f = finding(CANN_CONTEXT + "[ERROR] RUNTIME(1,python): set ASCEND_TOOLKIT_SOMETHING:[9] error, input data rang[0-8)\n",
                "setting")
    assert "ASCEND_TOOLKIT_SOMETHING" in f.title and "env | grep ASCEND_TOOLKIT_SOMETHING" in f.fix
    # a variable whose documented role is a family's (device selection, round 12): that family, the reading in its fix
    f = finding(CANN_CONTEXT + "[ERROR] RUNTIME(1,python): set ASCEND_RT_VISIBLE_DEVICES:[9] error, input data rang[0-8)\n",
                "visible_devices")
    assert f.rule == "setting" and "env | grep ASCEND_RT_VISIBLE_DEVICES" in f.fix


def test_setting_near_misses_advice_and_enum_constants():
    text = (CANN_CONTEXT + "RuntimeError: the operator failed; please set the environment variable ASCEND_LAUNCH_BLOCKING=1.\n"
            "RuntimeError: AclSetCompileopt(aclCompileOpt::ACL_PRECISION_MODE, mode), error code is 500001\n")
    assert "setting" not in categories(text)


def test_pip_resolver_conflict_gets_pips_remedies():
    text = ("ERROR: Cannot install pkg[npu]==1.0 because these package versions have conflicting dependencies.\n"
            "The conflict is caused by:\n    pkg[npu] 1.0 depends on torch==2.1.0\n    torch-npu 2.1.0.post3 depends on torch==2.1.0+cpu\n")
    f = finding(text, "requirement")
    assert "torch==2.1.0+cpu" in f.cause and "--no-deps" in f.fix and f.kind == "rule"


def test_feature_only_supported_on_other_devices_names_the_npu_counterpart():
    f = finding(NPU_CONTEXT + "ValueError: FlashAttention2 is only supported on CUDA devices.\n", "unsupported_capability")
    assert "只在 CUDA devices 上受支持" in f.title and "npu_fusion_attention" in f.fix


def test_glued_sentence_advice_is_read():
    assert advice_rule.clauses("failed on this machine.Make sure the cache directory is writable.") == [
        "Make sure the cache directory is writable"]
    assert advice_rule.clauses("torch.Tensor.Please") == []


def test_labelled_remedy_is_advice_even_without_an_advice_word():
    assert advice_rule.clauses("[ERROR] bad input. Troubleshooting: compare the value with the expected one and fix the caller") == [
        "compare the value with the expected one and fix the caller"]


def test_must_be_but_got_names_expected_and_actual():
    f = finding(NPU_CONTEXT + "ValueError: the rank of input x must be 4, but got 3\n", "python_exception")
    assert "4" in f.cause and "`3`" in f.cause and "调用方" in f.fix


def test_cut_callable_name_and_backticks_still_read_as_a_signature_mismatch():
    text = NPU_CONTEXT + "TypeError: `Batch.__init__()` got an unexpected keyword argument `block_size`\n"
    assert "Batch.__init__" in finding(text, "python_exception").title
    assert "block_size" in finding(NPU_CONTEXT + "() got an unexpected keyword argument 'block_size'\n", "python_exception").cause


def test_generic_finding_names_the_package_of_the_last_frame():
    text = (NPU_CONTEXT + "Traceback (most recent call last):\n"
            '  File "/usr/lib/python3.10/site-packages/mytool/run.py", line 3, in main\n'
            "    go()\nRuntimeError: something odd happened\n")
    generic = report(text).findings[-1]
    assert generic.category == ex.GENERIC and "`mytool`" in generic.cause and "pip show mytool" in generic.cause


def test_deepspeed_loss_scale_below_one_on_ascend_is_fp16_overflow():
    line = "[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 1, reducing to 0.5\n"
    assert categories(NPU_CONTEXT + line) == ["fp16_overflow"]
    assert categories(line) == []  # no Ascend evidence: apex/DeepSpeed on a GPU
    assert categories(NPU_CONTEXT + line.replace("1, reducing to 0.5", "65536, reducing to 32768")) == []  # calibrating


def test_a_traceback_cut_before_its_exception_line_is_still_an_error_and_npu_words_are_evidence():
    cut = 'Traceback (most recent call last):\n  File "train.py", line 3, in <module>\n'
    assert categories("NPU 0 is used for training\n" + cut) == [ex.GENERIC]
    assert categories("[NPU] training starts\n" + cut) == [ex.GENERIC]
    assert categories(cut) == []  # nothing says Ascend


def test_devices_contiguity_and_ports():
    assert "同一个设备" in finding(NPU_CONTEXT + "RuntimeError: Expected all tensors to be on the same device, but found "
                                   "at least two devices, npu:0 and cpu!\n", "python_exception").title
    assert ".contiguous()" in finding(NPU_CONTEXT + "RuntimeError: Tensors must be contiguous\n", "python_exception").fix
    assert "--master_port" in finding(NPU_CONTEXT + "DistNetworkError: failed to bind to [::]:29500 (errno: 98 - Address "
                                      "already in use).\n", "python_exception").fix


def test_flash_attn_on_ascend_gets_the_npu_counterpart_not_the_messages_pip_install():
    text = (NPU_CONTEXT + "ImportError: This modeling file requires the following packages that were not found in your "
            "environment: flash_attn. Run `pip install flash_attn`\n")
    assert categories(text)[0] == "missing_module"
    assert "sdpa" in finding(text, "missing_module").fix


def test_should_be_but_is_keeps_the_whole_value():
    f = finding(NPU_CONTEXT + "ValueError: Attention mask should be of size (1, 1, 7, 7), but is torch.Size([1, 1, 7, 8])\n",
                "python_exception")
    assert "torch.Size([1, 1, 7, 8])" in f.cause and "(1, 1, 7, 7)" in f.cause


def test_object_attribute_and_sigkill():
    assert "None" in finding(NPU_CONTEXT + "AttributeError: 'NoneType' object has no attribute 'npu'\n", "python_exception").title
    f = finding(NPU_CONTEXT + "AttributeError: 'NPUWorker' object has no attribute 'cache'\n", "python_exception")
    assert "NPUWorker" in f.title and "对应版本" in f.fix
    assert "OOM killer" in finding(NPU_CONTEXT + "Killed\n", "python_exception").cause
    assert categories(NPU_CONTEXT + "INFO the job was killed by the user\n") == []


def test_value_forms_in_help_text_are_not_read():
    usage = NPU_CONTEXT + "usage: serve [-h] [--dtype {auto,half}]\n  --block-size N   must be one of 8, 16, 32\n"
    assert "python_exception" not in categories(usage)
