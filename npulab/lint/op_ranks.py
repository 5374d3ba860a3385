"""lint-npu, the ranks torch_npu's operator documentation states for tensor arguments (``shape支持2维``,
``shape为1D (D,)、2D (N,D)或3D``, ``输入shape支持2-8维``, ``数据维度可为3维[T, n, D]和4维``), checked against the
tensors an ``npu`` cell builds: torch_npu has no meta kernels, so npulab.lint.meta_run hands each torch_npu call whose
arguments it knows to :func:`refusal`, which reads the operator's text in the pinned wheel's ``_op_plugin_docs.py``.

A paragraph counts only where a sentence under no condition (``…时``, ``若``, ``场景``) states the ranks; the ranks
of one paragraph are the union over its sentences (a product line that narrows them widens nothing). An operator's
rank rules are dropped whole when its own example (``调用示例``: the ``torch.randn(…)`` tensors it builds, run by
the same interpreter) breaks one of them — the sign of a misreading, as a default outside a documented range is for
the value rules (npulab.lint.op_docs). Beside the ranks it checks the named axes (npulab.lint.op_axes) and, from
round 15, the integers an axis bounds, and the dtypes and dtype ties tensors must have (npulab.lint.op_dtypes).
"""

from __future__ import annotations

import ast
import re

from npulab.core.i18n import language, t
from npulab.core.words import joined
from npulab.lint import op_axes, op_docs, op_dtypes
from npulab.lint.signatures import SourceTree

# a rank stated in words: "shape支持2维", "shape为1D", "要求为3维", "维度为3维", "输入shape支持2-8维"
_SAID = re.compile(r"(?:(?:shape|维度|维数|输入|要求|支持|可为|是|为)\s*(?:一个)?|一个)\s*(?<![第前后\d])(\d)\s*"
                   r"(?:[-~至到]\s*(\d)\s*)?(?:维|D)(?![A-Za-z\d])")
# a shape written as its axes: "shape为（T, Nk, Dk）", "shape为[B, S, H]", "shape为 (numTokens)或(3, numTokens)"
_AXES = r"[（(\[]\s*([\w*+/ ]+(?:\s*[,，]\s*[\w*+/ ]+)*(?:\s*[,，])?)\s*[）)\]]"
_SHAPE = re.compile(rf"shape\s*(?:为|是|支持)\s*{_AXES}((?:\s*(?:或者?|、)\s*{_AXES})*)")
_MORE_AXES = re.compile(_AXES)
# further ranks in the same sentence: "、2D (N,D)或3D", "或者4维", "和4维"
_MORE = re.compile(r"(?:或者?|、|和|/)\s*(\d)\s*(?:维|D)(?![A-Za-z\d])")
# "int32 3D张量", "2D浮点张量": a rank named with the tensor
_NAMED = re.compile(r"(?<![\w\d])(\d)\s*(?:维|D)(?:的)?\s*(?:\w{0,4})(?:张量|Tensor)")
_MOST = re.compile(r"(?:最大|最多|至多)(?:支持)?\s*(\d)\s*维")
_EXAMPLE = re.compile(r"^\W*(?:调用示例|示例|Example)", re.MULTILINE)
# a sentence that leaves the rank open or ties it to another tensor says no closed set
_NOT_RANK = re.compile(r"维度(?:需要|要|应)?(?:和|与)|与\w+(?:的)?维度(?:一致|相同)|第\s*\d\s*维|倒数|多维|以上|任意")
_MODE = re.compile(r"模式\s*[:：]|mode\s*[:：]", re.IGNORECASE)
_RANKS: dict = {}  # (id(tree), operator) -> {parameter: (frozenset of ranks, sentence)}


def _rank_of_axes(axes: str) -> int:
    """The rank a written shape gives: one per comma-separated axis ("B, S, H"), or one per letter of a layout written
    without separators ("[BHMND]", "(BSND)": single capital letters, the layout names of the operator pages)."""
    names = [a.strip() for a in re.split(r"[,，]", axes) if a.strip()]
    return len(names[0]) if len(names) == 1 and re.fullmatch(r"[A-Z]{2,}", names[0]) else len(names)


