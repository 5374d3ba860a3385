"""Make the built HTML lighter and consistent (run by :mod:`npulab.site.sphinx_extension` when the build finishes).

Idempotent: running it twice over the same ``_build/html`` changes nothing the second time.

* Font Awesome: the theme loads a 1.5 MB script that turns ``<i class="fa-…">`` into inline SVG, although its CSS
  already draws the same icons from web fonts. The script tag is removed and the web fonts are cut down to the
  icons that the pages and scripts actually name (a few KB instead of ~400 KB).
* MathJax (fetched from a CDN) is kept only on pages that contain math.
* sphinx-thebe's script and style are dropped when live code (thebe) is off, sphinx-design's tab script on pages
  without tabs, and the site's local style sheets are served as one bundle per page layout (one request, not ten).
* The few interface strings that the theme's zh_CN catalogue leaves in English or in Taiwan wording are replaced.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

from npulab.site.language import EDITION_FOLDER, EN, LANGUAGE_NAMES, ZH, other, site_text

FA_SCRIPT = re.compile(r'\s*<script defer src="[^"]*_static/scripts/fontawesome\.js[^"]*"></script>')
MATHJAX_SCRIPT = re.compile(r'\s*<script[^>]*(?:mathjax|MathJax)[^>]*>(?:[^<]*)</script>'
                            r'|\s*<script>\s*window\.MathJax[^<]*</script>')
# pydata-sphinx-theme loads Sphinx's search scripts and the whole index on every page for its search-as-you-type
# box; with search_as_you_type off (the default) the box only submits to search.html, which loads them itself.
SEARCH_SCRIPTS = re.compile(r'\s*<script src="[^"]*(?:_static/searchtools\.js|_static/language_data\.js|searchindex\.js)">'
                            r'</script>')
THEBE = re.compile(r'\s*(?:<script async="async" src="[^"]*_static/sphinx-thebe\.js[^"]*"></script>'
                   r'|<link rel="stylesheet" type="text/css" href="[^"]*_static/sphinx-thebe\.css[^"]*" />'
                   r'|<script>const THEBE_JS_URL[^<]*</script>)')
DESIGN_TABS = re.compile(r'\s*<script data-sd-tabs-storage-prefix="[^"]*" src="[^"]*_static/design-tabs\.js[^"]*"></script>')
STYLESHEET = re.compile(r'<link\b[^>]*\brel="stylesheet"[^>]*>')
HREF = re.compile(r'href="([^"]*?)_static/([^"?]+)(?:\?[^"]*)?"')
CSS_URL = re.compile(r"url\(\s*(['\"]?)([^'\")]+)\1\s*\)")
CSS_IMPORT = re.compile(r"@import\s+(?:url\()?[\"']([^\"']+)[\"']\)?\s*;")
BUNDLE_DIR = "styles"
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
    ('aria-label="Launch interactive content"', 'aria-label="启动交互环境"'),
    ('title="Launch on Binder"', 'title="在 Binder 上启动（仅 CPU）"'),
    ('title="Launch on JupyterHub"', 'title="在 JupyterHub 上启动"'),
    ('title="Launch on Colab"', 'title="在 Colab 上启动"'),
    ('title="源码库"', 'title="源代码仓库"'),
    ('title="创建议题"', 'title="提交问题"'),
    ('title="列印成 PDF"', 'title="打印为 PDF"'),
    # pydata-sphinx-theme's first visit: an empty stored mode is "invalid" (a console error); empty means "auto"
    ('localStorage.getItem("mode") || ""', 'localStorage.getItem("mode") || "auto"'),
)
# the .ipynb download is the executed notebook that installs npulab (download_notebooks), not the source file
IPYNB_DOWNLOAD_TITLE = {
    ZH: re.compile(r'(<a href="[^"]*_sources/[^"]*\.ipynb"[^>]*?title=")下载源文件(")', re.S),
    EN: re.compile(r'(<a href="[^"]*_sources/[^"]*\.ipynb"[^>]*?title=")Download source file(")', re.S),
}


def icon_codepoints(css: str) -> dict[str, int]:
    """Font Awesome icon name -> code point, read from the theme's CSS rules ``.fa-x:before{content:"\\f123"}``."""
    table = {}
    for selectors, code in CSS_ICON_RULE.findall(css):
        for name in re.findall(r"\.fa-([a-z0-9-]+):before", selectors):
            table[name] = int(code, 16)
    return table


