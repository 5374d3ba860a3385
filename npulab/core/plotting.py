"""Matplotlib style for the course: a font *family list* so Chinese glyphs render, and text readable on a phone.

matplotlib uses the first font of ``font.sans-serif`` that it finds and does not fall back per
glyph, so a Latin font first leaves Chinese as tofu boxes. A ``font.family`` list does fall
back: Latin text in DejaVu Sans, CJK text in Noto Sans CJK (Debian: ``fonts-noto-cjk``).

Text size: figures are shown at their natural width or narrower, so a phone shrinks their text. In IPython every
figure's PNG carries the height of its smallest text in image pixels (PNG text ``Description``:
``npulab:min-text-px=…``); the site gives such an image a minimum width on narrow screens at which that text is
at least 11 CSS px, and the table-like scroll container shows there is more (npulab.site.postprocess).
"""

from __future__ import annotations

import functools
import sys
import warnings

from npulab.core.i18n import t

MIN_TEXT_KEY = "npulab:min-text-px"
CJK_FAMILIES = ("Noto Sans CJK SC", "Noto Sans CJK JP", "Source Han Sans SC", "WenQuanYi Micro Hei", "SimHei")


@functools.lru_cache(maxsize=1)
def cjk_font() -> str | None:
    """Name of an installed CJK font family, or None."""
    from matplotlib import font_manager

    installed = {f.name for f in font_manager.fontManager.ttflist}
    return next((name for name in CJK_FAMILIES if name in installed), None)


def use_course_style() -> str | None:
    """Apply the course's plot style; return the CJK font used (warn, in npulab's language, when there is none)."""
    import matplotlib as mpl

    font = cjk_font()
    if font is None:
        warnings.warn(t("plot.no_cjk_font", hint=t("plot.install_hint")), stacklevel=2)
    mpl.rcParams.update(
        {
            "font.family": ["DejaVu Sans", font] if font else ["DejaVu Sans"],
            "font.size": 12,  # 18 px at 110 dpi: legible on a phone at about 60 % of a figure's natural width
            "axes.unicode_minus": False,  # the CJK fonts lack U+2212; use '-' for negative ticks
            "figure.dpi": 110,
            "figure.figsize": (7.0, 4.0),
            "axes.grid": True,
            "grid.alpha": 0.3,
            "axes.spines.top": False,
            "axes.spines.right": False,
        }
    )
    _mark_text_size_in_png()
    return font


def smallest_text_px(fig) -> float | None:
    """Height in image pixels of the smallest visible text in ``fig`` (font size × dpi / 72), or None without text."""
    from matplotlib.text import Text

    sizes = [t.get_fontsize() for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]
    return min(sizes) * fig.dpi / 72 if sizes else None


def _png_with_text_size(fig) -> str:
    from IPython.core.pylabtools import print_figure

    px = smallest_text_px(fig)
    meta = {"Description": f"{MIN_TEXT_KEY}={px:.2f}"} if px else None
    return print_figure(fig, "png", bbox_inches="tight", base64=True, metadata=meta)


def _mark_text_size_in_png() -> None:
    """In IPython, show figures as PNGs that record their smallest text size (after the inline backend's own set-up)."""
    try:
        from IPython import get_ipython
    except ImportError:
        return
    shell = get_ipython()
    if shell is None or not hasattr(shell, "display_formatter"):
        return
    import matplotlib
    import matplotlib.pyplot as plt
    from matplotlib.figure import Figure

    if "matplotlib_inline.backend_inline" not in sys.modules:  # not resolved yet: pyplot would do it at the first
        plt.switch_backend(matplotlib.get_backend())         # figure, and the backend's formatters would replace ours

    shell.display_formatter.formatters["image/png"].for_type(Figure, _png_with_text_size)
