"""npulab.lint.expected_output: every %%npu line says what the cell prints, labelled as a description."""

from npulab.course import npu_magic
from npulab.lint import expected_output
from npulab.lint.notebook import check_notebook
from npulab.site import sphinx_extension

DESCRIBED = "%%npu 预期打印 hccl [0.0, 1.0]（推导）\nimport torch_npu\n"


def _nb(*sources):
    cells = [{"cell_type": "code", "id": f"c{i}", "metadata": {"tags": ["npu", "skip-execution"]}, "source": s,
              "outputs": [], "execution_count": None} for i, s in enumerate(sources)]
    return {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": cells}


def test_description_and_label():
    assert expected_output.description("\n%%npu  预期打印一行\nx = 1") == "预期打印一行"
    assert expected_output.description("%%npu\nx") == ""
    assert expected_output.description("%%bash\nnpu-smi info") is None
    assert expected_output.label("预期打印一行。") == f"{expected_output.EXPECTED_LABEL}：打印一行。"
    assert expected_output.label("预期：打印一行") == f"{expected_output.EXPECTED_LABEL}：打印一行。"
    assert expected_output.label("本节第 3 节的表格") == "参考：本节第 3 节的表格。"


def test_lint_rejects_a_bare_or_empty_npu_line_and_accepts_a_description():
    findings, checked = check_notebook(_nb("%%npu\nimport torch_npu\n", "%%npu 预期\nx = 1\n", DESCRIBED,
                                           "%%bash\nnpu-smi info\n"), lambda: None, "lesson.ipynb")
    bare = [f for f in findings if f.kind == "bare-npu"]
    assert checked == 4 and [f.cell_id for f in bare] == ["c0", "c1"]
    assert "预期" in bare[0].message and "不要编造输出" in bare[0].message


def test_skip_message_and_site_note_label_the_description():
    msg = npu_magic.skip_message("预期打印 hccl [0.0, 1.0]（推导）")
    assert msg.splitlines()[-1] == f"{expected_output.EXPECTED_LABEL}：打印 hccl [0.0, 1.0]（推导）。"
    note = sphinx_extension.npu_note(DESCRIBED, has_output=False, stamp=None)
    assert note.startswith("尚未在昇腾硬件上录制输出") and expected_output.EXPECTED_LABEL in note
    assert note.endswith("打印 hccl [0.0, 1.0]（推导）。")


def test_every_course_npu_cell_says_what_it_prints():
    from npulab.core.notebook_cells import iter_notebooks, parse_notebook

    bare = [f"{path.name}:{cell_id}" for path in iter_notebooks()
            for _, cell_id, _ in expected_output.problems(parse_notebook(path.read_bytes()))]
    assert bare == []
