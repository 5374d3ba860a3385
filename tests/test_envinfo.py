import json
import warnings

from npulab.core import plotting
from npulab.core.paths import REPO_ROOT
from npulab.env import cann_install, environment_summary


def test_summary_prints_versions_and_device(capsys):
    device = environment_summary.summary()
    out = capsys.readouterr().out
    for key in ("Python", "numpy", "torch", "torch_npu", "mindspore", "CANN", "本节使用的设备"):
        assert key in out
    assert device.torch in out


def test_summary_never_fails_even_if_cann_probe_breaks(monkeypatch, capsys):
    def boom(*_a, **_k):
        raise RuntimeError("garbage install tree")

    monkeypatch.setattr(cann_install, "summary_line", boom)
    environment_summary.summary()
    assert "未能读取（RuntimeError）" in capsys.readouterr().out


def test_package_version_without_import():
    assert environment_summary.package_version("numpy").startswith("1.")
    assert environment_summary.package_version("torch_npu") is None  # never in the CPU environment
    assert environment_summary.package_version("no-such-package-xyz") is None


def test_course_style_uses_a_cjk_family_list_and_renders_chinese_without_warnings():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    font = plotting.use_course_style()
    assert font is not None, "CI installs fonts-noto-cjk; without it plots show tofu boxes"
    assert matplotlib.rcParams["font.family"] == ["DejaVu Sans", font]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "Glyph ... missing from font" would raise
        fig, ax = plt.subplots()
        ax.set_title("矩阵乘法吞吐（GFLOP/s）")
        fig.canvas.draw()
        plt.close(fig)


def test_jupyterlab_opens_in_chinese():
    from jupyterlab_server.translation_utils import get_language_packs

    settings = REPO_ROOT / ".jupyter/lab/user-settings/@jupyterlab/translation-extension/plugin.jupyterlab-settings"
    assert json.loads(settings.read_text(encoding="utf-8"))["locale"] == "zh_CN"
    assert "zh_CN" in get_language_packs("zh_CN")[0]
