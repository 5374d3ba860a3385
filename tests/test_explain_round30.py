"""explain round 30: the NPU stack's message templates by the place that raises them. The extractor
(scripts/extract_npu_messages.py) keeps each template's file and, for a Python source, its function; the subsystem
table (npulab/data/npu_subsystems.yaml) reads that file as the product's subsystem, with the subsystem's own page;
the failing-component finding names them. The sources below are written
here to exercise the extractor, not taken from a release."""

from __future__ import annotations

from test_explain_stack import x

from npulab.core.i18n import t
from npulab.env.explain import failing, stack, subsystem
from npulab.env.explain.root import RootLine

SOURCE = '''
import logging
logger = logging.getLogger(__name__)
raise RuntimeError("The module level message names no function at all")
class Allocator:
    def free(self, block):
        def check():
            raise ValueError("The inner check refuses the block of the caching allocator")
        logger.error("Freeing the block %s of the caching allocator failed", block)
        logger.error("Freeing the block %s of the caching allocator failed", block)
'''


def test_python_templates_keep_the_function_that_raises_each_message():
    found = x.python_templates(SOURCE)
    assert found["The module level message names no function at all"] == "<module>"
    assert found["The inner check refuses the block of the caching allocator"] == "Allocator.free.check"
    assert found["Freeing the block <*> of the caching allocator failed"] == "Allocator.free"


def test_select_keeps_the_first_place_of_a_template_raised_in_several():
    chosen = x.select({"The device context cannot be created on this device": {"z/b.py:g", "a/c.py:f"}},
                      {"The stream of the device cannot be created now:": {"lib/libx.so"}}, set())
    assert chosen == {x.cut("The device context cannot be created on this device"): "a/c.py:f",
                      x.cut("The stream of the device cannot be created now:"): "lib/libx.so"}


def test_the_packaged_index_lists_every_template_under_its_place():
    templates = stack.packaged()
    assert templates and all(tp.place for tp in templates)
    python = [tp for tp in templates if tp.path.endswith(".py")]
    assert python and all(tp.function for tp in python)  # a Python source names its function …
    assert all(not tp.function for tp in templates if ".so" in tp.path)  # … a library's string does not
    prefixes = {"mindspore": "mindspore/", "torch_npu": "torch_npu/", "vllm_ascend": "vllm_ascend/"}
    assert all(tp.path.startswith(prefixes[tp.component]) for tp in templates)


def test_a_place_is_read_as_the_longest_subsystem_prefix_of_its_own_component():
    def template(component, place):
        return stack.Template(component, component, ("x",), "x", place)

    hccl_wrapper = subsystem.of(template("torch_npu", "torch_npu/distributed/rpc/backend.py:_init"))
    assert hccl_wrapper.prefix == "torch_npu/distributed/" and hccl_wrapper.doc.startswith("https://www.hiascend.com/")
    assert subsystem.of(template("torch_npu", "torch_npu/contrib/module/roi.py:f")).prefix == "torch_npu/contrib/"
    hccl = subsystem.of(template("mindspore", "mindspore/communication/management.py:init"))
    assert "HCCL" in hccl.name("en") and hccl.doc
    assert subsystem.of(template("vllm_ascend", "mindspore/communication/management.py:init")) is None
    assert subsystem.of(template("torch_npu", "torch_npu/version.py:<module>")) is None


def test_every_subsystem_prefix_is_a_place_of_the_packaged_index():
    import yaml
    places = {tp.path for tp in stack.packaged()}
    for row in subsystem.packaged():
        assert any(p.startswith(row.prefix) for p in places), row.prefix
    assert yaml.safe_load(subsystem.SUBSYSTEMS_PATH.read_text(encoding="utf-8"))


def _root(text):
    return RootLine(3, text, 1, text)


