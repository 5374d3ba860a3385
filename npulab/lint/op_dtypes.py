"""lint-npu, the data types torch_npu's operator documentation states for tensor arguments (lint round 15): a tensor
parameter's paragraph in the wheel's ``_op_plugin_docs.py`` that lists them (``数据类型支持float16、bfloat16、float32``,
``数据类型支持FLOAT16、BFLOAT16``, ``dtype支持FP32、FP16或BF16类型``, ``数据类型：float16、float32``, ``数据类型Float16``,
per product: ``Atlas A2 训练系列产品: 数据类型支持float16、float32、bfloat16.``; or names them with the tensor:
``shape为(num,N)的int32 3D张量``, ``float32/float16/int32/int8 ND张量``) gives the closed set of torch dtypes it takes,
the union over its sentences (a product line narrows, it widens nothing).

Names are read without case and with their abbreviations (FP16, FLOAT16, half → torch.float16; BF16 → bfloat16; FP32,
FLOAT → float32; DOUBLE → float64). A paragraph says nothing when any sentence of it that names a data type

- stands under a condition or a mode (``…场景下``, ``当…时``, ``若``, ``per-token模式``), or follows a line that opens
  one (``group_list输入类型为torch.Tensor时, 数据类型使用约束:``);
- names a type this module cannot map to exactly one torch dtype (``INT4`` packed in int32, ``HIFLOAT8``, ``FP8``), or
  leaves the list open (``等``);
- names a type outside a list it reads (``PyTorch 侧通常使用 int8、int32 或 bool 表示``): what it says is not known.

A sentence that ties the type to another tensor (``数据类型与x1一致``) names no type and closes nothing by itself; it is
read as a tie (:func:`ties_of_text`: the two tensors passed must have one dtype) where no sentence of its paragraph
stands under a condition or a mode or names a product.
npulab.lint.op_ranks checks these beside ranks and named axes; an operator's dtype rules are dropped whole when its own
example (``调用示例``) passes a tensor outside one of them, or names a dtype none of them admits (an example that builds
its tensors through numpy, ``np.random.uniform(…).astype(np.float16)``, is not run by the interpreter, but the dtype it
names says what the page's author passed).
"""

from __future__ import annotations

import re

from npulab.lint import op_doc_phrases as phrases
from npulab.lint import op_docs

# the names the operator pages write (lower case) -> the torch dtype (torch 2.13.0 ``torch.<name>``)
NAMES = {"float16": "float16", "fp16": "float16", "half": "float16", "float32": "float32", "fp32": "float32",
         "float": "float32", "bfloat16": "bfloat16", "bf16": "bfloat16", "float64": "float64", "fp64": "float64",
         "double": "float64", "int8": "int8", "uint8": "uint8", "int16": "int16", "int32": "int32", "int64": "int64",
         "bool": "bool", "complex64": "complex64", "complex128": "complex128", "float8_e4m3fn": "float8_e4m3fn",
         "float8_e5m2": "float8_e5m2"}
# a word that names a data type, known or not (``INT4``, ``HIFLOAT8``, ``FP8``, ``float8_e8m0``, ``complex32``)
_W = "[A-Za-z0-9_]"  # (``\w`` would take the Chinese after a name: ``int8数据``)
_WORD = (rf"(?:torch\.)?(?:q?u?int\d+{_W}*|float\d*(?:_{_W}+)?|fp\d+{_W}*|bf16|bfloat16|hif(?:loat)?\d*{_W}*"
         rf"|mxfp\d*{_W}*|double|half|bool|complex\d+)")
TYPE_WORD = re.compile(rf"(?<![A-Za-z0-9_]){_WORD}(?![A-Za-z0-9_])", re.IGNORECASE)
_ITEM = rf"`?{_WORD}`?(?:类型)?"
_JOIN = r"\s*(?:、|,|，|/|以及|和|或者|或|及)\s*"
_LIST = rf"({_ITEM}(?:{_JOIN}{_ITEM})*)(?![A-Za-z0-9_])"
# "数据类型支持…", "支持的数据类型为…", "dtype支持…", "数据类型：…", "数据类型仅支持…", "数据类型固定为…"
_LEAD = (r"(?:支持的?数据类型|数据类型|dtype)\s*(?:均|仅|只|需要?|要求|必须|可以|可)?\s*(?:一致且)?\s*"
         r"(?:支持|为|是|固定为|限定为)?\s*(?:的类型|类型)?\s*(?:[:：]|有)?\s*")