def css_codepoints(css: str) -> set[int]:
    """Icon code points the CSS itself uses (admonition icons, custom properties), outside the icon-class table."""
    rest = CSS_ICON_RULE.sub("", css)
    points = {int(h, 16) for h in re.findall(r"\\([ef][0-9a-f]{3})(?![0-9a-f])", rest)}
    points |= {ord(ch) for ch in rest if 0xE000 <= ord(ch) <= 0xF8FF}
    return points


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


def _css_for_bundle(static: Path, rel_path: str, seen: set[str] | None = None, keep_icons: set[str] | None = None) -> str:
    """One style sheet with its @imports inlined and its url()s made relative to the bundle folder."""
    import posixpath

    seen = set() if seen is None else seen
    if rel_path in seen:
        return ""
    seen.add(rel_path)
    src_dir = posixpath.dirname(rel_path)
    text = (static / rel_path).read_text(encoding="utf-8")

    def inline(match):
        return _css_for_bundle(static, posixpath.normpath(posixpath.join(src_dir, match.group(1))), seen, keep_icons)

    def rebase(match):
        target = match.group(2).strip()
        if target.startswith(("data:", "http:", "https:", "/", "#")):
            return match.group(0)
        moved = posixpath.relpath(posixpath.normpath(posixpath.join(src_dir, target)), BUNDLE_DIR)
        return f'url("{moved}")'

    text = CSS_IMPORT.sub(inline, text)
    if keep_icons is not None:  # drop the rules of the ~2,000 icons no page uses (most of the theme's CSS weight)
        text = CSS_ICON_RULE.sub(
            lambda m: m.group(0) if keep_icons & set(re.findall(r"\.fa-([a-z0-9-]+):before", m.group(1))) else "", text)
    return f"/* {rel_path} */\n" + CSS_URL.sub(rebase, text) + "\n"


def bundle_styles(html: str, static: Path, manifest: dict[str, list[str]]) -> str:
    """Replace the page's local style sheets by one bundle (written later by :func:`write_bundles`)."""
    import hashlib

    links = [(m, HREF.search(m.group(0))) for m in STYLESHEET.finditer(html)]
    local = [(m, h) for m, h in links if h and "media=" not in m.group(0) and (static / h.group(2)).exists()
             and not h.group(2).startswith(f"{BUNDLE_DIR}/bundle-")]
    if len(local) < 2:
        return html
    paths = [h.group(2) for _, h in local]
    name = f"{BUNDLE_DIR}/bundle-{hashlib.sha1('|'.join(paths).encode()).hexdigest()[:10]}.css"
    manifest[name] = paths
    prefix = local[0][1].group(1)
    first = local[0][0].group(0)
    for m, _ in local[1:]:
        html = html.replace(m.group(0), "", 1)
    return html.replace(first, f'<link rel="stylesheet" type="text/css" href="{prefix}_static/{name}" />', 1)


def write_bundles(static: Path, manifest: dict[str, list[str]], keep_icons: set[str] | None = None) -> None:
    """(Re)write every bundle from the current style sheets; the manifest survives incremental builds."""
    import json

    record = static / BUNDLE_DIR / "bundles.json"
    known = json.loads(record.read_text(encoding="utf-8")) if record.exists() else {}
    known.update(manifest)
    for name, paths in known.items():
        if all((static / p).exists() for p in paths):
            (static / name).write_text("".join(_css_for_bundle(static, p, keep_icons=keep_icons) for p in paths), encoding="utf-8")
    record.write_text(json.dumps(known, indent=1), encoding="utf-8")


