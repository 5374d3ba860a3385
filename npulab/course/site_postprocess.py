"""Make the built HTML lighter and consistent (run by :mod:`npulab.course.sphinx_site` when the build finishes).

Idempotent: running it twice over the same ``_build/html`` changes nothing the second time.

* Font Awesome: the theme loads a 1.5 MB script that turns ``<i class="fa-…">`` into inline SVG, although its CSS
  already draws the same icons from web fonts. The script tag is removed and the web fonts are cut down to the
  icons that the pages and scripts actually name (a few KB instead of ~400 KB).
* MathJax (fetched from a CDN) is kept only on pages that contain math.
* The few interface strings that the theme's zh_CN catalogue leaves in English or in Taiwan wording are replaced.
"""

from __future__ import annotations

import re
from pathlib import Path

FA_SCRIPT = re.compile(r'\s*<script defer src="[^"]*_static/scripts/fontawesome\.js[^"]*"></script>')
MATHJAX_SCRIPT = re.compile(r'\s*<script[^>]*(?:mathjax|MathJax)[^>]*>(?:[^<]*)</script>')
# pydata-sphinx-theme loads Sphinx's search scripts and the whole index on every page for its search-as-you-type
# box; with search_as_you_type off (the default) the box only submits to search.html, which loads them itself.
SEARCH_SCRIPTS = re.compile(r'\s*<script src="[^"]*(?:_static/searchtools\.js|_static/language_data\.js|searchindex\.js)">'
                            r'</script>')
HAS_MATH = re.compile(r'class="[^"]*\bmath\b')
ICON_CLASS = re.compile(r"\bfa-([a-z0-9]+(?:-[a-z0-9]+)*)")
CSS_ICON_RULE = re.compile(r"((?:\.fa-[a-z0-9-]+:before,?)+)\{content:\"\\([0-9a-f]+)\"\}")
SUBSET_MARK = "/* course: Font Awesome subset */"

# (theme string, zh-CN string); applied to the page text outside <script>/<style> only where listed here
UI_STRINGS = (
    ('"Search this book..."', '"在本课程中搜索…"'),
    ('title="Link to this heading"', 'title="链接到本标题"'),
    ('title="Toggle primary sidebar"', 'title="显示/隐藏目录栏"'),
    ('title="Toggle secondary sidebar"', 'title="显示/隐藏本页目录"'),
    ('title="System Settings"', 'title="跟随系统"'),
    ('"Color mode"', '"配色模式"'),
    ('aria-label="Source repositories"', 'aria-label="源代码仓库"'),
    ('aria-label="Main"', 'aria-label="主导航"'),
    ('aria-label="Page"', 'aria-label="本页"'),
    ('<span class="btn__text-container">Repository</span>', '<span class="btn__text-container">源代码仓库</span>'),
    ('<span class="btn__text-container">Open issue</span>', '<span class="btn__text-container">提交问题</span>'),
    ('title="源码库"', 'title="源代码仓库"'),
    ('title="创建议题"', 'title="提交问题"'),
)


def icon_codepoints(css: str) -> dict[str, int]:
    """Font Awesome icon name -> code point, read from the theme's CSS rules ``.fa-x:before{content:"\\f123"}``."""
    table = {}
    for selectors, code in CSS_ICON_RULE.findall(css):
        for name in re.findall(r"\.fa-([a-z0-9-]+):before", selectors):
            table[name] = int(code, 16)
    return table


def used_icons(texts) -> set[str]:
    """Icon names (without ``fa-``) mentioned in the given HTML/JS texts."""
    names = set()
    for text in texts:
        names.update(ICON_CLASS.findall(text))
    return names


