"""Issue 30 in a real browser, on every content page: wide tables scroll sideways with a sticky first column or a fading
edge and no column squeezed to fragments, and figure text is at least 11 CSS px on a 375 px phone. (A module of its
own, with its own server and browser, so that make test runs it beside test_route.py on the other core.)

The measurements print what they measured (``pytest -s`` shows it; docs/site.md records the numbers).
"""

from __future__ import annotations

import pytest
from sitekit import rel

PHONE = {"width": 375, "height": 812}

TABLES_JS = r"""() => {
  const out = {overflowing: 0, notSticky: [], fragments: [], widest: 0};
  const scrollers = new Set();
  for (const table of document.querySelectorAll('.bd-article table')) {
    let box = table.parentElement;
    while (box && box !== document.body && getComputedStyle(box).overflowX !== 'auto' && getComputedStyle(box).overflowX !== 'scroll') box = box.parentElement;
    if (!box || box === document.body) continue;
    if (box.scrollWidth > box.clientWidth + 1) {
      if (scrollers.has(box)) continue;
      scrollers.add(box);
      out.overflowing++;
      out.widest = Math.max(out.widest, box.scrollWidth - box.clientWidth);
      const first = table.querySelector('tbody tr > :first-child');
      if (first) {
        const before = first.getBoundingClientRect().left;
        box.scrollLeft = 80;
        const after = first.getBoundingClientRect().left;
        box.scrollLeft = 0;
        const shaded = getComputedStyle(box).backgroundImage.includes('gradient');
        if (Math.abs(after - before) > 1 || !shaded) out.notSticky.push(table.innerText.slice(0, 40));
      }
    }
  }
  for (const cell of document.querySelectorAll('.bd-article td')) {
    const text = cell.innerText.trim();
    if (text.length < 8 || cell.querySelector('pre')) continue;
    const style = getComputedStyle(cell);
    const inner = cell.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    if (inner < 4 * parseFloat(style.fontSize)) out.fragments.push(text.slice(0, 20) + ` (${Math.round(inner)} px)`);
  }
  return out;
}"""

FIGURES_JS = r"""() => Array.from(document.querySelectorAll('.bd-article .cell_output img')).map((img) => ({
  src: img.getAttribute('src'), px: parseFloat(img.dataset.minTextPx || 'NaN'),
  shown: img.getBoundingClientRect().width, natural: img.naturalWidth}))"""


@pytest.fixture(scope="module")
def at_375(server, browser, pages) -> dict[str, dict]:
    """Each page loaded once at 375 px with every cell laid out: what its tables and figures measure."""
    from sitekit import SHOW_ALL_CELLS, broken_code

    measured = {}
    page = browser.new_page(viewport=PHONE)
    for path in pages:
        page.goto(f"{server}/{rel(path)}", wait_until="load")
        page.add_style_tag(content=SHOW_ALL_CELLS)
        tables = page.locator(".bd-article table").count()
        measured[rel(path)] = {"tables": page.evaluate(TABLES_JS) if tables else None,
                               "code_broken": broken_code(page) if tables else [],
                               "figures": page.evaluate(FIGURES_JS)}
    page.close()
    return measured


def test_tables_show_they_scroll_and_no_column_is_fragments_on_a_phone(at_375):
    """(At 1280 px, code broken across lines in a table is checked by test_site.py's pass over every page.)"""
    problems, overflowing, widest = [], 0, 0
    for path, page in at_375.items():
        found = page["tables"]
        if found is None:
            continue
        where = f"{path} at {PHONE['width']} px"
        problems += [f"{where}: code broken across lines: {c}" for c in page["code_broken"][:5]]
        overflowing += found["overflowing"]
        widest = max(widest, found["widest"])
        problems += [f"{where}: a wide table neither keeps its first column nor shows a fade: {t}"
                     for t in found["notSticky"][:5]]
        problems += [f"{where}: column squeezed to fragments: {t}" for t in found["fragments"][:5]]
    print(f"\n375 px: {overflowing} tables scroll sideways (sticky first column, fading edge), widest overflow {widest} px")
    assert not problems, "\n".join(problems[:40])


def test_figure_text_is_at_least_11_css_px_on_a_phone(at_375):
    sizes, problems = [], []
    for path, page in at_375.items():
        for fig in page["figures"]:
            if not fig["src"].endswith(".png") or not fig["natural"]:
                continue
            if fig["px"] != fig["px"]:  # NaN: the PNG does not record its text size
                problems.append(f"{path}: {fig['src']} has no recorded text size (use_course_style)")
                continue
            shown = fig["px"] * fig["shown"] / fig["natural"]
            sizes.append(shown)
            if shown < 11 - 0.05:
                problems.append(f"{path}: {fig['src']} smallest text {shown:.1f} CSS px")
    assert sizes, "没有找到图"
    print(f"\n375 px: {len(sizes)} figures, smallest text {min(sizes):.1f} CSS px (median {sorted(sizes)[len(sizes) // 2]:.1f})")
    assert not problems, "\n".join(problems[:20])


# ---- small things -------------------------------------------------------------------------------------------
