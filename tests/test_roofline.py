"""Roofline inputs equal the data file; the 910B3 peak is derived from the platform figures; workloads are sane."""

import pytest

from npulab.core.provenance import Kind, figure_entries
from npulab.hw import roofline


@pytest.fixture(scope="module")
def figures():
    return figure_entries()  # the data file's figures and the chip table's (ini.910b3.* are the 910B3's)


def test_machines_use_the_data_file(figures):
    by_name = {m.name: m for m in roofline.machines()}
    a100, h100 = by_name["NVIDIA A100 SXM 80GB"], by_name["NVIDIA H100 SXM"]
    assert a100.peak.value == figures["nvidia.a100_sxm.fp16_tensor_tflops"]["value"] == 312
    assert a100.bandwidth.value == figures["nvidia.a100_sxm80.hbm_gb_s"]["value"] == 2039
    assert h100.peak.value == figures["nvidia.h100_sxm.fp16_tensor_tflops"]["value"] == 989.4
    assert h100.bandwidth.value == figures["nvidia.h100_sxm.hbm_gb_s"]["value"] == 3350
    ascend = by_name["Ascend 910B3"]
    assert ascend.bandwidth.value == figures["seed.dmi.hbm_d2d_gb_s"]["value"] == 1538
    for machine in by_name.values():
        assert machine.bandwidth.kind is Kind.REPORTED


def test_910b3_peak_is_derived_from_the_platform_file(figures):
    peak = roofline.peak_910b3()
    cores = figures["ini.910b3.cube_cores"]["value"]
    edge = figures["ini.910b3.cube_mkn"]["value"]
    mhz = figures["ini.910b3.cube_freq_mhz"]["value"]
    assert (cores, edge, mhz) == (20, 16, 1800)
    assert peak.kind is Kind.DERIVED
    assert peak.value == pytest.approx(cores * edge**3 * 2 * mhz * 1e6 / 1e12) == pytest.approx(294.912)
    assert "cube_cores = 20" in peak.origin and "mhz = 1800 MHz" in peak.origin  # the inputs are shown
    # the seed's measured FP16 figure is above this derived peak: the lesson discusses why
    assert figures["seed.dmi.fp16_tflops"]["value"] > peak.value


def test_ridge_and_attainable():
    ascend = roofline.machines()[0]
    assert ascend.ridge == pytest.approx(294.912e12 / 1538e9)
    assert ascend.attainable(1.0) == pytest.approx(1.538)
    assert ascend.attainable(1e6) == pytest.approx(ascend.peak.value)


def test_workloads():
    mm = roofline.matmul(4096, 4096, 4096)
    assert mm.flop == 2 * 4096**3 and mm.bytes == 3 * 4096**2 * 2
    assert roofline.elementwise(1000).intensity == pytest.approx(1 / 6)  # 1 FLOP per 3 × 2 bytes
    assert roofline.softmax(8, 1024).intensity == pytest.approx(5 / 4)
    ascend = roofline.machines()[0]
    assert roofline.bound(ascend, mm) == "compute" and roofline.bound(ascend, roofline.elementwise(10**6)) == "memory"
    assert roofline.measured_machine("cpu", 300.0, 20.0).peak.kind is Kind.MEASURED


def test_resnet50_convs_add_up_to_the_forward_flop():
    from npulab.pytorch.resnet import conv_workloads, forward_flop_per_image

    convs = conv_workloads(224)
    assert len(convs) == 53  # 49 convolutions in the bottlenecks and stem + 4 downsample projections
    fc = 2 * 2048 * 1000
    assert sum(w.flop for w in convs) + fc == forward_flop_per_image(224)
    assert convs[0].name == "conv1" and convs[0].flop == 2 * 64 * 112 * 112 * 3 * 7 * 7


def test_plot_runs():
    import matplotlib

    matplotlib.use("Agg")
    ax = roofline.plot(roofline.machines(), [roofline.matmul(1024, 1024, 1024)], points=[("本机", 10.0, 0.3)])
    assert len(ax.lines) == 3


def test_plot_legend_and_point_labels_are_readable():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    machine = roofline.measured_machine("cpu", 100.0, 10.0)
    ax = roofline.plot([machine], points=[("decode（batch 1）", 0.5, 0.005)])
    sizes = [t.get_fontsize() for t in ax.get_legend().get_texts()] + [t.get_fontsize() for t in ax.texts]
    assert sizes and min(sizes) >= 9
    plt.close(ax.figure)
