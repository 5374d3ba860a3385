"""lint-npu, the sizes torch_npu's operator documentation states for NAMED axes of a tensor argument (lint round 13):
a paragraph that writes the tensor's shape as its axes (``shape是3维(T, n, n)或者4维(B, S, n, n)``,
``shape为3维[S, B, H]``, ``shape为（T, Nk, Dk）``) and then limits one of those axes by name, in the paragraph or in
the operator's constraints:

- a set: ``其中n仅支持4, 6, 8``, ``weight的W维度目前只支持3``, ``W固定为3``;
- a multiple: ``H须为64的倍数``;
- an equality in a formula: ``$D_k = 128$``;
- an upper bound: ``$D_k \\le 256$`` (an underscore in the name is dropped: ``D_k`` is the axis ``Dk``), ``Dk <= 256``;
- (round 15) a closed range: ``D：取值范围为32~256``, ``R需要是16的整数倍且取值范围为[16, 128]``.

A limit with a condition (``…时``, ``若``, ``场景``) anywhere before it in its sentence is not read. A constraint sentence that names a
parameter (``weight的W维度…``) limits that parameter's axis only; one that does not limits the axis of that name in
every tensor parameter whose shape names it. The axis is found in the shape form whose rank is the tensor's; a
tensor of another rank, or an axis name a form repeats with other names around it, is left alone where ambiguous.
npulab.lint.op_ranks checks these beside the ranks and drops an operator's rules when its own example breaks one.
"""

from __future__ import annotations

import re

from npulab.lint import op_doc_phrases as phrases
from npulab.lint import op_docs

# a shape written as named axes: "(T, n, n)", "[S, B, H]", "（T, Nk, Dk）"; (round 15) or as a layout without
# separators, one axis per capital letter: "[BHMND]" (as npulab.lint.op_ranks reads its rank)
_FORM = re.compile(r"[（(\[]\s*([A-Za-z_]\w*(?:\s*[,，]\s*[A-Za-z_]\w*)+)\s*[）)\]]")
_LAYOUT = re.compile(r"[（(\[]\s*([A-Z]{3,})\s*[）)\]]")  # (not a data format: "[ND]", "[NZ]")
_NUMBERS = r"(\d+(?:\s*(?:[,，、]|或者?|和)\s*\d+)*)"
_SET = r"(?:维度|维|轴)?\s*(?:目前|当前)?\s*(?:仅支持|只支持|只能是|只能为|固定为|仅能为|仅可为)\s*(?:取值)?\s*" + _NUMBERS + \
    r"(?!\s*(?:的倍数|倍|\d|\.\d|维|D\b))"
_MULTIPLE = r"(?:维度|维|轴)?\s*(?:的大小)?\s*(?:须|必须|需|需要|要求)?(?:为|是)\s*(\d+)\s*的(?:整数)?倍数?"
# (round 15) a closed range: "D：取值范围为32~256", "R需要是16的整数倍且取值范围为[16, 128]" (what stands between the
# axis and the range stays inside one clause)
_RANGE = r"(?:[:：]\s*|[^。；;，,:：]{0,16}?)取值范围(?:为|是)?\s*[:：]?\s*" \
    r"(?:[\[［]\s*(\d+)\s*[,，]\s*(\d+)\s*[\]］]|(\d+)\s*[~～]\s*(\d+)(?![\d.]|\s*[KkMm]))"
_AT_MOST = r"\$?\s*(?:\\le|<=|≤)\s*(\d+)"
_EQUALS = r"=\s*(\d+)\s*\$"  # "$D_k = 128$" (a formula's equality, not code's assignment)


def _limits(sentence: str, axis: str) -> list[tuple[str, object]]:
    """(kind, value) of the limits ``sentence`` states for ``axis`` under no condition."""
    out: list[tuple[str, object]] = []
    spelled = "_?".join(re.escape(c) for c in axis)  # D_k for Dk
    head = rf"(?<![A-Za-z0-9_]){spelled}(?![A-Za-z0-9_])\s*"
    for kind, tail in (("set", _SET), ("multiple", _MULTIPLE), ("at_most", _AT_MOST), ("set", _EQUALS),
                       ("range", _RANGE)):
        for m in re.finditer(head + tail, sentence):
            if phrases.CONDITIONAL.search(sentence[:m.start()]):
                continue  # stated for one case ("a8w8场景下…"): anywhere before it in the sentence
            if kind == "range":
                low, high = (m.group(1), m.group(2)) if m.group(1) is not None else (m.group(3), m.group(4))
                out.append((kind, (int(low), int(high))))
            elif kind == "set":
                out.append((kind, frozenset(int(v) for v in re.findall(r"\d+", m.group(1)))))
            else:
                out.append((kind, int(m.group(1))))
    return out