STATED = re.compile(_LEAD + _LIST, re.IGNORECASE)
# "int32 3D张量", "float32/float16/int32/int8 ND张量", "int8类型的Tensor": the types named with the tensor
NAMED = re.compile(rf"(?<![A-Za-z0-9_]){_LIST}\s*(?:的)?\s*(?:\d\s*D|ND)?\s*(?:的)?\s*(?:张量|Tensor)", re.IGNORECASE)
_OPEN = re.compile(r"^\s*等")
_MODE = re.compile(r"模式|mode", re.IGNORECASE)
# a line that opens what holds under a condition: "group_list输入类型为torch.Tensor时, 数据类型使用约束:"
_CONDITION_HEAD = re.compile(r"(?:(?<!此)时|当|若|如果|场景)[^。；;]*[:：]\s*$")


# a tie to another tensor: "数据类型需要与入参x1保持一致", "数据类型与x一致", "数据类型和shape与var相同", "dtype与query相同"
TIE = re.compile(r"(?:数据类型|dtype)(?:和shape|、数据格式|和格式)?\s*(?:均|也)?\s*(?:需要|需|须|必须|要求)?\s*(?:与|和|跟)\s*"
                 r"(?:入参|输入)?\s*`?([A-Za-z_][A-Za-z0-9_]*)`?\s*(?:的数据类型|的dtype)?\s*(?:保持)?\s*(?:一致|相同)")


def ties_of_text(text: str, operator: str) -> dict[str, tuple[str, str]]:
    """tensor parameter -> (the tensor parameter whose dtype it must have, the sentence): a tie stated in a paragraph
    where no sentence stands under a condition or a mode, nor names a product (one product's tie binds no other)."""
    tensors = op_docs.tensor_paragraphs(text, operator)
    out = {}
    for parameter, paragraph in tensors.items():
        sentences = op_docs._sentences(paragraph)
        if any(phrases.CONDITIONAL.search(s) or _MODE.search(s) or "产品" in s for s in sentences):
            continue
        ties = {(m.group(1), s) for s in sentences for m in TIE.finditer(s)}
        if len({other for other, _ in ties}) == 1:
            other, said = ties.pop()
            if other in tensors and other != parameter:
                out[parameter] = (other, said)
    return out


def tie_broken(bound: dict, ties: dict) -> tuple[str, str, str, str, str] | None:
    """(parameter, its dtype, the other tensor, its dtype, sentence) of the first tensor whose dtype differs from the
    one it is tied to."""
    import torch

    for parameter, (other, said) in ties.items():
        mine, theirs = bound.get(parameter), bound.get(other)
        if isinstance(mine, torch.Tensor) and isinstance(theirs, torch.Tensor) and mine.dtype != theirs.dtype:
            return parameter, str(mine.dtype).removeprefix("torch."), other, str(theirs.dtype).removeprefix("torch."), said
    return None


def _names(listed: str, named: bool = False) -> list[str | None]:
    """The torch dtype of each item of a list (None for a type this module cannot map). A bare ``float`` is float32
    in a list of data types (CANN's FLOAT), but any floating type in a tensor's description (``1D float张量``)."""
    out = []
    for word in TYPE_WORD.findall(listed):
        word = word.lower().removeprefix("torch.")
        out.append(None if named and word == "float" else NAMES.get(word))
    return out


def dtypes_of_paragraph(paragraph: str) -> tuple[frozenset[str], str] | None:
    """(the torch dtypes a tensor paragraph allows, the first sentence that says so); None where it says nothing."""
    lines = paragraph.splitlines()
    if any(_CONDITION_HEAD.search(line) for line in lines[1:]) or (lines and _CONDITION_HEAD.search(lines[0])):
        return None
    allowed: set[str] = set()
    said, said_names = "", 0  # the sentence that names the most of them (a product line may name fewer)
    for sentence in op_docs._sentences(paragraph):
        words = [m.span() for m in TYPE_WORD.finditer(sentence)]
        if not words:
            continue
        if phrases.CONDITIONAL.search(sentence) or _MODE.search(sentence):
            return None  # a type under a condition or a mode: the paragraph's set is not closed
        covered: list[tuple[int, int]] = []
        for m in [*STATED.finditer(sentence), *NAMED.finditer(sentence)]:
            names = _names(m.group(1), m.re is NAMED)
            if None in names or _OPEN.match(sentence[m.end():]):
                return None  # a type with no single torch dtype, or a list left open
            allowed |= set(names)
            covered.append(m.span(1))
            if len(set(names)) > said_names:
                said, said_names = sentence, len(set(names))
        if any(not any(a <= start and end <= b for a, b in covered) for start, end in words):
            return None  # a type named outside a list: what the sentence says of it is not known
    return (frozenset(allowed), said) if allowed else None


