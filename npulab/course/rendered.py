"""What a lesson page renders, read from its cells: tables and figures a cell shows, and the ones it drops.

Two traps hide a table without an error:

- a call that *returns* a displayable (a ``Table``, an IPython ``HTML``) renders only as the last expression of a
  cell; followed by another statement, inside an ``if``, a loop or a function, its result is silently dropped
  (review 2026-12c H2: 15 ``provenance.show`` tables vanished after the machine footer was appended);
- prose that says “上表”“下图” next to a cell that no longer shows a table or figure.

``dropped`` finds the first statically (an AST scan of each code cell, resolving the lesson's ``npulab`` imports
against the return annotations in the package's own sources); ``references`` finds the second in the Markdown and
checks it against the cells around it — statically, and against executed outputs with ``rendered_kinds``.
"""

from __future__ import annotations

import ast
import functools
import re
from dataclasses import dataclass
from pathlib import Path

from npulab.core.notebook_cells import NPU_TAG, tags
from npulab.pytorch.torch_npu_names import dotted_name as dotted

PACKAGE = Path(__file__).resolve().parents[1]
REPR_METHODS = {"_repr_html_", "_repr_markdown_", "_repr_svg_", "_repr_png_", "_repr_latex_", "_repr_mimebundle_"}
IPYTHON_DISPLAYS = {"HTML", "Markdown", "Code", "Image", "SVG", "Latex", "JSON", "IFrame", "Javascript", "Math"}
DISPLAY_CALLS = {"display", "emit"}  # show their argument wherever they are called
TABLE_CLASS = "Table"  # npulab.core.display.Table: every table the course shows is one (or a subclass)
FIGURE_CALLS = {"plot", "bar", "barh", "scatter", "imshow", "loglog", "semilogx", "semilogy", "errorbar", "step",
                "subplots", "figure", "hist", "fill_between", "draw", "draw_topology", "plot_timeline"}
TABLE, FIGURE, OTHER = "表", "图", "其他输出"  # OTHER: printed text, a verdict, a footer
REFERENCE = re.compile(r"(?P<where>上|下|如上|如下|上面的?|下面的?|上方的?|下方的?)(?P<what>[表图])")
# the English book's words for the same pointers: "the table above", "the figure below", "the following plot" …
REFERENCE_EN = re.compile(r"\b(?:the|this|that)\s+(?:(?P<what>table|figure|plot|chart|graph)\s+(?P<where>above|below)"
                          r"|(?P<where2>above|following|preceding)\s+(?P<what2>table|figure|plot|chart|graph))\b", re.I)
MARKDOWN_TABLE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*\|", re.M)
MARKDOWN_FIGURE = re.compile(r"!\[|<img\b|```\{(?:figure|image)\}|:::\{(?:figure|image)\}")


def _annotation_names(node: ast.expr | None) -> set[str]:
    """The class names an annotation can return at top level (``X``, ``mod.X``, ``X | None``, ``"X"``)."""
    if node is None:
        return set()
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return _annotation_names(ast.parse(node.value, mode="eval").body)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _annotation_names(node.left) | _annotation_names(node.right)
    if isinstance(node, ast.Name):
        return {node.id}
    if isinstance(node, ast.Attribute):
        return {node.attr}
    return set()


@dataclass(frozen=True)
class PackageIndex:
    """From ``npulab``'s sources: functions (``module.name``) and method names that return a displayable."""

    functions: frozenset[str]
    methods: frozenset[str]
    classes: frozenset[str]
    showing: frozenset[str]  # functions (``module.name``) that display a table themselves (``emit(table)``)
    tables: frozenset[str] = frozenset()  # the functions among ``functions`` that return a table (``Table``)
    table_methods: frozenset[str] = frozenset()