def subset_fonts(static: Path, codepoints: set[int]) -> list[str]:
    """Write WOFF subsets of the Font Awesome fonts; return @font-face rules that use them."""
    from fontTools import subset

    rules = []
    faces = (("fa-solid-900", "Font Awesome 6 Free", 900), ("fa-regular-400", "Font Awesome 6 Free", 400),
             ("fa-brands-400", "Font Awesome 6 Brands", 400))
    for stem, family, weight in faces:
        source = static / "vendor" / "fontawesome" / "webfonts" / f"{stem}.ttf"
        if not source.exists():
            continue
        options = subset.Options()
        options.flavor = "woff"
        options.layout_features = ["*"]
        font = subset.load_font(str(source), options)
        present = set(font.getBestCmap())
        wanted = present & codepoints
        target = static / "vendor" / "fontawesome" / "webfonts" / f"{stem}-course.woff"
        if not wanted:
            continue
        subsetter = subset.Subsetter(options)
        subsetter.populate(unicodes=sorted(wanted))
        subsetter.subset(font)
        subset.save_font(font, str(target), options)
        rules.append(f'@font-face{{font-family:"{family}";font-style:normal;font-weight:{weight};font-display:swap;'
                     f'src:url(vendor/fontawesome/webfonts/{target.name}) format("woff")}}')
    return rules


def rewrite_page(html: str, search_page: bool = False) -> str:
    """One page: drop the Font Awesome script, MathJax where there is no math, the search index outside the
    search page (unless search-as-you-type is on), and fix interface strings."""
    html = FA_SCRIPT.sub("", html)
    if not search_page and "search_as_you_type = true" not in html:
        html = SEARCH_SCRIPTS.sub("", html)
    if not HAS_MATH.search(html):
        html = MATHJAX_SCRIPT.sub("", html)
    for old, new in UI_STRINGS:
        html = html.replace(old, new)
    return html


NOT_FOUND = """<!DOCTYPE html>
<html lang="zh-CN">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>页面不存在 — {title}</title>
<style>
body {{ font-family: "Noto Sans CJK SC", "Source Han Sans SC", "PingFang SC", "Microsoft YaHei", sans-serif;
       max-width: 36rem; margin: 4rem auto; padding: 0 1rem; line-height: 1.7; color: #222; background: #fff; }}
a {{ color: #0a58ca; }}
@media (prefers-color-scheme: dark) {{ body {{ color: #ddd; background: #121212; }} a {{ color: #7fb0ff; }} }}
</style>
</head>
<body>
<h1>页面不存在（404）</h1>
<p>你要找的页面不在《{title}》中：可能是地址拼写有误，或者这一节已经改名、移动。</p>
<ul>
<li><a href="{base}intro.html">回到课程首页</a></li>
<li><a href="{base}search.html">在课程中搜索</a></li>
</ul>
</body>
</html>
"""


def write_not_found(outdir: Path, title: str, base: str = "/") -> Path:
    """A self-contained 404 page (no relative assets: GitHub Pages serves it at any depth)."""
    base = base if base.endswith("/") else base + "/"
    path = Path(outdir) / "404.html"
    path.write_text(NOT_FOUND.format(title=title, base=base), encoding="utf-8")
    return path


def run(outdir: Path, title: str = "昇腾 NPU 编程实战") -> dict[str, int]:
    """Post-process a built site in place; return counts (pages rewritten, icons kept)."""
    outdir = Path(outdir)
    static = outdir / "_static"
    pages = [p for p in outdir.rglob("*.html") if "_static" not in p.parts and p.name != "404.html"]
    changed = 0
    for page in pages:
        text = page.read_text(encoding="utf-8")
        new = rewrite_page(text, search_page=page.name == "search.html" and page.parent == outdir)
        if new != text:
            page.write_text(new, encoding="utf-8")
            changed += 1
    theme_css = static / "styles" / "pydata-sphinx-theme.css"
    course_css = static / "course.css"
    icons = 0
    if theme_css.exists() and course_css.exists():
        table = icon_codepoints(theme_css.read_text(encoding="utf-8"))
        scripts = [p.read_text(encoding="utf-8", errors="ignore") for p in static.rglob("*.js")
                   if "fontawesome" not in p.name and p.stat().st_size < 2_000_000]
        names = used_icons([p.read_text(encoding="utf-8") for p in pages] + scripts)
        codepoints = {table[n] for n in names if n in table}
        icons = len(codepoints)
        css = course_css.read_text(encoding="utf-8").split(SUBSET_MARK)[0].rstrip("\n")
        rules = subset_fonts(static, codepoints)
        course_css.write_text(css + "\n" + SUBSET_MARK + "\n" + "\n".join(rules) + "\n", encoding="utf-8")
    import os

    write_not_found(outdir, title, os.environ.get("COURSE_BASE_PATH", "/"))
    return {"pages": len(pages), "rewritten": changed, "icons": icons}
