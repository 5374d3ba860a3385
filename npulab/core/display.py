"""One display layer for tables: HTML in notebooks and on the site, Markdown where Markdown is wanted, aligned
text in terminals. Every table the course shows (figures, npu-smi results, API maps, scans) is a ``Table``.

>>> print(Table(["芯片", "HBM"], [["910B3", 64], ["310P3", None]]).text())
芯片   HBM
-----  ---
910B3  64
310P3  —
"""

from __future__ import annotations

import html
import unicodedata
from collections.abc import Iterable, Sequence

from npulab.core.i18n import t

CSS_CLASS = "npulab-figures"  # styled by assets/css/course.css


def display_width(text: str) -> int:
    """Columns a string takes in a terminal: CJK characters take two."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def cell_text(value: object) -> str:
    """How a value shows in any table: None as an em dash, floats in short form, lists joined by commas."""
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, list | tuple):
        return ", ".join(map(cell_text, value))
    return str(value)


def text_table(headers: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    """A left-aligned text table with a rule under the header."""
    cells = [[cell_text(v) for v in row] for row in rows]
    widths = [max([display_width(h)] + [display_width(r[i]) for r in cells]) for i, h in enumerate(headers)]

    def line(values: Sequence[str]) -> str:
        return "  ".join(v + " " * (w - display_width(v)) for v, w in zip(values, widths, strict=True)).rstrip()

    return "\n".join([line(list(headers)), line(["-" * w for w in widths])] + [line(r) for r in cells])


class Table:
    """Rows under headers, shown as HTML (Jupyter, the book), Markdown (``markdown()``) or aligned text (``text()``).

    ``code_columns`` are column indexes whose cells are code (``<code>`` / backticks); ``notes`` are lines shown
    under the table (e.g. sources collected once instead of per row).
    """

    def __init__(self, headers: Sequence[str], rows: Iterable[Sequence[object]], title: str = "", *,
                 code_columns: Iterable[int] = (), notes: Iterable[str] = ()):
        self.headers = [str(h) for h in headers]
        self.rows = [list(r) for r in rows]
        self.title = title
        self.code_columns = set(code_columns)
        self.notes = list(notes)
        bad = [r for r in self.rows if len(r) != len(self.headers)]
        if bad:
            raise ValueError(t("display.row_width", columns=len(self.headers), found=len(bad[0]), row=repr(bad[0])))

    def _html_cell(self, i: int, value: object) -> str:
        text = html.escape(cell_text(value))
        return f"<td><code>{text}</code></td>" if i in self.code_columns and value not in (None, "") else f"<td>{text}</td>"

    def _repr_html_(self) -> str:
        head = "".join(f"<th>{html.escape(h)}</th>" for h in self.headers)
        body = "".join("<tr>" + "".join(self._html_cell(i, v) for i, v in enumerate(r)) + "</tr>" for r in self.rows)
        caption = f"<caption>{html.escape(self.title)}</caption>" if self.title else ""
        foot = ""
        if self.notes:
            lines = "<br>".join(html.escape(n) for n in self.notes)
            foot = f'<tfoot><tr><td colspan="{len(self.headers)}">{lines}</td></tr></tfoot>'
        return f'<table class="{CSS_CLASS}">{caption}<thead><tr>{head}</tr></thead><tbody>{body}</tbody>{foot}</table>'

    def markdown(self) -> str:
        """A Markdown (GFM / MyST) table; ``|`` inside cells is escaped."""
        def md(i: int, value: object) -> str:
            text = cell_text(value).replace("|", "\\|").replace("\n", " ")
            return f"`{text}`" if i in self.code_columns and value not in (None, "") else text

        lines = [f"**{self.title}**", ""] if self.title else []
        lines += ["| " + " | ".join(self.headers) + " |", "|" + "---|" * len(self.headers)]
        lines += ["| " + " | ".join(md(i, v) for i, v in enumerate(r)) + " |" for r in self.rows]
        return "\n".join(lines + ([""] + self.notes if self.notes else []))

    def text(self) -> str:
        """Aligned text for terminals."""
        return "\n".join(([self.title] if self.title else []) + [text_table(self.headers, self.rows)] + self.notes)

    def __repr__(self) -> str:
        return self.text()


def emit(shown: object, metadata: dict | None = None) -> None:
    """Display ``shown`` now, wherever the call sits in a cell (IPython's ``display``), or print it outside IPython.

    A returned table renders only as the last expression of a cell; helpers that show a table call this instead.
    With ``metadata``, ``shown`` goes out as plain text carrying that output metadata (a verdict's record).
    """
    try:
        from IPython import get_ipython
        from IPython.display import display
    except ImportError:  # pragma: no cover - IPython comes with the course environment
        print(shown)
        return
    if get_ipython() is None:
        print(shown)
    elif metadata is None:
        display(shown)
    else:
        display({"text/plain": str(shown)}, raw=True, metadata=metadata)


def records(rows: Sequence[dict], columns: Sequence[str] | None = None, title: str = "", **options) -> Table:
    """A table of dicts (e.g. rows of a data file); columns default to every key, in first-seen order."""
    columns = list(columns or dict.fromkeys(k for r in rows for k in r))
    return Table(columns, [[r.get(c) for c in columns] for r in rows], title, **options)


def show_source(*objects: object):
    """The source of functions or classes as a highlighted code block (d2l's habit: a lesson shows the helper it
    introduces before later lessons reuse it)."""
    import inspect

    from IPython.display import Code

    return Code("\n\n".join(inspect.getsource(obj) for obj in objects), language="python")
