"""lint-npu round 11: an int parameter of a torch_npu operator whose documentation gives each value's meaning in turn
(``0表示…，1表示…``, also across the paragraph's sentences) takes only those values — unless the paragraph admits
others (``非0``, ``其他``, a range) or states them under a condition. Snippets written for the test, on an operator
and parameters no planted set uses."""

from __future__ import annotations

from npulab.lint import op_docs


def _refused(text: str) -> set[str]:
    return {r["refused"] for r in op_docs.limits_of_text(text, "npu_sample", (), "0")}


PROTOTYPE = "torch_npu.npu_sample(Tensor x, int style=0) -> Tensor\n\n参数说明:\nx (Tensor): 输入。\n"


def test_meanings_in_one_sentence_are_the_values():
    assert _refused(PROTOTYPE + "style (int): 可选参数，0表示行优先，1表示列优先，2表示分块。\n") == {
        "isinstance(style, int) and style not in (0, 1, 2,)"}


def test_meanings_across_sentences_are_the_values():
    text = PROTOTYPE + "-   **style**（`int`）：可选参数，默认值为`0`，`0`表示行优先；`1`表示列优先。\n"
    assert _refused(text) == {"isinstance(style, int) and style not in (0, 1,)"}


def test_a_paragraph_that_admits_other_values_gives_no_set():
    assert _refused(PROTOTYPE + "style (int): 可选参数，0表示关闭，非0表示开启。\n") == set()
    assert _refused(PROTOTYPE + "style (int): 可选参数，0表示关闭，1表示开启，其他值保留。\n") == set()


def test_meanings_under_a_condition_give_no_set():
    assert _refused(PROTOTYPE + "style (int): 可选参数，当x为float16时，0表示行优先，1表示列优先。\n") == set()


def test_one_meaning_is_not_a_set():
    assert _refused(PROTOTYPE + "style (int): 可选参数，0表示行优先。\n") == set()
