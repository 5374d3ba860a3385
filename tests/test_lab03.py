"""Lab 03 checks: right answers pass, stubs count as unanswered, wrong answers get a hint (not the answer)."""

import pytest

from npulab.course.labs import lab03


@pytest.fixture
def lenient(monkeypatch):
    monkeypatch.delenv("NPULAB_LAB_STRICT", raising=False)


def test_severity_follows_the_analyzer(lenient, capsys):
    lab = lab03.make_lab()
    right = {"a": "auto", "b": "manual", "c": "manual", "d": "auto", "e": "manual", "f": "blocker"}
    assert {k: lab03.expected_severity(v) for k, v in lab03.SEVERITY_LINES.items()} == right
    assert lab.check("severity", right)
    assert lab.check("severity", dict.fromkeys(right, ...)) is False and lab.results["severity"] is None
    assert lab.check("severity", {**right, "c": "blocker"}) is False  # flash_attn has a named replacement
    out = capsys.readouterr().out
    assert "替代接口" in out and "blocker" not in out.split("✗")[-1].split("提示")[1]


def test_backend_scales_mfu_bn(lenient, capsys):
    lab = lab03.make_lab()
    assert lab.check("backend", lambda kind: ...) is False and lab.results["backend"] is None
    assert not lab.check("backend", lambda kind: "nccl")
    assert lab.check("backend", lambda kind: {"cuda": "nccl", "npu": "hccl", "cpu": "gloo"}[kind])

    def predict(overflows, init, interval):
        scale, clean, out = init, 0, []
        for overflow in overflows:
            clean = 0 if overflow else clean + 1
            scale = scale * 0.5 if overflow else scale * 2 if clean == interval else scale
            clean = 0 if clean == interval else clean
            out.append(scale)
        return out

    assert not lab.check("scales", lambda o, i, g: [i * (0.5 if x else 1) for x in o])
    assert lab.check("scales", predict)

    expected = lab03._expected_mfu()
    for wrong, hint in ((expected / 3, "只算了前向"), (expected / 100, "百分数")):
        lab.check("mfu", wrong)
        assert hint in capsys.readouterr().out
    assert 10.0 < expected < 11.0 and lab.check("mfu", expected)
    assert not lab.check("bn", False) and lab.check("bn", True)
    assert lab.check("severity", {"a": "auto", "b": "manual", "c": "manual", "d": "auto", "e": "manual", "f": "blocker"})
    assert lab.report()["correct"] == 5


def test_host_bound(lenient, capsys):
    lab = lab03.make_lab()
    assert lab.check("host_bound", {"host_ms": ..., "host_bound": True}) is False and lab.results["host_bound"] is None
    assert not lab.check("host_bound", {"host_ms": 30_000, "host_bound": True})
    assert "微秒" in capsys.readouterr().out
    assert not lab.check("host_bound", {"host_ms": 30, "host_bound": False})
    assert lab.check("host_bound", {"host_ms": 30.0, "host_bound": True})


def test_memory_hints_name_the_missing_part(lenient, capsys):
    from npulab.pytorch.compile import mlp_step_memory

    m = mlp_step_memory(**lab03.MEMORY_CASE, optimizer="adam")
    lab = lab03.make_lab()
    assert lab.check("memory", m.total)
    for answer, hint in ((m.total - m.gradients, "漏了梯度，还是只算了 Adam 的一份状态"),
                         (m.total - m.optimizer_state / 2, "漏了梯度，还是只算了 Adam 的一份状态"),
                         (m.total - m.optimizer_state, "少了优化器状态"), (m.total - m.activations, "少了激活"),
                         (m.total / 2**20, "MiB 或 MB")):
        capsys.readouterr()
        assert not lab.check("memory", answer)
        assert hint in capsys.readouterr().out, answer
