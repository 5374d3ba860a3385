"""Lessons that compute peaks, rooflines, MFU, tiling, Triton launch limits or HBM plans do it for the learner's chip.

Each chooses the chip in one cell (``CHIP = None`` → ``chip_probe.lesson_chip(CHIP)``: the lesson's variable,
``NPULAB_CHIP``, the device, or the default 910B3) and from then on computes for no chip by name: no ``*_910b3()``
model, no ``"910B3"`` literal, no 910B3 platform-file figure id, no second probe — outside ``%%npu`` cells, which run on
the learner's real NPU. Models that may not apply go through ``chips.first_applicable``; the lesson-specific tests
(``test_chip_lessons_02_03``, ``test_kernel_lessons_chip``, ``test_llm_lesson_cells``) check what each prints.
Executing them once per chip of the table is ``make test-chips`` (minutes; not part of ``make test``).
"""

import re

import pytest

from npulab.core.notebook_cells import code_cells, read
from npulab.core.paths import REPO_ROOT

# the lesson -> whether its chip cell directly follows the setup cell (02/01 first shows the seed's 910B3, then asks)
CHIP_LESSONS = {
    "chapters/02_ascend_architecture/01_davinci_910b3.ipynb": False,
    "chapters/03_pytorch_npu/02_resnet50_amp.ipynb": True,
    "chapters/06_advanced/01_ascend_c_operator.ipynb": True,
    "chapters/06_advanced/02_triton_kernels.ipynb": True,
    "chapters/06_advanced/05_llm_on_ascend.ipynb": True,
}
BY_NAME = re.compile(r"\w*910b3\w*\s*\(|[\"']910B3[\"']|[\"']ini\.910b3\.|current_chip\(|roofline\.machines\(\)",
                     re.IGNORECASE)


@pytest.mark.parametrize("path", CHIP_LESSONS)
def test_the_lesson_chooses_the_chip_once_and_computes_for_no_chip_by_name_after(path):
    sources = [cell.source for _, cell in code_cells(read(REPO_ROOT / path))]
    choosing = [i for i, src in enumerate(sources) if "chip_probe.lesson_chip(CHIP)" in src]
    assert len(choosing) == 1, f"{path}：应当恰好有一个 lesson_chip(CHIP) 单元"
    index = choosing[0]
    assert re.search(r"^CHIP = None\s+#", sources[index], re.MULTILINE), "CHIP 默认为 None，并有一行说明"
    assert "print(ident.describe())" in sources[index] and "chip = ident.chip" in sources[index]
    if CHIP_LESSONS[path]:
        assert index == 1 and "%load_ext npulab" in sources[0], f"{path}：CHIP 单元应紧跟在环境单元之后"
    for src in sources[index + 1:]:
        if src.lstrip().startswith("%%npu"):
            continue
        found = BY_NAME.search(src)
        assert found is None, f"{path}：选定芯片之后仍按名字计算：{found[0] if found else ''}\n{src[:200]}"


def test_make_test_chips_runs_exactly_these_lessons():
    makefile = (REPO_ROOT / "Makefile").read_text(encoding="utf-8")
    assert "from tests.test_chip_lessons import CHIP_LESSONS" in makefile and "NPULAB_CHIP=$$chip" in makefile