def ranks_of_text(text: str, operator: str) -> dict[str, tuple[frozenset[int], str]]:
    """parameter -> (the ranks its paragraph allows, the first sentence that says so), for tensor parameters."""
    out = {}
    for parameter, paragraph in op_docs.tensor_paragraphs(text, operator).items():
        ranks: set[int] = set()
        said, conditional = "", False
        for sentence in op_docs._sentences(paragraph):
            found = [*_MOST.finditer(sentence), *_SAID.finditer(sentence), *_SHAPE.finditer(sentence),
                     *_NAMED.finditer(sentence)]
            if not found or _NOT_RANK.search(sentence):
                continue
            if not all(op_docs._free(sentence, m.start()) for m in found) or _MODE.search(sentence):
                conditional = True  # a rank that holds in one mode or case: the paragraph's ranks are not closed
                break
            for m in found:  # every reading of the sentence counts (a text may give the axes and a rank that differ)
                if m.re is _SHAPE:
                    ranks |= {_rank_of_axes(axes) for axes in [m.group(1), *_MORE_AXES.findall(m.group(2))]}
                elif m.re is _MOST:
                    ranks |= set(range(1, int(m.group(1)) + 1))
                elif m.re is _NAMED:
                    ranks.add(int(m.group(1)))
                else:
                    ranks |= set(range(int(m.group(1)), int(m.group(2) or m.group(1)) + 1))
                    ranks |= {int(more.group(1)) for more in _MORE.finditer(sentence, m.end())}
            said = said or sentence
        if conditional:
            continue
        if ranks and 0 not in ranks:
            out[parameter] = (frozenset(ranks), said)
    return out


def _example(text: str) -> str:
    """The Python statements of the text's example section: ``>>>`` prompts and zero-width spaces dropped, and the
    printed output left out (a line is kept where it parses, alone or with the lines its brackets open)."""
    found = _EXAMPLE.search(text)
    if not found:
        return ""
    kept, pending = [], ""
    for line in text[found.end():].splitlines()[1:]:
        line = re.sub(r"^\s*(?:>>>|\.\.\.)\s?", "", line.replace("\u200b", "")).rstrip()
        candidate = f"{pending}\n{line}" if pending else line
        if not candidate.strip():
            continue
        try:
            ast.parse(candidate)
        except SyntaxError:
            opened = sum(candidate.count(c) for c in "([{") - sum(candidate.count(c) for c in ")]}")
            pending = candidate if opened > 0 and len(candidate) < 4000 else ""
            continue
        kept.append(candidate)
        pending = ""
    return "\n".join(kept)


def rules(tree: SourceTree, operator: str) -> tuple[dict, dict, dict, dict, dict]:
    """The rank rules, the named-axis rules (npulab.lint.op_axes) and the dtype rules (npulab.lint.op_dtypes) of
    ``torch_npu.<operator>``, and the integer parameters bounded by an axis (``op_axes.below_of_text``): the ranks, axes
    and bounds are dropped together where the operator's own example breaks one of them, the dtypes and the dtype ties
    (``op_dtypes.ties_of_text``) where it breaks one of those or names a dtype no dtype rule admits."""
    key = (id(tree), operator)
    if key not in _RANKS:
        text = op_docs.texts(tree).get(operator)
        found = (ranks_of_text(text, operator), op_axes.axes_of_text(text, operator), {},
                 op_axes.below_of_text(text, operator)) if text else ({}, {}, {}, {})
        if any(found) and _example_refused(text, operator, found):
            found = ({}, {}, {}, {})
        dtypes = op_dtypes.dtypes_of_text(text, operator) if text else {}
        ties = op_dtypes.ties_of_text(text, operator) if text else {}
        if (dtypes or ties) and (_example_refused(text, operator, ({}, {}, dtypes, {}, ties))
                                 or dtypes and op_dtypes.named_in_code(_example(text))
                                 - set().union(*(d for d, _ in dtypes.values()))):
            dtypes, ties = {}, {}
        _RANKS[key] = (found[0], found[1], dtypes, found[3], ties)
    return _RANKS[key]


def _example_refused(text: str, operator: str, found: tuple[dict, dict]) -> bool:
    """Whether the text's own example, run as a cell is, breaks one of ``found``."""
    from npulab.lint import meta_run

    source = _example(text)
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return False
    imported = {"torch": "torch", "torch_npu": "torch_npu"}

    def check(name, args, kwargs):
        return _broken(name, args, kwargs, found if name == operator else ({}, {}, {}), text, operator)

    return any(True for _ in meta_run.refusals_with_npu(tree, imported, check))


