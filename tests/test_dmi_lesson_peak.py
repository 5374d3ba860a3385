"""Chapter 05 lesson 2 compares the learner's best matmul with the derived peak of the chip the NPU reports.

The cell's NPU branch cannot run here; it is executed with a stand-in NPU device and a device identity (the one
``chip_probe.identify`` builds from ``get_device_properties``), so a rename or a wrong figure breaks this test.
"""

import json
from types import SimpleNamespace

import matplotlib

from npulab.bench.matmul import MatmulResult
from npulab.core import provenance
from npulab.core.paths import REPO_ROOT
from npulab.core.timing import Timing, matmul_flop
from npulab.env import chip_probe

matplotlib.use("Agg")
LESSON = REPO_ROOT / "chapters" / "05_tools" / "02_ascend_dmi_and_benchmarks.ipynb"


def _run_cell(monkeypatch, kind: str, props: dict):
    import matplotlib.pyplot as plt

    cell = next(c for c in json.loads(LESSON.read_text(encoding="utf-8"))["cells"] if c.get("id") == "c37")
    monkeypatch.setattr(chip_probe, "current_chip", lambda *a, **k: chip_probe.identify(props))
    shown = []
    monkeypatch.setattr(provenance, "show", lambda rows, *a: shown.extend(rows))
    monkeypatch.setattr(plt, "show", lambda: None)
    seconds = matmul_flop(2048) / 150e12  # 150 TFLOPS in every repeat
    result = MatmulResult(2048, "float16", Timing((seconds,) * 5, 2, "npu"))
    namespace = {"plt": plt, "provenance": provenance, "chip_probe": chip_probe,
                 "device": SimpleNamespace(kind=kind, __str__=lambda self: "npu:0"),
                 "curves": {"float16": [result]}, "measured_fp16": 313.7,
                 "reported": {"fp16_tflops": provenance.reported("seed.dmi.fp16_tflops")}}
    exec("".join(cell["source"]), namespace)
    plt.close("all")
    return shown


def test_on_an_npu_the_best_matmul_is_set_against_the_reported_chips_peak(monkeypatch):
    rows = _run_cell(monkeypatch, "npu", {"name": "Ascend910B4", "cube_core_num": 20})
    peak, share = rows[-2], rows[-1]
    assert peak.label.startswith("910B4") and peak.kind is provenance.Kind.DERIVED
    assert "910B4" in share.label and abs(share.value - 100 * 150 / peak.value) < 0.1


def test_without_an_npu_only_the_seed_comparison_is_shown(monkeypatch):
    rows = _run_cell(monkeypatch, "cpu", {})
    assert len(rows) == 3 and rows[1].label == provenance.reported("seed.dmi.fp16_tflops").label
