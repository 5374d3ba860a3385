"""Lab 05 checks: right answers pass, common mistakes get a hint that does not give the answer away."""

from __future__ import annotations

import pytest

from npulab.ascend_tools import smi
from npulab.course.labs import lab05
from npulab.pytorch import profile_trace


@pytest.fixture
def lab(monkeypatch):
    monkeypatch.delenv("NPULAB_LAB_STRICT", raising=False)
    return lab05.make_lab()


def test_right_answers(lab):
    assert lab.check("cards", lambda text: smi.parse_list(text)["card_count"])
    assert lab.check("phy", 9)
    assert lab.check("pcie", 31.5)
    assert lab.check("om", 51.1)
    assert lab.check("shape", "pixel_values:1,3,32,32")
    assert lab.check("release", [lab05.RELEASES[c] for c in reversed(lab05.ACQUIRED)])
    assert lab.check("hot_op", profile_trace.top_ops(lab05.lab_trace(), 1)[0].name)
    assert lab.check("overflow", "block.proj")
    assert lab.report() == {"correct": 8, "wrong": 0, "unanswered": 0}


@pytest.mark.parametrize(("question", "answer", "hint"), [
    ("cards", lambda text: sum(1 for line in text.splitlines() if "NPU" in line or "Chip" in line), "两倍"),
    ("cards", lambda text: ..., None),
    ("phy", 4, "NPU ID"),
    ("phy", 1, "Chip ID"),
    ("pcie", 25.2, "原文"),
    ("pcie", 252.06, "Gb/s"),
    ("pcie", 32, "128b/130b"),
    ("om", 102.2, "FP32"),
    ("om", 48.7, "MiB"),
    ("shape", "input:1,3,32,32", "输入名"),
    ("shape", "pixel_values:1,3,64,64", "固定为 32"),
    ("release", list(lab05.RELEASES.values()), "申请的顺序"),
    ("release", ["acl.rt.free"], "缺少"),
    ("hot_op", "aten::conv2d", "没有这个算子"),
    ("hot_op", 3, "字符串"),
    ("overflow", "block", "外层"),
    ("overflow", None, "float16"),
    ("overflow", "head", "更早"),
    ("overflow", "block.nothing", "没有这个名字"),
])
def test_mistakes_get_hints(lab, capsys, question, answer, hint):
    result = lab.check(question, answer)
    out = capsys.readouterr().out
    if hint is None:
        assert result is False and "尚未作答" in out
    else:
        assert result is False and hint in out
    assert "31.5" not in out and "pixel_values:1,3,32,32" not in out


def test_hot_op_by_total_time_gets_the_self_time_hint(lab, capsys):
    stats = profile_trace.top_ops(lab05.lab_trace(), 1000)
    by_total = max(stats, key=lambda s: s.total_us).name
    assert by_total != stats[0].name  # the trace has a wrapper (aten::linear) around the hot kernel
    assert lab.check("hot_op", by_total) is False and "总耗时" in capsys.readouterr().out