PDF_LINK = re.compile(r'<a class="course-pdf"[^>]*>[^<]*</a>')
PDF_NAME = "course.pdf"


def link_pdf(html: str, depth: int, has_pdf: bool, lang: str = ZH) -> str:
    """Point the footer's PDF link at the book's PDF from a page ``depth`` folders deep; drop it without a PDF."""
    if not has_pdf:
        return PDF_LINK.sub("", html)
    return PDF_LINK.sub(f'<a class="course-pdf" href="{"../" * depth}{PDF_NAME}">{site_text("pdf_link", lang)}</a>', html)


IMAGE = re.compile(r'<img\b[^>]*\bsrc="([^"]*_images/[^"]+)"[^>]*>')


def zoomable_images(html: str, lang: str = ZH) -> str:
    """Wrap each figure image that is not already a link in a link to the full-size file (click to enlarge)."""
    out, last = [], 0
    for m in IMAGE.finditer(html):
        before = html[:m.start()]
        inside_link = before.rfind("<a ") > before.rfind("</a>")
        out.append(html[last:m.start()])
        out.append(m.group(0) if inside_link else
                   f'<a class="course-zoom" href="{m.group(1)}" title="{site_text("zoom_title", lang)}">{m.group(0)}</a>')
        last = m.end()
    return "".join(out) + html[last:]


MIN_TEXT_CSS_PX = 11  # the smallest figure text a phone shows (issue 30)
IMG_TAG = re.compile(r'<img\b(?![^>]*data-min-text-px)[^>]*\bsrc="([^"]*_images/[^"]+\.png)"[^>]*>')


def png_min_text_px(path: Path) -> tuple[float, int] | None:
    """(smallest text height in image px, image width) recorded by npulab.core.plotting, or None."""
    from PIL import Image

    from npulab.core.plotting import MIN_TEXT_KEY

    try:
        with Image.open(path) as image:
            found = re.search(re.escape(MIN_TEXT_KEY) + r"=([0-9.]+)", image.info.get("Description", "") or "")
            return (float(found.group(1)), image.width) if found else None
    except OSError:
        return None


def readable_figures(html: str, page: Path, cache: dict) -> str:
    """Give each figure whose PNG records its smallest text size the width at which that text is
    ``MIN_TEXT_CSS_PX`` CSS px (``--course-fig-min``; course.css applies it on narrow screens, where the output
    scrolls sideways like a wide table)."""
    def change(m):
        target = (page.parent / m.group(1)).resolve()
        if target not in cache:
            cache[target] = png_min_text_px(target)
        found = cache[target]
        if not found:
            return m.group(0)
        px, width = found
        need = math.ceil(width * MIN_TEXT_CSS_PX / px)
        return m.group(0).replace("<img ", f'<img data-min-text-px="{px:.2f}" style="--course-fig-min: {need}px" ', 1)

    return IMG_TAG.sub(change, html)


CONSTANTS = re.compile(r"""\s*(?:(?:let|var|const)\s+\w+\s*=\s*(?:'[^'\n]*'|"[^"\n]*"|true|false|\d+)\s*;?\s*)+""")
HEAD_SCRIPT = re.compile(r"<script(?P<attrs>[^>]*)>(?P<code>.*?)</script>", re.S)


def defer_head_scripts(html: str) -> str:
    """Make the scripts in <head> non-blocking while keeping their order: external ones get ``defer``; inline ones
    after the first deferred script become deferred data: URLs (they use what the earlier scripts define)."""
    from urllib.parse import quote

    end = html.find("</head>")
    if end < 0:
        return html
    head, rest = html[:end], html[end:]
    deferring = False

    def change(m):
        nonlocal deferring
        attrs, code = m.group("attrs"), m.group("code")
        if "async" in attrs or "type=" in attrs and "javascript" not in attrs:
            return m.group(0)
        if "src=" in attrs:
            deferring = True
            return m.group(0) if "defer" in attrs else f"<script defer{attrs}>{code}</script>"
        if not deferring or not code.strip() or CONSTANTS.fullmatch(code):
            return m.group(0)  # inline constants (toggle hints, selectors) stay where they are: later scripts read them
        return f'<script defer{attrs} src="data:text/javascript;charset=utf-8,{quote(code.strip())}"></script>'

    return HEAD_SCRIPT.sub(change, head) + rest


