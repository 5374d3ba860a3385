"""A lesson's 练习 section as data: what each exercise tells the learner to call, and its folded answer's code.

The convention (docs/DECISIONS.md, "Lesson exercises run in the tests"):

- the section starts at the heading ``## 练习`` and ends at the next ``## `` heading; its numbered list is the
  exercises, and ``:::{admonition} 参考答案`` with ``:class: dropdown`` holds the folded answers;
- every `` ```python `` fence inside the answer is **executed** by the tests, in order, in the lesson's own
  kernel after its last cell (``conftest.py`` appends one item per lesson to the nbval run); a sketch that must
  not run (e.g. needs an NPU) is fenced `` ```text `` or `` ```{code-block} python ``;
- every call an inline code span or a ``python`` fence writes (``name(…)``, ``obj.attr(…)``) is **resolved** in
  that kernel after the answers ran: its root must be a name the lesson (or the answer) defined, a builtin or an
  importable module, and each attribute must exist. So a renamed helper breaks the test, not the learner.
"""

from __future__ import annotations

import ast
import re
import textwrap
import warnings
from dataclasses import dataclass, field

from npulab.core.i18n import t
from npulab.core.notebook_cells import cell_source
from npulab.pytorch.torch_npu_names import dotted_name as _dotted

HEADINGS = ("## 练习", "## Exercises")  # the Chinese lesson and its English twin (npulab.course.edition)
HEADING = HEADINGS[0]
ANSWER_OPEN = re.compile(r"^:{3,}\{admonition\}\s*(参考答案|Solutions)\s*$")
_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<ticks>`{3,})(?P<info>[^`\n]*)\n(?P<body>.*?)^(?P=indent)?(?P=ticks)[ \t]*$",
                    re.M | re.S)
_INLINE = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")


@dataclass
class ExerciseSection:
    """The 练习 section of one lesson: the exercise text, the answer text and the answer's Python fences."""

    exercises: str
    answers: str
    answer_code: list[str] = field(default_factory=list)

    def imports(self) -> list[str]:
        """Modules the section's code imports (``import time`` in the text): roots the learner is told to bind."""
        found: dict[str, None] = {}
        for snippet in code_snippets(self.exercises) + code_snippets(self.answers):
            for name in imported_names(snippet):
                found.setdefault(name, None)
        return list(found)

    def calls(self) -> list[str]:
        """Dotted callees (``shell_session.compare_orders``) written in the section's code, first-seen order."""
        seen: dict[str, None] = {}
        for snippet in code_snippets(self.exercises) + code_snippets(self.answers):
            for name in called_names(snippet):
                seen.setdefault(name, None)
        return list(seen)


def exercise_section(nb) -> ExerciseSection | None:
    """The lesson's 练习 section, or None when it has none."""
    text: list[str] = []
    inside = False
    for cell in nb.get("cells", []):
        if cell.get("cell_type") != "markdown":
            continue
        for line in cell_source(cell).splitlines():
            if line.startswith("## "):
                if inside:
                    return _split("\n".join(text))
                inside = line.strip() in HEADINGS
                continue
            if inside:
                text.append(line)
        if inside:
            text.append("")
    return _split("\n".join(text)) if inside else None


def _split(text: str) -> ExerciseSection:
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if ANSWER_OPEN.match(line.strip())), None)
    if start is None:
        return ExerciseSection(text, "", [])
    colons = len(lines[start].strip()) - len(lines[start].strip().lstrip(":"))
    end = next((i for i in range(start + 1, len(lines)) if lines[i].strip() == ":" * colons), len(lines))
    answers = "\n".join(lines[start + 1:end])
    exercises = "\n".join(lines[:start] + lines[end + 1:])
    return ExerciseSection(exercises, answers, python_fences(answers))


def python_fences(markdown: str) -> list[str]:
    """The bodies of the `` ```python `` fences in ``markdown``, dedented (fences inside list items are indented)."""
    return [textwrap.dedent(m["body"]) for m in _FENCE.finditer(markdown) if m["info"].strip() == "python"]


def code_snippets(markdown: str) -> list[str]:
    """Inline code spans and the bodies of ``python`` fences: the places where the text writes Python."""
    fences = list(_FENCE.finditer(markdown))
    outside = _FENCE.sub("", markdown)
    return [m.group(1) for m in _INLINE.finditer(outside)] + [
        textwrap.dedent(m["body"]) for m in fences if m["info"].strip() == "python"]


