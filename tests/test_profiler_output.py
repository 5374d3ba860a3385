"""npulab.ascend_tools.profiler_output: the ASCEND_PROFILER_OUTPUT readers.

No real NPU profile is published in a form we could ship, so these tests write small files with the
documented column names (CANN profiling reference, torch_npu's _csv_headers.py) and known values, and check
that every reader finds the columns by name, across the known version differences."""

from __future__ import annotations

import json

import pytest

from npulab.ascend_tools import profiler_output as po

KERNEL_HEADER = ("Step Id,Device_id,Model ID,Task ID,Stream ID,Name,Type,OP State,Accelerator Core,Start Time(us),"
                 "Duration(us),Wait Time(us),Block Dim,Mix Block Dim,Input Shapes\n")


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def out_dir(tmp_path):
    root = tmp_path / "host_123_20261201_ascend_pt" / po.OUTPUT_DIR
    write(root / "kernel_details.csv", KERNEL_HEADER
          + '1,0,N/A,1,2,aclnnMm_MatMul,MatMulV2,dynamic,AI_CORE,1000.0,300.0,0.0,20,0,"8,8;8,8"\n'
          + "1,0,N/A,2,2,aclnnAdd_Add,Add,dynamic,AI_VECTOR_CORE,1350.0,50.0,50.0,8,0,\n"
          + "1,0,N/A,3,2,Nonzero,NonZero,dynamic,AI_CPU,1900.0,200.0,500.0,1,0,\n"
          + "2,0,N/A,4,2,aclnnMm_MatMul,MatMulV2,dynamic,AI_CORE,3000.0,280.0,0.0,20,0,\n"
          + "2,0,N/A,5,2,aclnnAdd_Add,Add,dynamic,AI_VECTOR_CORE,3100.0,20.0,0.0,8,0,\n")
    write(root / "op_statistic.csv", "Device_id,OP Type,Core Type,Count,Total Time(us),Min Time(us),Avg Time(us),"
          "Max Time(us),Ratio(%)\n0,Add,AI_VECTOR_CORE,2,70,20,35,50,8.2\n0,MatMulV2,AI_CORE,2,580,280,290,300,68.2\n"
          "0,NonZero,AI_CPU,1,200,200,200,200,23.5\n")
    write(root / "step_trace_time.csv", "Device_id,Step,Computing,Communication(Not Overlapped),Overlapped,"
          "Communication,Free,Stage,Bubble,Communication(Not Overlapped and Exclude Receive),Preparing\n"
          "0,1,550,0,0,0,450,1000,0,0,120\n0,2,300,0,0,0,200,500,0,0,N/A\n")
    write(root / "trace_view.json", json.dumps([
        {"ph": "M", "name": "process_name", "pid": 7, "args": {"name": "Ascend Hardware"}},
        {"ph": "M", "name": "process_name", "pid": 3, "args": {"name": "Python"}},
        {"ph": "X", "name": "MatMulV2", "pid": 7, "tid": 2, "ts": "1000.0", "dur": 300.0},
        {"ph": "X", "name": "aten::mm", "cat": "cpu_op", "pid": 3, "tid": 1, "ts": 990.0, "dur": 30.0}]))
    return tmp_path


def test_finds_the_output_folder_from_above(out_dir):
    assert po.find_output_dir(out_dir).name == po.OUTPUT_DIR
    assert po.present_files(out_dir) == dict.fromkeys(po.FILES, True)
    with pytest.raises(po.ProfilerOutputError, match="ASCEND_PROFILER_OUTPUT"):
        po.find_output_dir(out_dir / "nothing-here")


def test_kernel_details(out_dir):
    ks = po.kernel_details(po.find_output_dir(out_dir) / "kernel_details.csv")
    assert len(ks) == 5 and ks[0].step == 1 and ks[0].type == "MatMulV2" and ks[0].block_dim == 20
    assert [k.name for k in ks if k.on_ai_cpu] == ["Nonzero"]
    by_type = po.time_by_type(ks)
    assert [(t.type, t.calls, t.total_us) for t in by_type] == [("MatMulV2", 2, 580), ("NonZero", 1, 200),
                                                               ("Add", 2, 70)]
    assert [t.type for t in po.ai_cpu_kernels(ks)] == ["NonZero"]


def test_device_busy_per_step(out_dir):
    ks = po.kernel_details(po.find_output_dir(out_dir) / "kernel_details.csv")
    s1, s2 = po.device_busy(ks)
    assert (s1.step, s1.span_us, s1.busy_us, s1.largest_gap_us, s1.gap_after) == (1, 1100, 550, 500, "aclnnAdd_Add")
    assert s1.idle_ratio == pytest.approx(0.5)
    assert (s2.span_us, s2.busy_us, s2.largest_gap_us) == (280, 280, 0)  # the Add overlaps the MatMul


def test_op_statistic_and_step_trace_time(out_dir):
    root = po.find_output_dir(out_dir)
    ops = po.op_statistic(root / "op_statistic.csv")
    assert ops[0].op_type == "MatMulV2" and ops[0].count == 2 and ops[0].ratio_percent == 68.2
    steps = po.step_trace_time(root / "step_trace_time.csv")
    assert [s.step for s in steps] == ["1", "2"] and steps[0].free_ratio == pytest.approx(0.45)
    assert steps[0].preparing == 120 and steps[1].preparing is None and steps[0].total == 1000


def test_version_aliases_and_missing_columns(tmp_path):
    old = write(tmp_path / "kernel_details.csv", "\ufeffStep ID,Name,Type,Accelerator Core,Start Time(us),"
                "Duration(us),Wait Time(us),Block Num\n,Cast,Cast,AI_CORE,5,1,0,4\n")
    (k,) = po.kernel_details(old)
    assert k.step is None and k.block_dim == 4
    bad = write(tmp_path / "op_statistic.csv", "Name,Duration(us)\nx,1\n")
    with pytest.raises(po.ProfilerOutputError, match="OP Type"):
        po.op_statistic(bad)


def test_trace_view_counts_the_hardware_timeline_as_device(out_dir):
    trace = po.load_trace_view(out_dir / "host_123_20261201_ascend_pt")
    assert [e.name for e in trace.kernels] == ["MatMulV2"]
    assert trace.kernels[0].ts == 1000.0


def test_cli_summarises_an_ascend_folder(out_dir, capsys):
    from npulab.__main__ import main

    assert main(["trace", str(out_dir), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["kernel_types"][0]["type"] == "MatMulV2" and summary["ai_cpu"][0]["type"] == "NonZero"
    assert summary["steps"][0]["free_ratio"] == 0.45
    assert main(["trace", str(out_dir)]) == 0
    assert "AI CPU 上的算子：NonZero×1" in capsys.readouterr().out