def rewrite_page(html: str, search_page: bool = False, thebe: bool = False, lang: str = ZH) -> str:
    """One page: drop the Font Awesome script, MathJax where there is no math, the search index outside the
    search page (unless search-as-you-type is on), and fix interface strings."""
    html = FA_SCRIPT.sub("", html)
    if not thebe:
        html = THEBE.sub("", html)
    if "sd-tab-set" not in html:
        html = DESIGN_TABS.sub("", html)
    if not search_page and "search_as_you_type = true" not in html:
        html = SEARCH_SCRIPTS.sub("", html)
    if not HAS_MATH.search(html):
        html = MATHJAX_SCRIPT.sub("", html)
    if lang == ZH:  # the theme's own English strings stay in the English book
        for old, new in UI_STRINGS:
            html = html.replace(old, new)
    html = IPYNB_DOWNLOAD_TITLE[lang].sub(lambda m: m.group(1) + site_text("download_title", lang) + m.group(2), html)
    return defer_head_scripts(zoomable_images(html, lang))


FAVICON = "favicon.ico"
FAVICON_LINK = re.compile(r'<link rel="icon" href="[^"]*favicon\.ico"[^>]*>\n?')


def write_favicon(outdir: Path) -> Path:
    """The site's icon at its root (browsers ask for /favicon.ico): 「昇」 in white on the course's NPU red, drawn
    with the CJK font the figures use (a plain red square without it), 16 and 32 px."""
    from PIL import Image, ImageDraw, ImageFont

    size = 64
    image = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    draw.rounded_rectangle((0, 0, size - 1, size - 1), radius=12, fill=(179, 0, 10, 255))
    font_file = next((f for f in ("/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc",
                                  "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc") if Path(f).is_file()), None)
    if font_file:
        font = ImageFont.truetype(font_file, 50, index=2)  # index 2 of the collection: the SC (简体) face
        draw.text((size / 2, size / 2), "昇", font=font, fill="white", anchor="mm")
    path = Path(outdir) / FAVICON
    image.save(path, sizes=[(16, 16), (32, 32), (48, 48)])
    return path


def link_favicon(html: str, depth: int) -> str:
    """A ``<link rel="icon">`` to the site's root icon, from a page ``depth`` folders deep (once)."""
    html = FAVICON_LINK.sub("", html)
    return html.replace("</head>", f'<link rel="icon" href="{"../" * depth}{FAVICON}" sizes="16x16 32x32 48x48">\n</head>', 1)


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
<li><a data-page="intro.html" href="{base}intro.html">回到课程首页</a></li>
<li><a data-page="search.html" href="{base}search.html">在课程中搜索</a></li>
</ul>
<script>
/* GitHub Pages serves this page for a missing address at any depth. The links start from the site's base path
   ({base}, from the repository setting); if the course is not there, the folders of the address are tried. */