def _broken(name: str, args: tuple, kwargs: dict, found: tuple, text: str, operator: str) -> tuple | None:
    """("rank", parameter, rank, allowed, sentence) of the first tensor argument whose rank the rules refuse,
    ("axis", parameter, axis, size, kind, limit, sentence) of the first whose named axis they refuse, or ("dtype",
    parameter, dtype, allowed, sentence) of the first whose dtype they refuse, or ("below", parameter, value, tensor,
    axis, size, sentence) of an integer at or past the axis that bounds it, or ("tie", parameter, dtype, other, its
    dtype, sentence) of a tensor whose dtype differs from the one it is tied to; None if none. ``found``: (ranks,
    axes), (ranks, axes, dtypes), (ranks, axes, dtypes, bounds) or (ranks, axes, dtypes, bounds, ties)."""
    import torch

    params = [p for p in op_docs.prototype(text, operator)] if text else []
    bound = dict(zip(params, args, strict=False))
    bound.update(kwargs)
    ranks, axes, dtypes, below, ties = (*found, {}, {}, {})[:5]
    for parameter, (allowed, said) in ranks.items():
        value = bound.get(parameter)
        if isinstance(value, torch.Tensor) and value.dim() not in allowed:
            return "rank", parameter, value.dim(), sorted(allowed), said
    for parameter, axis_rules in axes.items():
        value = bound.get(parameter)
        if isinstance(value, torch.Tensor):
            refused = op_axes.broken(value, axis_rules)
            if refused is not None:
                return ("axis", parameter, *refused)
    for parameter, rule in dtypes.items():
        value = bound.get(parameter)
        if isinstance(value, torch.Tensor) and (refused := op_dtypes.broken(value, rule)) is not None:
            return ("dtype", parameter, *refused)
    refused = op_axes.below_broken(bound, below)
    if refused is not None:
        return ("below", *refused)
    refused = op_dtypes.tie_broken(bound, ties)
    return ("tie", *refused) if refused is not None else None


def refusal(tree: SourceTree):
    """A check for npulab.lint.meta_run: (operator, args, kwargs) -> the finding's sentence, or None."""
    def check(name, args, kwargs):
        text = op_docs.texts(tree).get(name)
        if not text:
            return None
        broken = _broken(name, args, kwargs, rules(tree, name), text, name)
        if broken is None:
            return None
        said = broken[-1]
        quoted = said.strip() if len(said.strip()) <= 90 else said.strip()[:88] + "…"
        chinese = language() == "zh"
        said = t("lint.opdoc.quote", "zh", text=quoted) if chinese else ""
        if broken[0] == "axis":
            _, parameter, axis, size, kind, limit, _ = broken
            shown = joined(str(v) for v in sorted(limit)) if kind == "set" else \
                f"[{limit[0]}, {limit[1]}]" if kind == "range" else str(limit)
            fields = {"operator": name, "parameter": parameter, "axis": axis, "size": size, "limit": shown,
                      "version": tree.version, "said": said}
            if kind == "set":
                return t("lint.op_axis.set", **fields)
            if kind == "range":
                return t("lint.op_axis.range", **fields)
            return t("lint.op_axis.multiple", **fields) if kind == "multiple" else t("lint.op_axis.at_most", **fields)
        if broken[0] == "tie":
            _, parameter, dtype, other, theirs, _ = broken
            return t("lint.op_dtype.tied", operator=name, parameter=parameter, dtype=f"torch.{dtype}", other=other,
                     theirs=f"torch.{theirs}", version=tree.version, said=said)
        if broken[0] == "below":
            _, parameter, value, tensor, axis, size, _ = broken
            return t("lint.op_axis.below", operator=name, parameter=parameter, value=value, tensor=tensor, axis=axis,
                     size=size, version=tree.version, said=said)
        if broken[0] == "dtype":
            _, parameter, dtype, allowed, _ = broken
            return t("lint.op_dtype.refused", operator=name, parameter=parameter, dtype=f"torch.{dtype}",
                     allowed=joined(f"torch.{d}" for d in allowed), version=tree.version, said=said)
        _, parameter, rank, allowed, _ = broken
        return t("lint.op_rank.refused", operator=name, parameter=parameter, rank=rank,
                 allowed=joined(str(r) for r in allowed), version=tree.version, said=said)
    return check
