"""msprof-analyze's API comparison of two torch.profiler traces (npulab.pytorch.msprof_compare)."""

import json
import math

import pytest

from npulab.pytorch import msprof_compare, profile_trace

openpyxl = pytest.importorskip("openpyxl")


def write_report(path, header=msprof_compare.COLUMNS, sheet=msprof_compare.SHEET):
    """An .xlsx laid out as msprof-analyze 26.2.0 writes its ApiCompare sheet (two title rows, then the columns)."""
    book = openpyxl.Workbook()
    ws = book.active
    ws.title = sheet
    ws.append([None, None, "Base Profiling: /x/slow.json", None, None, None, "Comparison Profiling: /x/fast.json"])
    ws.append([])
    ws.append(list(header))
    ws.append([1, "aten::argmax", 2.61, 2.18, 0.01, 192, 0.10, 0.10, 0.03, 3, 0.0383, 0.0459, 3, 0.0156])
    ws.append([2, "aten::linear", 44.5, 0.17, 4.95, 9, 29.1, 0.12, 3.24, 9, 0.65, 0.70, 0.65, 1])
    ws.append([3, "aten::item", 0.39, 0.27, 0.0, 192, 0, 0, 0, 0, 0, 0, 1, 0])
    ws.append([4, "aten::new_op", 0, 0, 0, 0, 0.2, 0.2, 0.1, 2, None, None, None, None])
    book.save(path)
    return path


def test_read_report_takes_both_sides_of_each_row(tmp_path):
    rows = msprof_compare.read_report(write_report(tmp_path / "r.xlsx"))
    assert [r.name for r in rows] == ["aten::argmax", "aten::linear", "aten::item", "aten::new_op"]
    argmax = rows[0]
    assert (argmax.base_calls, argmax.calls, argmax.base_self_ms, argmax.self_ms) == (192, 3, 2.18, 0.10)
    assert argmax.calls_ratio == pytest.approx(3 / 192) and math.isinf(rows[3].calls_ratio)


def test_table_lists_only_changed_calls_most_removed_first(tmp_path):
    run = msprof_compare.ApiCompare(msprof_compare.read_report(write_report(tmp_path / "r.xlsx")), 1.0,
                                    tmp_path / "r.xlsx", [])
    table = run.table("标题")
    assert [r[0] for r in table.rows] == ["aten::item", "aten::argmax", "aten::new_op"]  # linear: 9 → 9, left out
    assert table.rows[0][1:3] == ["192 → 0", "0"] and table.rows[2][2] == "∞"
    assert msprof_compare.ratio_text(3 / 192) == "0.0156"


def test_read_report_says_what_is_wrong_with_another_layout(tmp_path):
    with pytest.raises(ValueError, match="列与 msprof-analyze 26.2.0 的不同"):
        msprof_compare.read_report(write_report(tmp_path / "a.xlsx", header=["Order Id", "api name", "Calls"]))
    with pytest.raises(ValueError, match="没有 ApiCompare 表"):
        msprof_compare.read_report(write_report(tmp_path / "b.xlsx", sheet="OperatorCompare"))


def test_command_is_what_a_learner_types():
    assert msprof_compare.command("b.json", "a.json", "out") == [
        "msprof-analyze", "compare", "-d", "b.json", "-bp", "a.json", "--enable_api_compare", "-o", "out"]


def test_trace_remembers_the_file_it_was_read_from(tmp_path):
    path = tmp_path / "t.json"
    path.write_text('{"traceEvents": []}', encoding="utf-8")
    assert profile_trace.load(path).source == str(path)
    assert profile_trace.load({"traceEvents": []}).source is None


def chrome_trace(path, relu_calls: int):
    """A Chrome trace shaped as torch.profiler exports one (a JSON object with host ``cpu_op`` events)."""
    events = [{"ph": "X", "cat": "cpu_op", "name": "aten::relu", "pid": 1, "tid": 1, "ts": 10.0 * i, "dur": 5.0,
               "args": {"External id": i + 1}} for i in range(relu_calls)]
    events.append({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 1000.0, "dur": 50.0,
                   "args": {"External id": 99}})
    path.write_text(json.dumps({"schemaVersion": 1, "deviceProperties": [], "traceEvents": events}), encoding="utf-8")
    return path


@pytest.mark.skipif(not msprof_compare.available(), reason="msprof-analyze 未安装")
def test_api_compare_runs_the_tool_on_two_chrome_traces(tmp_path):
    base, comparison = chrome_trace(tmp_path / "base.json", 8), chrome_trace(tmp_path / "cmp.json", 2)
    run = msprof_compare.api_compare(comparison, base, workdir=tmp_path / "out")
    calls = {r.name: (r.base_calls, r.calls) for r in run.rows}
    assert calls == {"aten::relu": (8, 2), "aten::mm": (1, 1)}
    assert [r.name for r in run.changed_calls()] == ["aten::relu"]
    assert run.report.suffix == ".xlsx" and run.argv[:2] == ["msprof-analyze", "compare"]


def test_api_compare_without_the_package_says_how_to_install(monkeypatch):
    monkeypatch.setattr(msprof_compare, "available", lambda: False)
    with pytest.raises(RuntimeError, match="pip install -r requirements.txt"):
        msprof_compare.api_compare("a.json", "b.json")