(function () {{
  var links = document.querySelectorAll("a[data-page]");
  var folders = location.pathname.split("/").slice(1, -1), bases = ["{base}"];
  for (var i = folders.length; i >= 0; i--) {{ bases.push("/" + folders.slice(0, i).map(function (f) {{ return f + "/"; }}).join("")); }}
  function attempt(k) {{
    if (k >= bases.length || !window.fetch) {{ return; }}
    fetch(bases[k] + "intro.html", {{ method: "HEAD" }}).then(function (r) {{
      if (!r.ok) {{ return attempt(k + 1); }}
      links.forEach(function (a) {{ a.href = bases[k] + a.getAttribute("data-page"); }});
    }}, function () {{ attempt(k + 1); }});
  }}
  attempt(0);
}})();
</script>
</body>
</html>
"""


def pages_base(repository: str) -> str:
    """The site's base path on GitHub Pages: ``/<repo>/`` for a project site, ``/`` for ``<owner>.github.io``
    (and without a repository address); ``COURSE_BASE_PATH`` overrides it (another host, a custom domain)."""
    import os

    given = os.environ.get("COURSE_BASE_PATH", "").strip()
    if given:
        return "/" + given.strip("/") + "/" if given.strip("/") else "/"
    m = re.match(r"https?://github\.com/([^/]+)/([^/#?]+?)(?:\.git)?/?$", repository.strip())
    if not m or m.group(2).lower() == f"{m.group(1).lower()}.github.io":
        return "/"
    return f"/{m.group(2)}/"


def write_not_found(outdir: Path, title: str, base: str = "/") -> Path:
    """A self-contained 404 page (no relative assets: GitHub Pages serves it at any depth); its links start from
    the site's base path and fall back to probing the folders of the missing address."""
    base = base if base.endswith("/") else base + "/"
    path = Path(outdir) / "404.html"
    path.write_text(NOT_FOUND.format(title=title, base=base), encoding="utf-8")
    return path


SWITCH = re.compile(r'\n?<a class="[^"]*\bcourse-language\b[^"]*"[^>]*>[^<]*</a>|<link rel="alternate" hreflang="[^"]*" href="[^"]*">\n?')
HEADER_BUTTONS = '<div class="article-header-buttons">'
PAGE_SUFFIXES = (".ipynb", ".md")


def twin_href(page: str, lang: str, source_dir: Path) -> str:
    """The address of ``page``'s twin in the other edition, relative to ``page`` (both are paths in their book's
    site, e.g. ``chapters/03_pytorch_npu/02_resnet50_amp.html``). A page without a twin source (not translated, or
    a generated page such as search.html where the other book has its own) leads to that page if the other book
    generates it, else to the other book's home."""
    depth = page.count("/")
    stem = page[:-len(".html")] if page.endswith(".html") else page
    if lang == ZH:
        other_root, up = source_dir / EDITION_FOLDER, "../" * depth + EDITION_FOLDER + "/"
    else:
        other_root, up = source_dir.parent, "../" * (depth + 1)
    has_twin = any((other_root / (stem + suffix)).is_file() for suffix in PAGE_SUFFIXES)
    generated = page in ("search.html", "genindex.html")
    return up + (page if has_twin or generated else "intro.html")


def switch_language(html: str, page: str, lang: str, source_dir: Path) -> str:
    """The link to the same page in the other edition, first among the header's buttons (desktop and phone), and
    the head's ``hreflang`` alternate; replaces an earlier one (idempotent)."""
    html = SWITCH.sub("", html)
    if HEADER_BUTTONS not in html:
        return html
    target, to = twin_href(page, lang, source_dir), other(lang)
    link = (f'<a class="btn btn-sm course-language" href="{target}" hreflang="{to}" lang="{to}" '
            f'title="{site_text("switch_title", lang)}">{LANGUAGE_NAMES[to]}</a>')
    html = html.replace(HEADER_BUTTONS, HEADER_BUTTONS + "\n" + link, 1)
    return html.replace("</head>", f'<link rel="alternate" hreflang="{to}" href="{target}">\n</head>', 1)


TOOLS_REF = re.compile(r'((?:src|href)=")((?:\.\./)*)_tools/')


def shared_tools(html: str, depth: int) -> str:
    """An English page's (``depth`` folders deep in ``<site>/en/``) references to the tools runtime lead to the one
    the Chinese site serves, ``<site>/_tools``: the runtime is published once."""
    return TOOLS_REF.sub(lambda m: f"{m.group(1)}{'../' * (depth + 1)}_tools/", html)