@functools.cache
def package_index(root: Path = PACKAGE) -> PackageIndex:
    """Scan the package's sources (no imports): displayable classes, and what returns one of them."""
    trees = {}
    for path in sorted(root.rglob("*.py")):
        module = ".".join(("npulab", *path.relative_to(root).with_suffix("").parts)).removesuffix(".__init__")
        trees[module] = ast.parse(path.read_text(encoding="utf-8"))
    bases: dict[str, set[str]] = {}
    classes = set(IPYTHON_DISPLAYS)
    for tree in trees.values():
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                bases.setdefault(node.name, set()).update(n for b in node.bases for n in _annotation_names(b))
                if any(isinstance(s, ast.FunctionDef) and s.name in REPR_METHODS for s in node.body):
                    classes.add(node.name)
    classes = _with_subclasses(classes, bases)
    tables = _with_subclasses({TABLE_CLASS}, bases)
    functions, methods = _returning(trees, classes)
    table_functions, table_methods = _returning(trees, tables)
    builders = classes | {name.rsplit(".", 1)[-1] for name in functions}
    showing = set()
    for module, tree in trees.items():
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and any(
                    isinstance(c, ast.Call) and (dotted(c.func) or "").rsplit(".", 1)[-1] in DISPLAY_CALLS
                    and any(isinstance(a, ast.Call) and (dotted(a.func) or "").rsplit(".", 1)[-1] in builders
                            for a in c.args) for c in ast.walk(node)):
                showing.add(f"{module}.{node.name}")
    return PackageIndex(frozenset(functions), frozenset(methods), frozenset(classes), frozenset(showing),
                        frozenset(table_functions), frozenset(table_methods))


def _with_subclasses(names: set[str], bases: dict[str, set[str]]) -> set[str]:
    """``names`` and every class that derives from one of them, however indirectly."""
    found = set(names)
    while more := {name for name, of in bases.items() if of & found} - found:
        found |= more
    return found


def _returning(trees: dict[str, ast.Module], classes: set[str]) -> tuple[set[str], set[str]]:
    """Module functions and class constructors (``module.name``) that return one of ``classes``, and method names."""
    functions, methods = set(), set()
    for module, tree in trees.items():
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and _annotation_names(node.returns) & classes:
                functions.add(f"{module}.{node.name}")
            if isinstance(node, ast.ClassDef):
                if node.name in classes:
                    functions.add(f"{module}.{node.name}")  # calling the class builds one
                methods |= {item.name for item in node.body
                            if isinstance(item, ast.FunctionDef) and _annotation_names(item.returns) & classes}
    return functions, methods


def code_of(source: str) -> str:
    """A cell's Python with IPython's ``%`` / ``!`` lines blanked (line numbers kept); '' for a ``%%`` cell."""
    if source.lstrip().startswith("%%"):
        return ""
    return "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines())