def called_names(snippet: str) -> list[str]:
    """Dotted names that ``snippet`` calls (``a.b(…)`` → ``a.b``); none when it is not Python (a shell line, prose)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(snippet)
    except SyntaxError:
        return []
    bound = _bound_names(tree)  # a lambda's argument, a function the snippet defines: not the lesson's to provide
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and (dotted := _dotted(node.func)) and dotted.split(".")[0] not in bound:
            names.append(dotted)
    return names


def imported_names(snippet: str) -> list[str]:
    """Names that ``snippet``'s plain ``import x`` statements bind (``import a.b`` binds ``a``)."""
    try:
        tree = ast.parse(snippet)
    except SyntaxError:
        return []
    return [(a.asname or a.name).split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
            for a in node.names]


def _bound_names(tree: ast.AST) -> set[str]:
    bound = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            bound.add(node.id)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound.update((a.asname or a.name).split(".")[0] for a in node.names)
    return bound


def unresolved(names: list[str], namespace: dict, imports: tuple[str, ...] | list[str] = ()) -> list[str]:
    """The dotted names that do not resolve in ``namespace`` (a kernel's globals), with the reason (reader's language).

    A root resolves when ``namespace`` binds it, it is a builtin, or it is in ``imports`` (the text tells the
    learner to import it) and importable.
    """
    import builtins
    import importlib

    problems = []
    for dotted in names:
        root, *attrs = dotted.split(".")
        if root in namespace:
            obj = namespace[root]
        elif hasattr(builtins, root):
            obj = getattr(builtins, root)
        elif root in imports:
            try:
                obj = importlib.import_module(root)
            except ImportError:
                problems.append(t("exercise.import_fails", dotted=dotted, root=root))
                continue
        else:
            problems.append(t("exercise.not_in_kernel", dotted=dotted, root=root))
            continue
        for depth, attr in enumerate(attrs, start=1):
            if not hasattr(obj, attr):
                owner = ".".join([root, *attrs[:depth - 1]])
                problems.append(t("exercise.no_attribute", dotted=dotted, owner=owner, attr=attr))
                break
            obj = getattr(obj, attr)
    return problems


def check_program(section: ExerciseSection) -> str:
    """Python for the lesson's kernel: resolve the calls, run the answer fences, resolve what the answers define.

    Names whose root an answer fence binds (``free_hbm`` in "写一个函数 `free_hbm(text)`") are resolved after the
    fences ran; all others before, so a renamed helper is reported as such rather than as the answer's traceback.
    """
    names = [n for n in section.calls() if not _math_notation(n) and not self_reference(n)]
    bound = set().union(*(_bound_or_empty(code) for code in section.answer_code))
    before = [n for n in names if n.split(".")[0] not in bound]
    after = [n for n in names if n.split(".")[0] in bound]
    parts = ["from npulab.course.exercises import report as _npulab_report, require as _npulab_require\n"
             f"_npulab_require({before!r}, globals(), {section.imports()!r})"]
    parts += [t("exercise.answer_code", index=i) + f"\n{code}" for i, code in enumerate(section.answer_code, start=1)]
    parts.append(f"_npulab_require({after!r}, globals(), {section.imports()!r})\n"
                 f"_npulab_report({len(section.answer_code)}, {len(names)})")
    return "\n\n".join(parts)


def report(answers: int, calls: int) -> None:
    """Say, in the kernel's language, that the answer code ran and that every name it calls exists."""
    print(t("exercise.done", answers=answers, calls=calls))


def require(names: list[str], namespace: dict, imports: tuple[str, ...] | list[str] = ()) -> None:
    """NameError (in the reader's language, one line per name) when some of ``names`` do not resolve in ``namespace``."""
    problems = unresolved(names, namespace, imports)
    if problems:
        raise NameError(t("exercise.missing_names", names="\n".join(problems)))


def _bound_or_empty(code: str) -> set[str]:
    try:
        return _bound_names(ast.parse(code))
    except SyntaxError:
        return set()


def _math_notation(name: str) -> bool:
    """``g(v)``, ``f(x)``: a one-letter function in a formula, not a name in the lesson."""
    return len(name) == 1


def self_reference(name: str) -> bool:
    """``self.x.y(…)``: a method body quoted from a class, resolved only inside that class."""
    return name.split(".")[0] == "self"
