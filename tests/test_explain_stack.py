"""The NPU stack's own messages (issue 36, round 20): the extractor (scripts/extract_npu_messages.py) and the matching
(npulab/env/explain/stack.py), and what explain makes of a log that shows no machine but ends in such a message."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from npulab.env.explain import explain_text, stack

ROOT = Path(__file__).resolve().parents[1]


def _extractor():
    spec = importlib.util.spec_from_file_location("extract_npu_messages", ROOT / "scripts" / "extract_npu_messages.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


x = _extractor()

SOURCE = '''
import logging
logger = logging.getLogger(__name__)
def f(name, n):
    if n:
        raise ValueError(f"For '{name}', the rank of the input tensor must be at least {n}, but got {n - 1}.")
    assert name, "camem allocator is not available on this device"
    logger.error("Failed to launch the kernel %s on stream %d of the device", name, n)
    raise RuntimeError("The graph executor cannot find the device context of " + name + " in the pool")
    raise TypeError("Invalid value {} for the attribute {}".format(name, n))
    logger.info("this info message is never extracted at all")
'''


def test_python_templates_turn_placeholders_into_wildcards():
    found = x.python_templates(SOURCE)
    assert "For '<*>', the rank of the input tensor must be at least <*>, but got <*>." in found
    assert "camem allocator is not available on this device" in found
    assert "Failed to launch the kernel <*> on stream <*> of the device" in found
    assert "The graph executor cannot find the device context of <*> in the pool" in found
    assert "Invalid value <*> for the attribute <*>" in found
    assert not any("info message" in t for t in found)


def test_generic_and_short_templates_are_dropped():
    torch_grams = x.trigrams("No such file or directory") | x.trigrams("the input tensor must be")
    assert x.generic("No such file or directory", torch_grams)
    assert not x.generic("camem allocator is not available", torch_grams)
    assert not x.distinctive("<*> failed: <*>")  # placeholders and one word
    assert x.distinctive("For '<*>', the rank of the input tensor must be at least <*>")
    # a library string must also read as an error (its level is unknown)
    assert not x.kept("Appending the lifelong tensors to the memory solution", set(), True)
    assert x.kept("The lifelong tensors cannot be appended to the solution", set(), True)


def test_messages_that_differ_in_identifiers_become_one_template():
    chosen = x.select({"Current operator npu_add_rms do not support internal format.": {"b.py:f"},
                       "Current operator npu_mul_2 do not support internal format.": {"a.py:g"}}, {}, set())
    assert chosen == {x.cut("Current operator <*> do not support internal format."): "a.py:g"}


def test_a_template_with_placeholders_matches_a_line_a_generic_phrase_does_not():
    templates = tuple(t for t in (stack.parse("mindspore", "mindspore", "For '<*>', the rank of <*> must be at least <*>"),
                                  stack.parse("torch_npu", "torch-npu", "camem allocator is not available")) if t)
    line = "ValueError: For 'Conv2D', the rank of the input 'x' must be at least 4, but got 3."
    assert stack.said_by(line, templates) == ("mindspore", "mindspore")
    assert stack.said_by("ValueError: the rank of x must be at least 4 For 'Conv2D'", templates) is None  # order
    assert stack.said_by("FileNotFoundError: No such file or directory: 'a.txt'", templates) is None
    # the packaged index holds no generic phrase either
    assert stack.said_by("FileNotFoundError: [Errno 2] No such file or directory: 'model.bin'") is None
    assert stack.said_by("RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB") is None


def test_the_packaged_index_records_its_sources_and_stays_compact():
    path = stack.MESSAGES_PATH
    head = path.read_text(encoding="utf-8")[:3000]
    assert "mindspore 2.10.0" in head and "torch_npu-2.12.0" in head and "vllm-ascend" in head and "commit" in head
    assert path.stat().st_size < 800_000  # round 30: each template under the file and function that raise it
    components = {t.component for t in stack.packaged()}
    assert components == {"mindspore", "torch_npu", "vllm_ascend"}


def test_a_log_that_shows_no_machine_but_ends_in_a_mindspore_message_is_an_ascend_error():
    if stack.said_by("TypeError: Multiply values for specific argument: query_embeds") is None:
        pytest.skip("the packaged index does not hold this MindSpore message")
    report = explain_text("Traceback (most recent call last):\n  File \"train.py\", line 3, in <module>\n"
                          "    net(x, query_embeds=y)\nTypeError: Multiply values for specific argument: query_embeds\n")
    assert report.findings, "never silent on an error of the NPU stack"
    assert report.findings[-1].kind == "generic"
    assert any(f.category == "failing_component" and "mindspore" in f.title for f in report.findings)


def test_a_generic_error_in_a_log_that_shows_no_machine_stays_silent():
    report = explain_text("Traceback (most recent call last):\n  File \"a.py\", line 1, in <module>\n"
                          "FileNotFoundError: [Errno 2] No such file or directory: 'data.csv'\n")
    assert report.findings == []


def test_a_pybind_frame_list_through_an_ascend_install_gives_a_root():
    log = ("At:\n  /usr/local/Ascend/atb-models/atb_llm/models/base/model_utils.py(14): <module>\n"
           "  <frozen importlib._bootstrap>(241): _call_with_frames_removed\n"
           "  /usr/local/Ascend/atb-models/atb_llm/models/__init__.py(8): <module>\n")
    report = explain_text(log)
    assert report.root_error is not None and report.root_error.line == 2
    assert report.findings and report.findings[-1].kind == "generic"
    assert "model_utils.py" in report.findings[-1].evidence[0].text


DATA = ROOT / "tests" / "data"


@pytest.mark.parametrize(("path", "component"), [
    ("explain_fresh_2026_12s/msgraphnumpy_hwcomputingcsdn.log", "mindspore"),  # a string of MindSpore's _c_expression
    ("explain_fresh_2026_12r/camemsleepmode_vllmascend556.log", "vllm-ascend"),  # v0.7.3's assert, its last line
    ("explain_fresh_2026_12r/mindieqwen2vl_gpustack2194.log", "atb-models"),  # an At: list under /usr/local/Ascend
])
def test_development_logs_the_round_was_written_for_are_no_longer_silent(path, component):
    from npulab.env.explain import explain_file
    report = explain_file(DATA / path)
    assert report.findings and report.findings[-1].kind == "generic"
    assert any(f.category == "failing_component" and component in f.title for f in report.findings)


def test_a_warning_of_the_stack_alone_is_no_error():
    report = explain_text("UserWarning: Register eager implementation for the 'npu' backend of dynamo, as torch_npu "
                          "was not compiled with torchair.\n")
    assert report.findings == []
