"""Round 19 of issue 36: MindSpore's error-analysis tutorials (docs 9e844dc, tutorials/source_*/debug/error_analysis)
read whole, and the CANN runtime's fixed reports of a failing kernel (hicann/runtime at d8beaaf and 681ef76). Each log
here is written from the message as the tutorial page or the runtime source prints it, never a log of a set."""

from __future__ import annotations

import pytest
import yaml

from npulab.env import explain as ex
from npulab.env.explain.documented import DOCS_PATH

TUTORIALS = "https://www.mindspore.cn/tutorials/zh-CN/master/debug/error_analysis/"
RUNTIME = "[ERROR] RUNTIME(4242,python):2026-01-01-00:00:00.000.000 [stream.cc:1]4243 GetError:"


@pytest.mark.parametrize("line", [
    # CANN 8's form, which the tutorial quotes under EZ9999 (davinci_kernel_task.cc @d8beaaf)
    "Aicore kernel execute failed, device_id=0, stream_id=14, report_stream_id=17, task_id=13, "
    "fault kernel_name=add_1_kernel0, func_name=add_1_kernel0, program id=8, hash=1",
    # the renamed form at 681ef76 (davinci_kernel_task.cc)
    "[DFX_INFO]AI Core kernel execution failed, device_id=0, stream_id=2, report_stream_id=2, task_id=7, "
    "flip_num=0, fault kernel_name=GatherV3_1, fault kernel info ext=none, program id=3, hash=9.",
    "AIV Kernel happen error, retCode=0x31.",  # the vector core's, before the rename (davinci_task.cc @d8beaaf)
    "Vector Core kernel execution failed, retCode=0x31.",  # after it (davinci_kernel_task_v100.cc @681ef76)
    "Fusion kernel execute failed, device_id=0, stream_id=3, report_stream_id=3, task_id=5, flip_num=0, "
    "kernel_name=fused_mla_1, kernel info ext=none",  # fusion_task.cc @681ef76
    "FftsPlus task execution failed, dev_id=0, stream_id=2, task_id=9, context_id=1, thread_id=0, err_type=1[aicore "
    "exception], error_code=0, pc start=0x12. fault kernel_name=MatMul_1, blockDim=24.",  # ffts_task.cc @681ef76
])
def test_each_form_of_the_runtime_kernel_failure_report_names_the_ai_core_exception_first(line):
    assert ex.explain_text(RUNTIME + line + "\n").categories[0] == "aicore_exception"


def test_the_runtime_ai_cpu_kernel_report_names_the_tutorials_ai_cpu_entry():
    for line in ("Aicpu kernel execute failed, device_id=0, stream_id=116, task_id=2, fault so_name=libaicpu_kernels.so,"
                 " fault kernel_name=GetNext, fault op_name=, extend_info=.",
                 "AI CPU kernel execution failed, device_id=0, stream_id=3, task_id=4, flip_num=0, kernel_type=6, "
                 "fault op_name=Unique, soName=libcpu_kernels.so"):
        found = [f for f in ex.explain_text(RUNTIME + line + "\n").findings[:2]
                 if f.entry == "ms_aicpu_kernel_execute_failed"]  # a rule may name the kernel's component first
        assert found and found[0].source == TUTORIALS + "cann_error_cases.html"
        assert "fault kernel_name" in found[0].cause


@pytest.mark.parametrize(("log", "family"), [
    ("ValueError: For 'set_context', package type mindspore-gpu support 'device_target' type gpu or cpu, but got "
     "Ascend.\n", "mindspore_target"),
    ("RuntimeError: mindspore/ccsrc/runtime/device/ascend/ascend_memory_manager.cc:62 MallocDeviceMemory] Malloc device"
     " memory failed, size[32212254720], ret[207001], Device 6 may be other processes occupying this card, check as: "
     "ps -ef|grep python\n", "device_busy"),
    ("RuntimeError: Device 8 call rtSetDevice failed, ret[107001].\n"
     "EE1001: The argument is invalid.Reason: Set device failed, invalid device, set device=8, valid device range is "
     "[0, 8)\n", "visible_devices"),
])
def test_tutorial_messages_of_catalogue_families_name_the_family_first(log, family):
    assert ex.explain_text(log).categories[0] == family


def test_a_cpu_wheel_asking_for_gpu_is_not_the_ascend_target_family():
    log = "ValueError: For 'set_context', package type mindspore-cpu support 'device_target' type cpu, but got GPU.\n"
    assert "mindspore_target" not in ex.explain_text(log).categories


ROUND19 = [e for e in yaml.safe_load(DOCS_PATH.read_text(encoding="utf-8"))["entries"]
           if e["source"].startswith(TUTORIALS)]


def test_every_tutorial_page_of_the_section_was_read():
    pages = {e["source"].removeprefix(TUTORIALS) for e in ROUND19}
    assert pages == {"cann_error_cases.html", "error_scenario_analysis.html", "mindrt_debug.html",
                     "minddata_debug.html", "mindir.html"}


@pytest.mark.parametrize("entry", ROUND19, ids=[e["id"] for e in ROUND19])
def test_each_tutorial_message_on_a_mindspore_error_line_is_named_with_its_page(entry):
    signature = entry["signatures"] if isinstance(entry["signatures"], str) else entry["signatures"][0]
    log = ("[ERROR] ME(4242,ffff,python):2026-01-01-00:00:00.000.000 [mindspore/ccsrc/x.cc:1] Run] "
           + signature + " (detail)\n")
    report = ex.explain_text(log)
    named = [f for f in report.findings if f.entry == entry["id"] or entry["source"] in (f.source or "")
             or entry["source"] in " ".join(f.sources)]
    assert named, (entry["id"], report.categories)
    if entry.get("family"):
        assert entry["family"] in report.categories[:2]


def test_a_healthy_mindspore_training_log_stays_silent():
    log = ("epoch: 1 step: 1875, loss is 0.1123456\n"
           "[WARNING] MD(4242,ffff,python):2026-01-01-00:00:00.000.000 [data_queue_op.cc:93] ~DataQueueOp] "
           "preprocess_batch: 10; batch_queue: 0, 0, 2, 2\n"
           "The result of multiplication calculation is correct, MindSpore has been installed successfully!\n")
    assert ex.explain_text(log).findings == []