def test_the_failing_finding_names_the_place_the_subsystem_and_its_page():
    line = "RuntimeError: The inner check refuses the block of the caching allocator"
    raised = stack.Template("mindspore", "mindspore", ("The inner check refuses",), "The inner check refuses",
                            "mindspore/communication/management.py:init")
    found = failing.Component("mindspore", "pip", "mindspore", line=3, origin="message")
    report = failing.finding(_root(line), found, raised)
    part = subsystem.of(raised)
    assert "`mindspore/communication/management.py`" in report.cause and "`init`" in report.cause
    assert part.name() in report.cause and part.doc in report.fix and part.doc in report.sources


def test_a_library_string_names_its_library_and_no_function_and_a_subsystem_without_a_page_adds_no_fix():
    found = failing.Component("torch_npu", "pip", "torch-npu", line=3, origin="message")
    plain = failing.finding(_root("RuntimeError: x"), found)
    dynamo = stack.Template("torch_npu", "torch-npu", ("x",), "x", "torch_npu/dynamo/torchair/core/_backend.py:f")
    with_place = failing.finding(_root("RuntimeError: x"), found, dynamo)
    assert with_place.fix == plain.fix and subsystem.of(dynamo).name() in with_place.cause
    native = stack.Template("torch_npu", "torch-npu", ("x",), "x", "torch_npu/lib/libtorch_npu.so")
    cause = failing.finding(_root("RuntimeError: x"), found, native).cause
    assert t("explain.failing.place_file", path="torch_npu/lib/libtorch_npu.so") in cause


def test_a_message_of_another_component_adds_no_place():
    raised = stack.Template("vllm_ascend", "vllm-ascend", ("x",), "x", "vllm_ascend/worker/model_runner.py:run")
    found = failing.Component("vllm", "pip", "vllm", line=3)
    plain = failing.finding(_root("RuntimeError: x"), found)
    assert failing.finding(_root("RuntimeError: x"), found, raised) == plain


# CANN's troubleshooting page "AI Core硬件故障" (hicann/docs docs/troubleshooting/zh/ai_core_hardware_fault.md at
# b0042ff): its host log's extend-info line, the values shortened here
AICORE_ECC = ("[ERROR] RUNTIME(377228,ascend-dmi):2024-04-02-15:49:01.883.876 [device_error_proc.cc:1176] 377265 "
              "ProcessStarsCoreErrorInfo: The extend info: errcode:(0, 0x80000000, 0) errorStr: A 2-bit ECC error "
              "occurs in the data-cache data-ram. fixp_error0 info: 0xff1cf9b, fsmId:0, subErrType:4.\n")


def test_the_ai_core_hardware_fault_page_is_read_as_a_documented_entry():
    from npulab.env.explain import explain_text
    report = explain_text(AICORE_ECC)
    assert any(f.kind == "docs" and f.entry == "cann_aicore_data_cache_ecc" for f in report.findings)
    # a single-bit ECC line is not this page's fault
    assert not any(f.entry == "cann_aicore_data_cache_ecc" for f in explain_text(
        AICORE_ECC.replace("2-bit", "1-bit")).findings)


# CANN's troubleshooting page "动态shape模型输入大小校验失败" (hicann/docs
# docs/troubleshooting/zh/dynamic_shape_input_check_failed.md at c94cf50): GE's input size check, its plog line
SIZE_CHECK = ("[ERROR] GE(187626,python3):2021-10-11-14:39:37:270.942 [execution_engine.cc:450]191154 ValidInputTensor:"
              "ErrorNo: 1343225860(Internal errors) [EXEC][EXEC][Check][Size] for [PartitionedCall_14(PartitionedCall)] "
              "Input[40]:tensor size mismatches.expected: 768032, but given 32.\n")


def test_the_dynamic_shape_size_check_page_is_read_as_a_documented_entry():
    from npulab.env.explain import explain_text
    report = explain_text(SIZE_CHECK)
    assert any(f.kind == "docs" and f.entry == "cann_dynamic_shape_input_size_check" for f in report.findings)
    # torch's own size messages are not GE's check
    assert not any(f.entry == "cann_dynamic_shape_input_size_check" for f in explain_text(
        "RuntimeError: The size of tensor a (4) must match the size of tensor b (3) at non-singleton dimension 1\n"
        "[ERROR] RUNTIME(1,python):2026-01-01 aclnn failed\n").findings)