def dtypes_of_text(text: str, operator: str) -> dict[str, tuple[frozenset[str], str]]:
    """parameter -> (the torch dtypes its paragraph allows, the sentence), for tensor parameters that state them; a
    constraints-section sentence (:func:`constrained`) narrows a paragraph's set it lies inside, or closes one no
    paragraph states."""
    typed, constraints = op_docs.typed_paragraphs(text, operator)
    tensors = {p: paragraph for p, (kind, paragraph) in typed.items() if kind == "tensor"}
    out = {}
    for parameter, paragraph in tensors.items():
        found = dtypes_of_paragraph(paragraph)
        if found is not None:
            out[parameter] = found
    for parameter, (allowed, said) in constrained(constraints, list(tensors)).items():
        if parameter not in out or allowed < out[parameter][0]:
            out[parameter] = (allowed, said)
    return out


# the tensors a constraints sentence opens with: "query、key、value 数据类型…", "pdf的shape为[1, 256]，数据类型为INT32"
_SUBJECT = re.compile(r"^\s*(?:参数|入参)?\s*`?([A-Za-z_][A-Za-z0-9_]*)`?((?:\s*(?:、|,|，|/|和|及)\s*`?[A-Za-z_][A-Za-z0-9_]*`?)*)"
                      r"\s*(?:的)?\s*(?=数据类型|dtype|shape)")


def _unheaded(section: str) -> list[str]:
    """The sentences of the lines no heading line (one ending with a colon, ``…需要同时满足以下条件：``) holds beneath it
    (indented deeper)."""
    headings: list[int] = []
    out = []
    for line in section.splitlines():
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        while headings and headings[-1] >= indent:
            headings.pop()
        if not headings:
            out.extend(op_docs._sentences(line))
        if re.search(r"[:：]\s*$", line):
            headings.append(indent)
    return out


def constrained(constraints: str, tensors: list[str]) -> dict[str, tuple[frozenset[str], str]]:
    """tensor parameter -> (the torch dtypes, the sentence) a constraints-section sentence that opens with the
    parameter (alone or in a list of tensor parameters) states, read as a parameter's paragraph is (no condition, mode
    or product, no heading above it; every type named in a list). Left out where another sentence of the section names the parameter with
    a type outside that set, or with one this module cannot map (it widens or qualifies the set)."""
    sentences = op_docs._sentences(constraints)
    out: dict[str, tuple[frozenset[str], str]] = {}
    for sentence in _unheaded(constraints):
        subject = _SUBJECT.match(sentence)
        if not subject or "产品" in sentence:
            continue
        names = [subject.group(1), *re.findall(r"[A-Za-z_][A-Za-z0-9_]*", subject.group(2))]
        if not all(n in tensors for n in names):
            continue
        found = dtypes_of_paragraph(sentence)
        if found is None:
            continue
        for name in names:
            allowed = out[name][0] | found[0] if name in out else found[0]
            out[name] = (allowed, out[name][1] if name in out else found[1])
    for name, (allowed, _said) in list(out.items()):
        mention = re.compile(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])")
        for sentence in sentences:
            if mention.search(sentence) and any(NAMES.get(w.lower().removeprefix("torch.")) not in allowed
                                                for w in TYPE_WORD.findall(sentence)):
                del out[name]
                break
    return out


# the dtypes code names: ``torch.float16``, ``np.float16``, ``dtype=torch.long``, ``.half()``, ``.astype(np.int32)``
_CODE_DTYPE = re.compile(r"(?<![A-Za-z0-9_])(?:torch|np|numpy)\.([a-z][a-z0-9_]*)(?![A-Za-z0-9_(])"
                         r"|\.(half|float|double|bfloat16|int|long|short|bool|char|byte)\(\)")
_CODE_NAMES = {"long": "int64", "int": "int32", "short": "int16", "char": "int8", "byte": "uint8", "float": "float32",
               "half": "float16", "double": "float64"}


def named_in_code(source: str) -> set[str]:
    """The torch dtypes a piece of code names (``np.float16`` as torch.float16; ``np.float`` is left out: numpy's is
    float64, torch's float32)."""
    out = set()
    for m in _CODE_DTYPE.finditer(source):
        if m.group(1) is not None:
            word = m.group(1)
            if word in ("float", "int") and not source[m.start():].startswith("torch"):
                continue
            name = _CODE_NAMES.get(word, word)
        else:
            name = _CODE_NAMES.get(m.group(2), m.group(2))
        if name in NAMES.values():
            out.add(name)
    return out


def broken(value, rule: tuple[frozenset[str], str]) -> tuple[str, list[str], str] | None:
    """(the tensor's dtype, the dtypes allowed, the sentence) when the tensor ``value`` has a dtype outside the rule."""
    allowed, said = rule
    dtype = str(value.dtype).removeprefix("torch.")
    return (dtype, sorted(allowed), said) if dtype not in allowed else None
