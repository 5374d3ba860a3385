"""Lab 02 checks: right answers pass, common mistakes get a hint (not the answer), stubs count as unanswered."""

import pytest

from npulab.course.labs import lab02


@pytest.fixture(autouse=True)
def lenient(monkeypatch):
    monkeypatch.delenv("NPULAB_LAB_STRICT", raising=False)


def test_right_answers():
    lab = lab02.make_lab()
    assert lab.check("nz_shape", (4, 3, 4, 16, 32))
    assert lab.check("position", lambda m, n, n0: (n // n0, m // 16, m % 16, n % n0))
    assert lab.check("instructions", 7 * 13 * 19)
    assert lab.check("utilisation", 100 * 200 * 300 / (7 * 13 * 19 * 4096))
    assert lab.check("attainable", 1538e9 * 2 / 1e12)
    assert lab.check("allreduce", 2 * 7 / 8 * 25_557_032 * 4 / 26.2e9 * 1e3)
    assert lab.check("chip_peak", 245.76)
    assert lab.report() == {"correct": 7, "wrong": 0, "unanswered": 0}


@pytest.mark.parametrize(
    "question, answer, hint",
    [
        ("nz_shape", (4, 5, 4, 16, 16), "int8"),
        ("nz_shape", (4, 4, 3, 16, 32), "顺序反了"),
        ("nz_shape", (3, 4, 16, 32), "5 维"),
        ("position", lambda m, n, n0: (m // 16, n // n0, m % 16, n % n0), "顺序反了"),
        ("position", lambda m, n, n0: (n // n0, m // 16, n % n0, m % 16), "按行存放"),
        ("position", lambda m, n, n0: (n // 16, m // 16, m % 16, n % 16), "N0=32"),
        ("instructions", 100 * 200 * 300 / 4096, "补齐"),
        ("instructions", 100 * 200 * 300, "乘加次数"),
        ("utilisation", 84.72, "百分数"),
        ("attainable", 294.912, "算力峰值"),
        ("attainable", 1538e9 * 8 / 6 / 1e12, "1 个输入"),
        ("attainable", 1538e9 * 8 / 8 / 1e12, "字节"),
        ("allreduce", 2 * 7 / 8 * 25_557_032 / 26.2e9 * 1e3, "字节"),
        ("allreduce", 25_557_032 * 4 / 26.2e9 * 1e3, "2(n−1)/n"),
    ],
)
def test_mistakes_get_hints_without_the_answer(capsys, question, answer, hint):
    assert lab02.make_lab().check(question, answer) is False
    out = capsys.readouterr().out
    assert hint in out
    for secret in ("1729", "(4, 3, 4, 16, 32)", "3.07", "6.83"):
        assert secret not in out


def test_stub_function_is_unanswered(capsys):
    lab = lab02.make_lab()
    assert lab.check("position", lambda m, n, n0: ...) is False
    assert "尚未作答" in capsys.readouterr().out
    assert lab.results["position"] is None


def test_chip_peak_comes_from_the_chip_table(capsys):
    lab = lab02.make_lab()
    assert lab.check("chip_peak", 20 * 16**3 * 2 * 1500e6 / 1e12)  # 910B4: 245.76 TFLOPS
    for wrong, hint in ((294.912, "910B3"), (122.88, "2 次"), (245760.0, "数量级")):
        assert not lab.check("chip_peak", wrong)
        assert hint in capsys.readouterr().out
