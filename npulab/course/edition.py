"""The English edition: one code, two texts (issue 37).

Every Chinese page ``chapters/…/x.ipynb`` (or ``x.md``) has an English twin ``en/chapters/…/x.ipynb``. The twin's
code is never written by hand: ``sync`` copies every code cell (source, metadata with its tags, outputs) and the
notebook metadata from the Chinese notebook, in the Chinese order and with the Chinese cell ids, and keeps the
English Markdown that is already there. Each translated Markdown cell records, in ``metadata.translation``, the
hash of the Chinese text it was translated from; when the Chinese cell changes, the hash no longer matches and the
translation is stale. A Markdown cell that has no translation yet carries the Chinese text (the page never shows a
placeholder) and is listed in the printed to-do list. A Markdown page (``index.md``) records the hash in its first
line, an HTML comment.

``check`` reports every parity violation: cell ids, order or types that differ, a code cell whose source, metadata
or outputs differ, a Markdown cell that is untranslated or stale, or whose inline code, links or figure references
differ from the Chinese cell's. The quiz data has its own parity rules (:mod:`npulab.course.edition_quiz`).

CLI: ``python -m npulab edition sync|check [PATH…]`` (paths: Chinese or English pages, or folders; default: every
page that has a twin). Exit codes: 0 done / in parity, 1 parity violations, 2 usage.
"""

from __future__ import annotations

import copy
import hashlib
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from npulab.core.cli import EXIT_FAIL, EXIT_OK, EXIT_USAGE, UsageError
from npulab.core.i18n import t
from npulab.core.paths import REPO_ROOT, parse_yaml

