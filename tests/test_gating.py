from IPython.core.interactiveshell import InteractiveShell

from npulab.course import npu_magic


def _shell():
    ip = InteractiveShell.instance()
    ip.run_line_magic("load_ext", "npulab")
    return ip


def test_npu_cell_is_skipped_with_chinese_notice_without_npu(monkeypatch, capsys):
    monkeypatch.setenv("NPULAB_NPU_AVAILABLE", "0")
    ip = _shell()
    ip.user_ns.pop("ran", None)
    ip.run_cell("%%npu 见本节参考数据表\nran = True\nraise RuntimeError('must not run')")
    out = capsys.readouterr().out
    assert "需要昇腾 NPU" in out and "见本节参考数据表" in out
    assert "ran" not in ip.user_ns


def test_npu_cell_runs_when_npu_present(monkeypatch):
    monkeypatch.setenv("NPULAB_NPU_AVAILABLE", "1")
    ip = _shell()
    ip.run_cell("%%npu\nran_on_npu = 40 + 2")
    assert ip.user_ns["ran_on_npu"] == 42


def test_skip_message_names_device_and_default_reference(monkeypatch):
    msg = npu_magic.skip_message()
    assert "本机使用的设备是" in msg and npu_magic.DEFAULT_REFERENCE in msg


def _cjk_font_cmap():
    """The character map of the course's CJK font (Debian fonts-noto-cjk, Simplified Chinese face)."""
    from pathlib import Path

    from fontTools.ttLib import TTCollection

    for path in ("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
                 "/usr/share/fonts/opentype/noto/NotoSerifCJK-Regular.ttc"):
        if Path(path).exists():
            for font in TTCollection(path).fonts:
                if "SC" in font["name"].getDebugName(1):
                    return font.getBestCmap()
    raise AssertionError("fonts-noto-cjk is not installed (scripts/system_packages.sh installs it)")


def test_skip_message_uses_only_glyphs_the_course_font_has():
    cmap = _cjk_font_cmap()
    msg = npu_magic.skip_message("本节第 3 节的表格")
    missing = sorted({ch for ch in msg if ch not in "\n " and ord(ch) not in cmap})
    assert not missing, f"characters without a glyph in Noto CJK SC: {missing}"


def test_skip_message_points_only_at_existing_things():
    msg = npu_magic.skip_message()
    assert "「参考数据」" not in msg  # no page has such a table
    assert npu_magic.skip_message("见第 2 节。").endswith("见第 2 节。")  # no doubled full stop
