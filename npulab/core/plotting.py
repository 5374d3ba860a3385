"""Matplotlib style for the course: a font *family list* so Chinese glyphs render.

matplotlib uses the first font of ``font.sans-serif`` that it finds and does not fall back per
glyph, so a Latin font first leaves Chinese as tofu boxes. A ``font.family`` list does fall
back: Latin text in DejaVu Sans, CJK text in Noto Sans CJK (Debian: ``fonts-noto-cjk``).
"""

from __future__ import annotations

import functools
import warnings

CJK_FAMILIES = ("Noto Sans CJK SC", "Noto Sans CJK JP", "Source Han Sans SC", "WenQuanYi Micro Hei", "SimHei")
INSTALL_HINT = "sudo apt-get install -y fonts-noto-cjk（Debian/Ubuntu），然后删除 matplotlib 的字体缓存后重启内核"


@functools.lru_cache(maxsize=1)
def cjk_font() -> str | None:
    """Name of an installed CJK font family, or None."""
    from matplotlib import font_manager

    installed = {f.name for f in font_manager.fontManager.ttflist}
    return next((name for name in CJK_FAMILIES if name in installed), None)


def use_course_style() -> str | None:
    """Apply the course's plot style; return the CJK font used (warn in Chinese when there is none)."""
    import matplotlib as mpl

    font = cjk_font()
    if font is None:
        warnings.warn(f"未找到中文字体，图中的中文会显示为方框。安装方法：{INSTALL_HINT}", stacklevel=2)
    mpl.rcParams.update(
        {
            "font.family": ["DejaVu Sans", font] if font else ["DejaVu Sans"],
            "axes.unicode_minus": False,  # the CJK fonts lack U+2212; use '-' for negative ticks
            "figure.dpi": 110,
            "figure.figsize": (7.0, 4.0),
            "axes.grid": True,
            "grid.alpha": 0.3,
            "axes.spines.top": False,
            "axes.spines.right": False,
        }
    )
    return font