EDITION_DIR = "en"
LANGUAGE = "en"
PAGE_SUFFIXES = (".ipynb", ".md")
_MD_STAMP = re.compile(r"\A<!-- translation: source_hash=([0-9a-f]+) source=(\S+) -->\n")
_INLINE_CODE = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")
_LINK = re.compile(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)|\{(?:ref|numref|doc|download)\}`[^`<]*<?([^`>]+)>?`")
_CJK = re.compile(r"[\u3400-\u9fff\uff00-\uffef\u3000-\u303f]")


# ---------------------------------------------------------------------------------------------------------------
# Paths and hashes
# ---------------------------------------------------------------------------------------------------------------


def source_hash(text: str) -> str:
    """The hash a translation records: SHA-256 (first 16 hex digits) of the Chinese text, trailing spaces ignored."""
    normal = "\n".join(line.rstrip() for line in text.strip().splitlines())
    return hashlib.sha256(normal.encode("utf-8")).hexdigest()[:16]


def is_english(path: Path, root: Path = REPO_ROOT) -> bool:
    """Whether ``path`` lies in the English edition (``en/…``)."""
    if not _inside(path, root):
        raise UsageError(t("edition.outside_repo", path=path, root=root))
    return path.resolve().relative_to(root.resolve()).parts[:1] == (EDITION_DIR,)


def twin(path: Path, root: Path = REPO_ROOT) -> Path:
    """The English twin of a Chinese page, or the Chinese source of an English page."""
    path = path.resolve()
    try:
        rel = path.relative_to(root.resolve())
    except ValueError:
        raise UsageError(t("edition.outside_repo", path=path, root=root)) from None
    if rel.parts[:1] == (EDITION_DIR,):
        return root / Path(*rel.parts[1:])
    return root / EDITION_DIR / rel


def pairs(paths: list[str] | None, root: Path = REPO_ROOT) -> list[tuple[Path, Path]]:
    """(Chinese page, English twin) pairs for the given paths; default: every English page's pair."""
    found: list[Path] = []
    for raw in paths or [str(root / EDITION_DIR)]:
        path = Path(raw)
        path = path if path.is_absolute() else (Path.cwd() / path)
        if not _inside(path, root):
            raise UsageError(t("edition.outside_repo", path=raw, root=root))
        if path.is_dir():
            book = book_pages(root)
            found += [p for p in sorted(path.rglob("*"))
                      if p.suffix in PAGE_SUFFIXES and p.resolve() == p.absolute() and _book_key(p, root) in book]
        elif path.suffix not in PAGE_SUFFIXES:
            raise UsageError(t("edition.not_a_page", path=raw))
        elif not path.exists() and not (_inside(path, root) and is_english(path, root)
                                        and twin(path, root).exists()):
            raise UsageError(t("edition.no_such_page", path=raw))
        else:
            found.append(path)
    out: dict[Path, tuple[Path, Path]] = {}
    for page in found:
        zh, en = (twin(page, root), page.resolve()) if is_english(page, root) else (page.resolve(), twin(page, root))
        if not zh.exists():
            raise UsageError(t("edition.no_chinese_source", en=en.relative_to(root), zh=zh.relative_to(root)))
        out[zh] = (zh, en)
    return list(out.values())


def _inside(path: Path, root: Path) -> bool:
    return path.resolve().is_relative_to(root.resolve())


def book_pages(root: Path = REPO_ROOT) -> set[str]:
    """The Chinese book's pages (``_toc.yml`` entries, without suffix): what a folder argument stands for."""
    found: set[str] = set()

    def walk(node) -> None:
        if isinstance(node, dict):
            for key in ("root", "file"):
                if isinstance(node.get(key), str):
                    found.add(node[key])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(parse_yaml((root / "_toc.yml").read_text(encoding="utf-8")))
    return found


def _book_key(page: Path, root: Path) -> str:
    zh = twin(page, root) if is_english(page, root) else page.resolve()
    return str(zh.relative_to(root.resolve()).with_suffix(""))


# ---------------------------------------------------------------------------------------------------------------
# Sync
# ---------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Todo:
    """A Markdown cell (or page) that needs translating: ``new`` (never translated) or ``stale`` (Chinese changed)."""

    page: str
    cell: str
    reason: str

    def line(self) -> str:
        label = {"new": t("edition.todo.new"), "stale": t("edition.todo.stale")}[self.reason]
        return f"{self.page} [{self.cell}] {label}"


def sync_notebook(zh_nb, en_nb):
    """The English notebook rebuilt from the Chinese one: code copied, English Markdown kept; and the to-do list."""
    import nbformat

    old = {cell.get("id"): cell for cell in (en_nb.cells if en_nb is not None else [])}
    new = nbformat.v4.new_notebook()
    new.metadata = copy.deepcopy(zh_nb.metadata)
    new.metadata["edition"] = {"language": LANGUAGE}
    new.nbformat, new.nbformat_minor = zh_nb.nbformat, zh_nb.nbformat_minor
    todo: list[tuple[str, str]] = []
    for cell in zh_nb.cells:
        if cell.cell_type == "code":
            new.cells.append(copy.deepcopy(cell))
            continue
        mine = old.get(cell.get("id"))
        recorded = (mine or {}).get("metadata", {}).get("translation", {}).get("source_hash")
        if mine is not None and mine.cell_type == cell.cell_type and recorded:
            kept = copy.deepcopy(mine)
            new.cells.append(kept)
            if recorded != source_hash(cell.source):
                todo.append((cell.id, "stale"))
        else:
            new.cells.append(copy.deepcopy(cell))  # the Chinese text until translated: no placeholder on the page
            todo.append((cell.id, "new"))
    return new, todo


def mark_translated(en_cell, zh_source: str) -> None:
    """Record in an English Markdown cell the hash of the Chinese text it translates."""
    en_cell.metadata["translation"] = {"source_hash": source_hash(zh_source), "language": LANGUAGE}


def _sync_markdown(zh: Path, en: Path) -> list[str]:
    zh_text = zh.read_text(encoding="utf-8")
    if not en.exists():
        en.parent.mkdir(parents=True, exist_ok=True)
        en.write_text(zh_text, encoding="utf-8")  # untranslated: the Chinese page, without a stamp
        return ["new"]
    match = _MD_STAMP.match(en.read_text(encoding="utf-8"))
    if not match:
        return ["new"]
    return [] if match.group(1) == source_hash(zh_text) else ["stale"]


def stamp_markdown(zh_text: str, zh_rel: str, en_body: str) -> str:
    """An English Markdown page with its first-line stamp (the hash of the Chinese page it translates)."""
    return f"<!-- translation: source_hash={source_hash(zh_text)} source={zh_rel} -->\n{en_body.lstrip()}"


def _link_sibling_folders(zh: Path, en: Path, root: Path) -> None:
    """Folders next to a Chinese lesson (examples/, ascendc/) linked beside the twin, so relative paths resolve.

    A folder that holds pages of the book (notebooks/solutions) is never linked: its pages have twins of their own,
    and a link would make a later sync of one of them write into the Chinese folder."""
    book = book_pages(root)
    for sibling in zh.parent.iterdir():
        target = en.parent / sibling.name
        if (sibling.is_dir() and not sibling.name.startswith((".", "_")) and not target.exists()
                and not _holds_pages(sibling, root, book)):
            target.symlink_to(_relative(sibling, en.parent), target_is_directory=True)


def _holds_pages(folder: Path, root: Path, book: set[str]) -> bool:
    return any(_book_key(p, root) in book for p in folder.rglob("*") if p.suffix in PAGE_SUFFIXES)


def _refuse_outside_edition(en: Path, root: Path) -> None:
    """A twin is written only inside en/ itself, never through a link into the Chinese book."""
    if not en.parent.resolve().is_relative_to((root / EDITION_DIR).resolve()):
        raise UsageError(t("edition.refuse_outside", path=en, folder=EDITION_DIR))


def _relative(target: Path, start: Path) -> Path:
    import os

    return Path(os.path.relpath(target, start))


def sync(zh: Path, en: Path, root: Path = REPO_ROOT) -> list[Todo]:
    """Bring the English twin of one page in line with the Chinese page; return what needs translating."""
    rel = str(en.relative_to(root))
    _refuse_outside_edition(en, root)
    if zh.suffix == ".md":
        return [Todo(rel, "page", reason) for reason in _sync_markdown(zh, en)]
    import nbformat

    zh_nb = nbformat.read(zh, as_version=4)
    missing = [i for i, c in enumerate(zh_nb.cells) if not c.get("id")]
    if missing:
        raise UsageError(t("edition.no_cell_id", path=zh.relative_to(root), cell=missing[0] + 1))
    en_nb = nbformat.read(en, as_version=4) if en.exists() else None
    new, todo = sync_notebook(zh_nb, en_nb)
    en.parent.mkdir(parents=True, exist_ok=True)
    _link_sibling_folders(zh, en, root)
    nbformat.write(new, en)
    return [Todo(rel, cell_id, reason) for cell_id, reason in todo]


# ---------------------------------------------------------------------------------------------------------------
# Check
# ---------------------------------------------------------------------------------------------------------------


def _code_spans(text: str) -> list[str]:
    return sorted(s for s in _INLINE_CODE.findall(text) if not _CJK.search(s))


def _links(text: str) -> list[str]:
    return sorted(a or b for a, b in _LINK.findall(text))


def text_parity(zh_text: str, en_text: str) -> list[str]:
    """What a translation lost: inline code spans (without Chinese) and link/reference targets of the Chinese text."""
    problems = []
    lost_code = sorted(set(_code_spans(zh_text)) - set(_code_spans(en_text)))
    if lost_code:
        problems.append(t("edition.code_missing", spans=", ".join(f"`{s}`" for s in lost_code[:5])))
    lost_links = sorted(set(_links(zh_text)) - set(_links(en_text)))
    if lost_links:
        problems.append(t("edition.links_missing", links=", ".join(lost_links[:5])))
    return problems


def check_notebook(zh_nb, en_nb) -> list[str]:
    """Parity violations between a Chinese notebook and its English twin (an empty list when they agree)."""
    problems = []
    zh_ids = [(c.get("id"), c.cell_type) for c in zh_nb.cells]
    en_ids = [(c.get("id"), c.cell_type) for c in en_nb.cells]
    if zh_ids != en_ids:
        problems.append(t("edition.cells_differ"))
        return problems
    zh_meta = {k: v for k, v in zh_nb.metadata.items() if k != "edition"}
    en_meta = {k: v for k, v in en_nb.metadata.items() if k != "edition"}
    if zh_meta != en_meta:
        problems.append(t("edition.metadata_differs"))
    for zh_cell, en_cell in zip(zh_nb.cells, en_nb.cells, strict=True):
        where = f"[{zh_cell.get('id')}]"
        if zh_cell.cell_type == "code":
            for part in ("source", "metadata", "outputs"):
                if zh_cell.get(part) != en_cell.get(part):
                    problems.append(t("edition.code_differs", where=where, part=part))
            continue
        recorded = en_cell.metadata.get("translation", {}).get("source_hash")
        if not recorded:
            problems.append(t("edition.untranslated_at", where=where))
        elif recorded != source_hash(zh_cell.source):
            problems.append(t("edition.stale_at", where=where))
        else:
            problems += [f"{where} {p}" for p in text_parity(zh_cell.source, en_cell.source)]
        zh_tags, en_tags = zh_cell.metadata.get("tags", []), en_cell.metadata.get("tags", [])
        if zh_tags != en_tags:
            problems.append(t("edition.tags_differ", where=where))
    return problems + exercise_parity(zh_nb, en_nb)


def exercise_parity(zh_nb, en_nb) -> list[str]:
    """The exercise checks must be the same: the answers' executed ``python`` fences, and the calls and imports
    the section asks for (npulab.course.exercises; conftest.py runs them for both editions)."""
    from npulab.course.exercises import exercise_section

    zh_sec, en_sec = exercise_section(zh_nb), exercise_section(en_nb)
    if zh_sec is None and en_sec is None:
        return []
    if zh_sec is None or en_sec is None:
        return [t("edition.exercise_missing")]
    problems = []
    if zh_sec.answer_code != en_sec.answer_code:
        problems.append(t("edition.answer_differs"))
    if sorted(zh_sec.calls()) != sorted(en_sec.calls()) or sorted(zh_sec.imports()) != sorted(en_sec.imports()):
        problems.append(t("edition.exercise_calls_differ"))
    return problems


def check(zh: Path, en: Path) -> list[str]:
    """Parity violations of one page pair."""
    if not en.exists():
        return [t("edition.no_twin")]
    if zh.suffix == ".md":
        zh_text, en_text = zh.read_text(encoding="utf-8"), en.read_text(encoding="utf-8")
        match = _MD_STAMP.match(en_text)
        if not match:
            return [t("edition.untranslated")]
        if match.group(1) != source_hash(zh_text):
            return [t("edition.stale")]
        return text_parity(zh_text, en_text[match.end():])
    import nbformat

    return check_notebook(nbformat.read(zh, as_version=4), nbformat.read(en, as_version=4))


# ---------------------------------------------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------------------------------------------


def cache_misses(english_notebooks: list[Path], cache_dir: Path) -> list[Path]:
    """English notebooks whose code (hence cache key) has no executed entry in the Jupyter Book execution cache."""
    if not cache_dir.is_dir():
        return [p for p in english_notebooks if p.suffix == ".ipynb"]
    import nbformat
    from jupyter_cache import get_cache

    cache = get_cache(str(cache_dir))
    missing = []
    for path in english_notebooks:
        if path.suffix != ".ipynb":
            continue
        try:
            cache.match_cache_notebook(nbformat.read(path, as_version=4))
        except KeyError:
            missing.append(path)
    return missing


# the Chinese book's part captions in the English book (a new part needs its English caption here)
PART_CAPTIONS = {"课程": "Course", "动手练习": "Hands-on labs", "参考答案": "Solutions", "关于本课程": "About this course"}
TOC_HEADER = ("# The English book's table of contents, written by `python -m npulab edition toc` from ../_toc.yml: the\n"
              "# Chinese book's order, the pages that have an English twin, the parts' captions in English. Do not edit.\n")


def english_toc(root: Path = REPO_ROOT) -> dict:
    """The English book's table of contents: the Chinese one with only the pages that have a twin (a chapter page
    without one leaves its translated sections as chapters of the part) and English part captions."""
    toc = parse_yaml((root / "_toc.yml").read_text(encoding="utf-8"))
    translated = {p for p in book_pages(root) if any((root / EDITION_DIR / f"{p}{s}").is_file() for s in PAGE_SUFFIXES)}

    def entries(nodes: list) -> list:
        out = []
        for node in nodes or []:
            sections = entries(node.get("sections", []))
            if node["file"] in translated:
                out.append({"file": node["file"], **({"sections": sections} if sections else {})})
            else:
                out += sections
        return out

    parts = []
    for part in toc.get("parts", []):
        caption = part.get("caption", "")
        if caption not in PART_CAPTIONS:
            raise UsageError(t("edition.no_caption", caption=caption))
        chapters = entries(part.get("chapters", []))
        if chapters:
            parts.append({"caption": PART_CAPTIONS[caption], "chapters": chapters})
    return {"format": toc.get("format", "jb-book"), "root": toc["root"], "parts": parts}


def english_toc_text(root: Path = REPO_ROOT) -> str:
    import yaml

    return TOC_HEADER + yaml.safe_dump(english_toc(root), sort_keys=False, allow_unicode=True)


def build_parser(subparsers, name: str) -> None:
    """Add the ``edition`` sub-command."""
    parser = subparsers.add_parser(
        name, help=t(f"cli.tool.{name}"),
        description="英文版（en/…）与中文原页“一份代码，两份文字”。sync 从中文笔记本复制代码单元、标签与输出，保留已有"
                    "英文 Markdown，并列出待翻译或已过期的单元；check 报告两版之间的每个不一致。"
                    "退出码：0 完成/一致，1 有不一致，2 用法错误。")
    parser.add_argument("action", choices=["sync", "check", "toc"],
                        help="sync：同步；check：检查；toc：按中文目录与已有的英文页面写出 en/_toc.yml")
    parser.add_argument("paths", nargs="*", metavar="PATH",
                        help="中文或英文页面，或文件夹（默认：en/ 下的全部页面）")
    parser.add_argument("--cache", metavar="DIR",
                        help="再检查每个英文笔记本的输出都已在这个执行缓存里（如 _build/.jupyter_cache），建书时不必再执行")
    parser.set_defaults(run=run)


def run(args) -> int:
    """Run ``edition sync``, ``edition check`` or ``edition toc``."""
    if args.action == "toc":
        try:
            text = english_toc_text()
        except UsageError as err:
            print(t("edition.error", error=err), file=sys.stderr)
            return EXIT_USAGE
        (REPO_ROOT / EDITION_DIR / "_toc.yml").write_text(text, encoding="utf-8")
        print(t("edition.wrote_toc", folder=EDITION_DIR))
        return EXIT_OK
    try:
        todo_pairs = pairs(args.paths)
    except UsageError as err:
        print(t("edition.error", error=err), file=sys.stderr)
        return EXIT_USAGE
    if not todo_pairs:
        print(t("edition.no_pages"), file=sys.stderr)
        return EXIT_USAGE
    if args.action == "sync":
        todos: list[Todo] = []
        for zh, en in todo_pairs:
            todos += sync(zh, en)
        print(t("edition.synced", count=len(todo_pairs)))
        for item in todos:
            print("  " + item.line())
        print(t("edition.to_translate", count=len(todos)) if todos else t("edition.all_translated"))
        return EXIT_OK
    bad = 0
    for zh, en in todo_pairs:
        for problem in check(zh, en):
            bad += 1
            print(f"{en.relative_to(REPO_ROOT)}: {problem}")
    if args.cache:
        missing = cache_misses([en for _, en in todo_pairs], Path(args.cache))
        for en in missing:
            bad += 1
            print(t("edition.not_cached", path=en.relative_to(REPO_ROOT), cache=args.cache))
    if bad:
        print(t("edition.violations", count=bad))
        return EXIT_FAIL
    print(t("edition.in_parity", count=len(todo_pairs)))
    return EXIT_OK


def apply_translation(en: Path, texts: dict[str, str], root: Path = REPO_ROOT) -> None:
    """Write English texts into a twin (Markdown cells by id, or the whole page under the key ``page``), stamped."""
    zh = twin(en, root)
    if en.suffix == ".md":
        en.write_text(stamp_markdown(zh.read_text(encoding="utf-8"), str(zh.relative_to(root)), texts["page"]),
                      encoding="utf-8")
        return
    import nbformat

    zh_cells = {c.get("id"): c for c in nbformat.read(zh, as_version=4).cells}
    en_nb = nbformat.read(en, as_version=4)
    for cell in en_nb.cells:
        if cell.get("id") in texts:
            if cell.cell_type == "code":
                raise UsageError(t("edition.code_cell", cell=cell.id))
            cell.source = texts[cell.id].strip()
            mark_translated(cell, zh_cells[cell.id].source)
    nbformat.write(en_nb, en)