NOTEBOOK_LINK = re.compile(r'href="((?!https?:|/|#)[^"#]+)\.(?:ipynb|md)(#[^"]*)?"')


def link_notebooks(html: str, page: Path) -> str:
    """Relative links to a notebook or Markdown source (the quiz's 依据, written for JupyterLab) lead to the built
    page when there is one."""
    def change(m):
        target = (page.parent / (m.group(1) + ".html")).resolve()
        return f'href="{m.group(1)}.html{m.group(2) or ""}"' if target.exists() else m.group(0)

    return NOTEBOOK_LINK.sub(change, html)


def run(outdir: Path, title: str = "昇腾 NPU 编程实战", thebe: bool = False, repository: str = "", lang: str = ZH,
        source_dir: Path | None = None) -> dict[str, int]:
    """Post-process a built site in place; return counts (pages rewritten, icons kept). ``lang`` is the book's
    edition; the Chinese site's ``en/`` folder (the English book, post-processed by its own build) is left alone.
    With ``source_dir`` (the book's source folder) every page gets the switch to its twin in the other edition."""
    outdir = Path(outdir)
    static = outdir / "_static"
    pages = [p for p in outdir.rglob("*.html") if "_static" not in p.parts and p.name != "404.html"
             and not (lang == ZH and p.relative_to(outdir).parts[0] == EDITION_FOLDER)]
    changed = 0
    manifest: dict[str, list[str]] = {}
    theme_css = static / "styles" / "pydata-sphinx-theme.css"
    course_css = static / "course.css"
    icons = 0
    names: set[str] | None = None
    if theme_css.exists() and course_css.exists():
        table = icon_codepoints(theme_css.read_text(encoding="utf-8"))
        scripts = [p.read_text(encoding="utf-8", errors="ignore") for p in static.rglob("*.js")
                   if "fontawesome" not in p.name and p.stat().st_size < 2_000_000]
        names = used_icons([p.read_text(encoding="utf-8") for p in pages] + scripts)
        codepoints = {table[n] for n in names if n in table}
        codepoints |= css_codepoints("".join(p.read_text(encoding="utf-8") for p in static.rglob("*.css")
                                             if "bundle-" not in p.name))
        icons = len(codepoints)
        css = course_css.read_text(encoding="utf-8").split(SUBSET_MARK)[0].rstrip("\n")
        rules = subset_fonts(static, codepoints)
        course_css.write_text(css + "\n" + SUBSET_MARK + "\n" + "\n".join(rules) + "\n", encoding="utf-8")
    figures: dict = {}
    for page in pages:  # after the subset rules are in course.css, so that the bundles carry them
        html = page.read_text(encoding="utf-8")
        new = rewrite_page(html, search_page=page.name == "search.html" and page.parent == outdir, thebe=thebe,
                           lang=lang)
        new = bundle_styles(new, static, manifest)
        new = link_pdf(new, len(page.relative_to(outdir).parts) - 1, (outdir / PDF_NAME).exists(), lang)
        if source_dir is not None:
            new = switch_language(new, page.relative_to(outdir).as_posix(), lang, Path(source_dir))
        if lang == EN:
            new = shared_tools(new, len(page.relative_to(outdir).parts) - 1)
        new = link_notebooks(new, page)
        new = link_favicon(new, len(page.relative_to(outdir).parts) - 1)
        new = readable_figures(new, page, figures)
        if new != html:
            page.write_text(new, encoding="utf-8")
            changed += 1
    write_bundles(static, manifest, names)
    if lang == ZH:  # one 404 page, at the site's root
        write_not_found(outdir, title, pages_base(repository))
    write_favicon(outdir)
    return {"pages": len(pages), "rewritten": changed, "icons": icons}


if __name__ == "__main__":  # `make pdf` re-runs it after copying the PDF into the site (`… <site>/en en`: English)
    import sys

    lang = EN if sys.argv[2:3] == [EN] else ZH
    print(run(Path(sys.argv[1] if len(sys.argv) > 1 else "_build/html"), lang=lang))