def _forms(paragraph: str) -> list[tuple[str, ...]]:
    """The named-axes shapes a paragraph's sentences about ``shape`` give."""
    forms = []
    for sentence in op_docs._sentences(paragraph):
        if "shape" in sentence.lower() or "维" in sentence:
            forms += [tuple(a.strip() for a in re.split(r"[,，]", m.group(1))) for m in _FORM.finditer(sentence)]
            forms += [tuple(m.group(1)) for m in _LAYOUT.finditer(sentence)]
    return forms


def axes_of_text(text: str, operator: str) -> dict[str, list[tuple[tuple[tuple[str, ...], ...], str, str, object, str]]]:
    """parameter -> [(its shape forms, axis, kind, value, sentence)] for tensor parameters whose axes are limited."""
    declared = op_docs.prototype(text, operator)
    typed, constraints = op_docs.typed_paragraphs(text, operator)
    out: dict[str, list] = {}
    for parameter, (kind, paragraph) in typed.items():
        if kind != "tensor":
            continue
        forms = _forms(paragraph)
        names = {a for form in forms for a in form}
        if not forms:
            continue
        said = [(s, None) for s in op_docs._sentences(paragraph)] + \
               [(s, re.match(r"^\W*([A-Za-z_]\w*)的", s)) for s in op_docs._sentences(constraints)]
        for sentence, owner in said:
            if owner is not None and owner.group(1) in declared and owner.group(1) != parameter:
                continue  # a constraint on another parameter's axis
            for axis in names:
                for kind, value in _limits(sentence, axis):
                    out.setdefault(parameter, []).append((tuple(forms), axis, kind, value, sentence))
    return out


# (round 15) an integer parameter bounded by a tensor's axis: "layer_idx：…值需要小于weight_b的第二个维度L"
_BELOW = re.compile(r"(小于等于|小于|不大于|不超过)\s*`?([A-Za-z_][A-Za-z0-9_]*)`?\s*的第\s*([一二三四五六七八]|\d)\s*个?维")
_ORDINALS = {c: i for i, c in enumerate("一二三四五六七八", start=1)}


def below_of_text(text: str, operator: str) -> dict[str, list[tuple[str, int, bool, str]]]:
    """integer parameter -> [(tensor parameter, axis index, strictly below, sentence)] its paragraph states, under no
    condition before it in the sentence."""
    typed, _ = op_docs.typed_paragraphs(text, operator)
    kinds = {p: kind for p, (kind, _) in typed.items()}
    out: dict[str, list] = {}
    for parameter, (kind, paragraph) in typed.items():
        if kind != "int":
            continue
        for sentence in op_docs._sentences(paragraph):
            for m in _BELOW.finditer(sentence):
                if kinds.get(m.group(2)) != "tensor" or phrases.CONDITIONAL.search(sentence[:m.start()]):
                    continue
                index = _ORDINALS.get(m.group(3)) or int(m.group(3))
                out.setdefault(parameter, []).append((m.group(2), index - 1, m.group(1) == "小于", sentence))
    return out


def below_broken(bound: dict, rules: dict) -> tuple[str, int, str, int, int, str] | None:
    """(parameter, its value, tensor, axis number from 1, the axis size, sentence) of the first integer argument at or
    above (or above) the tensor's axis it is bounded by."""
    import torch

    for parameter, limits in rules.items():
        value = bound.get(parameter)
        if not isinstance(value, int) or isinstance(value, bool):
            continue
        for tensor, index, strict, sentence in limits:
            other = bound.get(tensor)
            if isinstance(other, torch.Tensor) and other.dim() > index:
                size = int(other.shape[index])
                if value >= size if strict else value > size:
                    return parameter, value, tensor, index + 1, size, sentence
    return None


def broken(value, rules: list) -> tuple[str, int, str, object, str] | None:
    """(axis, its size, kind, value, sentence) of the first rule the tensor ``value`` breaks; None if none."""
    for forms, axis, kind, limit, sentence in rules:
        matching = [form for form in forms if len(form) == value.dim()]
        if len(matching) != 1:
            continue
        sizes = {int(value.shape[i]) for i, a in enumerate(matching[0]) if a == axis}
        for size in sizes:
            if (kind == "set" and size not in limit) or (kind == "multiple" and size % limit) \
                    or (kind == "at_most" and size > limit) or (kind == "range" and not limit[0] <= size <= limit[1]):
                return axis, size, kind, limit, sentence
    return None
