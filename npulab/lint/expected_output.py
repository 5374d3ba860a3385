"""What an NPU-only cell says it would print: the text after ``%%npu`` on its first line.

Until a chapter is recorded on real Ascend hardware, a learner without an NPU sees no output for these cells, so each
one says what it would print. The convention (docs/DECISIONS.md):

- ``%%npu 预期……（依据：……）`` — an **expected-output description**: what the cell prints, written from cited public
  documentation or public outputs (or derived from the cell's own arithmetic), never an invented output; it is shown
  labelled as such in the skip notice (:mod:`npulab.course.npu_magic`) and beside the cell on the site;
- ``%%npu <where the reference result is>`` — a pointer (older cells; still accepted);
- a bare ``%%npu`` says nothing and is rejected by ``python -m npulab lint-npu`` (kind ``bare-npu``).
"""

from __future__ import annotations

from npulab.core.i18n import t
from npulab.core.notebook_cells import cell_magic, cell_source, code_cells, is_npu_cell

EXPECTED = "预期"
EXPECTED_LABEL = "预期输出（依据公开文档或公开输出写成的描述，不是本机或录制的输出）"
MIN_CHARS = 6  # shorter than this says nothing a learner can use


def description(source: str) -> str | None:
    """The text after ``%%npu`` on the cell's first line ('' when bare); None when the cell does not start with it."""
    magic = cell_magic(source)
    if magic is None or magic[0] != "npu":
        return None
    return magic[1].strip()


def is_expectation(text: str) -> bool:
    """Whether the ``%%npu`` text describes the output (starts with 预期) rather than pointing elsewhere."""
    return text.strip().startswith(EXPECTED)


def label(text: str) -> str:
    """The text as a learner reads it: labelled as an expected-output description or as a reference."""
    text = text.strip().rstrip("。.")
    if is_expectation(text):
        return f"{EXPECTED_LABEL}：{text[len(EXPECTED):].lstrip('：: ')}。"
    return f"参考：{text}。"


def problem(source: str) -> str | None:
    """Why an ``npu`` cell's ``%%npu`` line is not acceptable (in the reader's language); None when it is."""
    text = description(source)
    if text is None:
        return None  # a %%bash or plain npu cell: the skip notice and its text are not this check's business
    if len(text) < MIN_CHARS:
        return t("lint.bare_npu")
    return None


def problems(nb: dict) -> list[tuple[int, str | None, str]]:
    """(code cell number, cell id, message) for each ``npu`` cell of ``nb`` that does not say what it prints.

    lint-npu reports each as a finding of kind ``bare-npu``.
    """
    return [(number, cell.get("id"), message) for number, cell in code_cells(nb) if is_npu_cell(cell)
            and (message := problem(cell_source(cell))) is not None]