def imports_of(sources: list[str]) -> dict[str, str]:
    """Local name → dotted target, from the import statements of a notebook's code cells."""
    names = {}
    for source in sources:
        try:
            tree = ast.parse(code_of(source))
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    names[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for a in node.names:
                    names[a.asname or a.name] = f"{node.module}.{a.name}"
    return names


def _callee(call: ast.Call) -> str:
    """The called name's last part (``markdown`` in ``records(rows).markdown()``)."""
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def target(call: ast.Call, imports: dict[str, str]) -> str | None:
    """The dotted name a call resolves to through the notebook's imports (None for a local object)."""
    name = dotted(call.func)
    if name is None:
        return None
    head, _, rest = name.partition(".")
    if head not in imports:
        return None
    return imports[head] + (f".{rest}" if rest else "")


def returns_displayable(call: ast.Call, imports: dict[str, str], index: PackageIndex | None = None) -> bool:
    """Whether a call returns something Jupyter would render as a table or rich output."""
    index = index or package_index()
    resolved = target(call, imports)
    if resolved is not None:
        return resolved in index.functions or resolved.rsplit(".", 1)[-1] in IPYTHON_DISPLAYS and \
            resolved.startswith("IPython")
    return isinstance(call.func, ast.Attribute) and call.func.attr in index.methods


def returns_table(call: ast.Call, imports: dict[str, str], index: PackageIndex | None = None) -> bool:
    """Whether a call returns a table: a ``Table`` (or subclass), or IPython ``Markdown`` of a Markdown table
    (``Markdown(t.markdown())``, ``Markdown(kernel_paths.table())``)."""
    index = index or package_index()
    resolved = target(call, imports)
    if resolved is not None and resolved.startswith("IPython") and resolved.endswith(".Markdown"):
        return any(isinstance(a, ast.Call) and re.fullmatch(r"markdown|\w*table", _callee(a)) for a in call.args)
    if resolved is not None:
        return resolved in index.tables
    return isinstance(call.func, ast.Attribute) and call.func.attr in index.table_methods


def _last_shown(tree: ast.Module, source: str) -> ast.stmt | None:
    """The statement whose value IPython shows: the last top-level one, unless the cell ends with ``;``."""
    if not tree.body or not isinstance(tree.body[-1], ast.Expr) or source.rstrip().endswith(";"):
        return None
    return tree.body[-1]


def dropped(source: str, imports: dict[str, str], index: PackageIndex | None = None) -> list[str]:
    """Calls in a cell that return a displayable whose value nothing shows (not the cell's last expression)."""
    code = code_of(source)
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return []
    shown = _last_shown(tree, code)
    return [f"第 {node.lineno} 行 {ast.unparse(node.value.func)}(…)" for node in ast.walk(tree)
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and node is not shown
            and returns_displayable(node.value, imports, index)]


def _calls(tree: ast.AST) -> list[ast.Call]:
    return [n for n in ast.walk(tree) if isinstance(n, ast.Call)]


def static_kinds(source: str, imports: dict[str, str], index: PackageIndex | None = None) -> set[str]:
    """What a code cell shows, read from its source: TABLE (a table it displays), FIGURE (a plot), OTHER (text)."""
    index = index or package_index()
    code = code_of(source)
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return set()
    kinds = set()
    shown = _last_shown(tree, code)
    if shown is not None and isinstance(shown.value, ast.Call) and returns_table(shown.value, imports, index):
        kinds.add(TABLE)
    for call in _calls(tree):
        name = dotted(call.func) or ""
        last = name.rsplit(".", 1)[-1]
        if target(call, imports) in index.showing:
            kinds.add(TABLE)
        elif last in DISPLAY_CALLS | {"print"} and any(isinstance(a, ast.Call) and returns_table(a, imports, index)
                                                       or last in DISPLAY_CALLS and isinstance(a, ast.Name)
                                                       for a in call.args):
            kinds.add(TABLE)  # display(table), print(records(...))
        if last in FIGURE_CALLS or name.startswith("plt.") or "plot" in last or "draw" in last:
            kinds.add(FIGURE)
        if last in {"print", "show", "display", "footer", "run", "system"}:
            kinds.add(OTHER)
    if shown is not None:
        kinds.add(OTHER)
    return kinds


def rendered_kinds(cell) -> set[str]:
    """What an executed code cell's outputs show: TABLE (an HTML or Markdown table), FIGURE (an image), OTHER."""
    kinds = {OTHER} if cell.get("outputs") else set()
    for out in cell.get("outputs", []):
        data = out.get("data", {})
        html, markdown = ("".join(v) if isinstance(v, list) else v for v in (data.get("text/html", ""),
                                                                             data.get("text/markdown", "")))
        if "<table" in html or MARKDOWN_TABLE.search(markdown):
            kinds.add(TABLE)
        if any(k.startswith("image/") for k in data):
            kinds.add(FIGURE)
    return kinds


@dataclass(frozen=True)
class Reference:
    """One “上表 / 下图 …” in a Markdown cell and the cell that should show what it points at."""

    cell: int
    words: str
    kind: str  # TABLE or FIGURE
    shown_by: int | None  # the cell (Markdown or code) that shows it; None when nothing nearby does
    context: str


def _markdown_shows(text: str, kind: str) -> bool:
    return bool((MARKDOWN_TABLE if kind == TABLE else MARKDOWN_FIGURE).search(text))


def _pointers(text: str):
    """(match, kind, up) of every “上表 / 下图 …” or “the table above / the following figure …” in ``text``."""
    for m in REFERENCE.finditer(text):
        yield m, m.group("what"), m.group("where").lstrip("如")[0] == "上"
    for m in REFERENCE_EN.finditer(text):
        what, where = (m.group("what") or m.group("what2")).lower(), (m.group("where") or m.group("where2")).lower()
        yield m, TABLE if what == "table" else FIGURE, where in ("above", "preceding")


def references(nb, kinds_of=None) -> list[Reference]:
    """Every “上表 / 下表 / 上图 / 下图 / 如上表 …” of a notebook's Markdown with the cell that shows it.

    Looking up (上) or down (下) from the reference, within its section (a heading ends the search): a Markdown
    table (or image), or a code cell that shows a table (or figure) — by ``kinds_of(index, cell)``, by default read
    from its source, for an executed notebook ``rendered_kinds`` of its outputs. Looking down, the first code cell
    with any output must be the one (the reader meets it next); looking up, cells that only print may sit between.
    """
    cells = nb["cells"]
    imports = imports_of([c["source"] for c in cells if c["cell_type"] == "code"])
    index = package_index()
    kinds_of = kinds_of or (lambda _i, c: static_kinds(c["source"], imports, index))
    found = []
    for number, cell in enumerate(cells):
        if cell["cell_type"] != "markdown":
            continue
        text = cell["source"]
        for m, kind, up in _pointers(text):
            shown_by = number if _markdown_shows(text[:m.start()] if up else text[m.end():], kind) else None
            order = range(number - 1, -1, -1) if up else range(number + 1, len(cells))
            for other in order if shown_by is None else ():
                c = cells[other]
                if c["cell_type"] == "markdown":
                    if _markdown_shows(c["source"], kind):
                        shown_by = other
                    if shown_by is not None or re.search(r"^#", c["source"], re.M):
                        break  # found, or a new section begins: nothing beyond it is "上表 / 下表" any more
                else:
                    shows = kinds_of(other, c)
                    if kind in shows:
                        shown_by = other
                        break
                    if shows and not up:
                        break  # “下表” is what the reader meets next: the next cell with output must show it
            found.append(Reference(number, m.group(), kind, shown_by, text[max(0, m.start() - 30):m.end() + 30]))
    return found


def unrendered(nb, kinds_of=None) -> list[str]:
    """The references whose table or figure is not shown by the cell they point at, in words."""
    return [f"单元 {r.cell} 的“{r.words}”：所指方向上最近的单元没有显示{r.kind}（…{r.context}…）"
            for r in references(nb, kinds_of) if r.shown_by is None]


def expected_tables(source: str, imports: dict[str, str], index: PackageIndex | None = None) -> int:
    """How many tables a cell shows whatever its branches do: top-level ``show``/``display`` calls and its value."""
    index = index or package_index()
    code = code_of(source)
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return 0
    shown = _last_shown(tree, code)
    count = 0
    for node in tree.body:
        if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)):
            continue
        call = node.value
        last = (dotted(call.func) or "").rsplit(".", 1)[-1]
        if target(call, imports) in index.showing or node is shown and returns_table(call, imports, index) or (
                last in DISPLAY_CALLS and any(isinstance(a, ast.Call) and returns_table(a, imports, index)
                                              for a in call.args)):
            count += 1
    return count


def executed_problems(nb) -> list[str]:
    """In an executed notebook: cells that show fewer tables than their code displays, and references to a table
    or figure that the page does not show (an NPU cell skipped without a stored output shows nothing)."""
    cells = nb["cells"]
    imports = imports_of([c["source"] for c in cells if c["cell_type"] == "code"])
    out = []
    for number, cell in enumerate(cells):
        if cell["cell_type"] != "code":
            continue
        want = expected_tables(cell["source"], imports)
        got = sum(1 for o in cell.get("outputs", []) if rendered_kinds({"outputs": [o]}) & {TABLE})
        if got < want and NPU_TAG not in tags(cell):
            out.append(f"单元 {number}：代码显示 {want} 张表，输出里只有 {got} 张")
    return out + unrendered(nb, lambda _i, c: rendered_kinds(c))
