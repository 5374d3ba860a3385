import pytest
import yaml

from npulab.core import peaks, provenance
from npulab.core.device import Device
from npulab.core.provenance import Kind


def test_every_reported_figure_has_a_known_source_and_fields():
    data = yaml.safe_load(provenance.REPORTED_FILE.read_text(encoding="utf-8"))
    for key, source in data["sources"].items():
        assert {"title", "url", "hardware", "versions"} <= set(source), key
    for fig_id, entry in data["figures"].items():
        assert entry["source"] in data["sources"], fig_id
        assert isinstance(entry["value"], (int, float)), fig_id
        assert entry["what"] and entry["method"], fig_id


def test_reported_figure_carries_source_hardware_and_versions():
    fig = provenance.reported("seed.hello.speedup")
    assert fig.kind is Kind.REPORTED and fig.value == 164.6
    assert "910B3" in fig.origin and "CANN 8.0.1" in fig.origin
    assert "单次" in fig.note


def test_seed_speedup_is_consistent_with_its_two_times():
    cpu = provenance.reported("seed.hello.matmul4096_cpu_ms").value
    npu = provenance.reported("seed.hello.matmul4096_npu_ms").value
    # 351.01 / 2.13 = 164.8, not the reported 164.6: only consistent because 2.13 ms is rounded
    low, high = cpu / (npu + 0.005), cpu / (npu - 0.005)
    assert low < provenance.reported("seed.hello.speedup").value < high


def test_unknown_figure_is_a_clear_error():
    with pytest.raises(KeyError, match="报告数据中没有"):
        provenance.reported("no.such.figure")


def test_table_renders_html_and_text():
    table = provenance.FigureTable(
        [provenance.measured("吞吐", 12.5, "GFLOP/s", "cpu"), provenance.derived("比值", 2.0, "×", "a / b")], "标题"
    )
    html = table._repr_html_()
    assert "<table" in html and "实测" in html and "推导" in html and "a / b" in html and "标题" in html
    assert "12.5 GFLOP/s" in repr(table)
    assert provenance.measured("x", 351.01, "ms", "cpu").formatted() == "351.01 ms"


def test_fp32_peaks():
    assert peaks.cpu_fp32_flop_per_cycle({"avx512f"}) == 64
    assert peaks.cpu_fp32_flop_per_cycle({"avx2", "fma"}) == 32
    # Zen 4 (AMD family 0x19) runs AVX-512 on 2 × 256-bit FMA pipes: 32 FP32 FLOP/cycle, not 64; Zen 5 (0x1A) is 512-bit
    assert peaks.cpu_fp32_flop_per_cycle({"avx512f", "avx2", "fma"}, "AuthenticAMD", 25) == 32
    assert peaks.cpu_fp32_flop_per_cycle({"avx512f"}, "AuthenticAMD", 26) == 64
    assert peaks.cpu_fp32_flop_per_cycle({"avx512f"}, "GenuineIntel", 6) == 64
    assert peaks.cpu_vendor_family("vendor_id\t: AuthenticAMD\ncpu family\t: 25\n") == ("AuthenticAMD", 25)
    assert peaks.cpu_vendor_family("") == (None, None)
    h100 = peaks.fp32_peak(Device("cuda", "NVIDIA H100 80GB HBM3"))
    assert h100.kind is Kind.REPORTED and h100.value == pytest.approx(66_900)
    assert peaks.fp32_peak(Device("cuda", "NVIDIA A100-SXM4-80GB")).value == pytest.approx(19_500)
    assert peaks.fp32_peak(Device("npu", "Ascend910B3")) is None  # no sourced FP32 peak: no percentage
    cpu = peaks.fp32_peak(Device("cpu", "cpu"))
    assert cpu is None or (cpu.kind is Kind.DERIVED and cpu.value > 0 and "ghz" in cpu.origin)


def test_cpu_peak_is_derived_from_cpuinfo(monkeypatch):
    """Whatever this machine's /proc/cpuinfo says, the formula is checked on a known one."""
    cpu_block = "processor\t: {i}\nphysical id\t: 0\ncore id\t\t: {i}\ncpu MHz\t\t: 2600.000\nflags\t\t: avx2 fma\n\n"
    monkeypatch.setattr(peaks, "read_cpuinfo", lambda: "".join(cpu_block.format(i=i) for i in range(2)))
    monkeypatch.setattr(peaks.os, "sched_getaffinity", lambda _pid: {0, 1}, raising=False)
    cpu = peaks.fp32_peak(Device("cpu", "cpu"))
    assert cpu.kind is Kind.DERIVED and cpu.value == pytest.approx(2 * 2.6 * 32)  # 166.4 GFLOP/s
    assert "cores = 2" in cpu.origin and "ghz = 2.6" in cpu.origin and "flop_per_cycle = 32" in cpu.origin
    monkeypatch.setattr(peaks, "read_cpuinfo", lambda: "")
    assert peaks.fp32_peak(Device("cpu", "cpu")) is None  # no clock, no peak


def test_h100_pcie_is_not_given_the_sxm_peak():
    assert peaks.fp32_peak(Device("cuda", "NVIDIA H100 PCIe")) is None
    assert peaks.fp32_peak(Device("cuda", "NVIDIA H100 NVL")) is None
    assert peaks.fp32_peak(Device("cuda", "NVIDIA H200")).value == pytest.approx(66_900)


def test_physical_cores_ignore_hyperthread_siblings():
    two_threads_per_core = "".join(f"processor\t: {i}\nphysical id\t: 0\ncore id\t\t: {i // 2}\n\n" for i in range(4))
    assert peaks.physical_cores(two_threads_per_core) == 2
    assert peaks.physical_cores(two_threads_per_core, {0, 1}) == 1
    two_sockets = "".join(f"processor\t: {i}\nphysical id\t: {i}\ncore id\t\t: 0\n\n" for i in range(2))
    assert peaks.physical_cores(two_sockets) == 2
    assert peaks.physical_cores("processor\t: 0\nmodel name\t: x\n") is None  # no core id: caller falls back


def test_reported_sources_are_cited_once_per_table():
    a = provenance.reported("seed.hello.matmul4096_cpu_ms")
    b = provenance.reported("seed.hello.matmul4096_npu_ms")
    html = provenance.FigureTable([a, b, provenance.measured("吞吐", 1.0, "GFLOP/s", "cpu")])._repr_html_()
    assert html.count(a.origin.split("；")[0]) == 1  # the long citation appears once, in the table's notes
    assert html.count("见注 [1]") == 2 and "<tfoot>" in html and "本机 cpu" in html
