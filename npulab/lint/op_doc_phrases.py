"""lint-npu, the phrases of torch_npu's operator documentation (the wheel's ``_op_plugin_docs.py``) that state a
machine-checkable limit of one parameter, as regular expressions. npulab.lint.op_docs splits each operator's text
into one paragraph per parameter and reads these phrases in it; a phrase is used only when it says one thing:

- an enumeration: ``支持范围["mean", "sum", "none"]``, torch's ``'none'`` | ``'mean'`` | ``'sum'``, ``只支持“none”和“tanh”``, ``仅支持fastgelu、gelu``, ``可取值0或1``,
  ``支持的枚举值为0和1``, ``0为IoU模式，1为IoF模式``,
  ``0表示IoU，1表示IoF`` (the meanings may run over the paragraph's sentences), ``当前仅支持取值128``, ``目前仅支持为False``;
- a range: ``取值范围[0.0, 1.0)``, ``数据范围为(0, 1]``, ``取值大于等于0``;
- a multiple: ``必须是32的倍数``;
- a relation: ``要求`1 <= k_group <= group_count```, ``compress_block_size>=compress_stride`` (round 13, between
  scalar parameters), ``不支持p和k同时传None``, ``quant_offset不能独立于quant_scale存在``,
  and in the constraints ``仅支持输入的最后一个维度(dim=-1)``;
- the dtypes a dtype parameter takes: ``支持取值torch.int8、torch.quint4x2``, ``数据类型支持float16、bfloat16``.
"""

from __future__ import annotations

import re

# where a doc's parts begin: its parameters, and what follows them
PARAMETERS = re.compile(r"^\W*参数说明|^\s*(?:Args|Arguments|Keyword args|Keyword arguments|Parameters)\s*:\s*$")
CONSTRAINTS = re.compile(r"^\W*约束说明")
OTHER_SECTION = re.compile(r"^\W*(输出说明|返回值说明|返回值|支持的PyTorch版本|支持的型号|支持的芯片型号|支持版本|调用示例|调用|示例"
                           r"|产品支持情况|功能描述|接口原型|函数原型"
                           # torch's docstrings (reStructuredText, Google style)
                           r"|Returns?|Shape|Examples?|Note|Warning|Attributes|Raises|See also|Variables|Inputs|Outputs)\W*$")


_TYPE_WORD = r"(?:Tensor|int|float|bool|str|double)"  # a C-style declaration before the name: ``int dim：…``


def parameter_head(name: str) -> re.Pattern:
    """A line that starts the paragraph of ``name``: ``name: …``, ``name (int): …``, ``-   **name**（`int`）：…``,
    (round 15) ``“x”：…``, ``Tensor self：…`` and ``int dim：…``."""
    return re.compile(rf"^\W*(?:{_TYPE_WORD}\??\s+)?(?:\*\*)?{re.escape(name)}(?:\*\*)?[”\"’]?\s*(?:[:：(（]|\s-\s)")


# (round 15) the head of a paragraph whatever parameter it names: a text whose prototype calls its first tensor
# ``self`` documents it under its own name (``npu_swiglu(Tensor self, …)``: ``“x”：Tensor类型，…``)
ANY_HEAD = re.compile(r"^\W*(?:\*\*)?([A-Za-z_][A-Za-z0-9_]*)(?:\*\*)?[”\"’]?\s*(?:[:：(（]|\s-\s)")


# the type a paragraph's head gives its parameter
STRING_TYPE = re.compile(r"^[^:：]*?(?:\(str\)|（`?str`?）|(?<![A-Za-z])str类型|String类型|\(String\)|\(str,)", re.IGNORECASE)
INT_TYPE = re.compile(r"^[^。.]*?(?:\(int\)|（`?int`?）|(?<![A-Za-z])int类型|\(Int\b|(?<![A-Za-z])int64类型)", re.IGNORECASE)
FLOAT_TYPE = re.compile(r"^[^。.]*?(?:\(float\)|（`?float`?）|(?<![A-Za-z])float类型|\(Float\b|(?<![A-Za-z])double类型)", re.IGNORECASE)
BOOL_TYPE = re.compile(r"^[^。.]*?(?:\(bool\b|（`?bool`?）|(?<![A-Za-z])bool类型|布尔类型|\(Bool\b)", re.IGNORECASE)
TENSOR_TYPE = re.compile(r"^[^。.]*?Tensor", re.IGNORECASE)

# a clause stated under a condition (``div_mode为False时, …``, ``若…``): its limits are not the parameter's own
# (round 24: ``当前`` is "at present", no condition: ``当前版本仅支持'sum'`` is the parameter's whole value set)
CONDITIONAL = re.compile(r"(?<!此)时|当(?!前)|若|如果|场景|(?<![A-Za-z])(?:when|if)(?![A-Za-z])", re.IGNORECASE)
# (round 24) a sentence that names a product (``Atlas 推理系列产品: 当前只支持传入0``) limits that product only
PRODUCT = re.compile(r"产品|Atlas")
CLAUSE_END = re.compile(r"[，,]")
SENTENCE_END = re.compile(r"[。；;]|\.\s|\n")

_QUOTE = "\"“”'‘’`"
_Q = rf"[{_QUOTE}]([A-Za-z_][\w\-]*)[{_QUOTE}]"
_JOIN = r"\s*(?:、|,|，|和|或者|或|及|/)\s*"
# quoted words after "supports", "only", "takes": the values a string parameter takes
# (round 24: each word may carry its gloss in brackets, ``支持"gelu_tanh"(GELU的tanh近似版本)和"gelu_erf"(…)``)
_GLOSS = rf"(?:\s*[(（][^()（）{_QUOTE}]*[)）])?"
STRING_VALUES = re.compile(rf"(?:支持范围|只支持|仅支持|支持|取值为|可取值|可选值|可选|取值|supports?|only)\s*[:：为是]?\s*\[?\s*"
                           rf"({_Q}{_GLOSS}(?:{_JOIN}{_Q}{_GLOSS})*)")
QUOTED = re.compile(_Q)
# torch's docstrings list a string parameter's values as choices: ``'none'`` | ``'mean'`` | ``'sum'``
PIPE_CHOICES = re.compile(r"``'[\w\-]+'``(?:\s*\|\s*``'[\w\-]+'``)+")
ONLY_WORD = re.compile(r"(?:仅|只)支持取值\s*([A-Za-z_]\w*)(?=\s*(?:[。，,;；.]|$))")
# an unquoted list after "only supports": ``当前仅支持fastgelu、gelu、relu.``
# (round 24: also "at present supports", ``当前支持BSND、TND，默认值"BSND"``, the list closed by the default's clause)
WORD_LIST = re.compile(r"(?:(?:当前|目前)(?:仅|只)?|(?:仅|只))支持\s*([A-Za-z_]\w*(?:、[A-Za-z_]\w*)+)"
                       r"(?=\s*(?:[。;；.]|$|[，,]\s*默认))")

_INT = r"-?\d+"
# (round 24: a full stop that ends the text closes a number too: ``当前版本仅支持输入0.``; ``0.5`` does not)
_AFTER = r"(?=\s*(?:`|[。，,;；.)）]|$|，|表示|\s))(?!\d|\.(?!\s*$)|\s*(?:维|个|位|D|字节|倍|的))"
# (round 12: also the modes counted out, ``一共4种模式: 0、1、2、3``)
# (round 24: also ``取值范围为0``, a range of one value)
INT_VALUES = re.compile(rf"(?:可取值|取值为|取值范围为|取值只能为|只能为|只能是|枚举值为|种模式\s*[:：])\s*`?({_INT}(?:`?{_JOIN}`?{_INT})*)`?{_AFTER}")
_ONLY = r"(?:当前|目前)?(?:仅|只)支持(?:取值|传入|输入|设置为|为)?"  # (round 24: also ``仅支持输入0``)
INT_ONLY = re.compile(rf"{_ONLY}\s*`?({_INT})`?{_AFTER}")
# (round 24) a list after "only supports": ``当前仅支持取值0、1、2、3、4、9``
INT_ONLY_LIST = re.compile(rf"{_ONLY}\s*`?({_INT}(?:`?{_JOIN}`?{_INT})+)`?{_AFTER}")
INTS = re.compile(_INT)
# each value described in turn: ``0为IoU模式，1为IoF模式`` (two at least, one clause each)
INT_DESCRIBED = re.compile(rf"(?<![\w.])({_INT}\s*为[^，,。；;\d][^，,。；;]*(?:[，,]\s*{_INT}\s*为[^，,。；;\d][^，,。；;]*)+)")
DESCRIBED_INT = re.compile(rf"(?:^|[，,]\s*)({_INT})\s*为")
# each value's meaning in turn, across a paragraph's sentences: ``0表示IoU，1表示IoF``,
# ``默认值为`0`，`0`表示组内取最大值…；`1`表示取组内Top2…`` (two values at least, and no other value admitted)
# (round 12: also ``值为0表示…，值为1表示…`` and ``0代表高精度, 1代表高性能``)
INT_MEANING = re.compile(rf"(?:^|[，,：:]\s*)(?:值为\s*)?`?({_INT})`?\s*(?:表示|代表)")
OTHER_VALUES = re.compile(r"非\s*`?0|其他|其它|以上|以下|大于|小于|范围|之间|~|或更|others?|otherwise", re.IGNORECASE)
BOOL_ONLY = re.compile(rf"{_ONLY}\s*`?(True|False)`?")

_NUMBER = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?"
_INF = r"[-+]?(?:∞|inf|\\infty)"
RANGE = re.compile(rf"(?:取值范围|数据范围|值域|范围|in (?:the )?range(?: of)?|\\in"
                   rf"|(?:float|int|integer|number|value)s?\s+in)\s*(?:为|是)?\s*[:：]?\s*"
                   rf"([\[(（［])\s*({_NUMBER}|{_INF})\s*[,，]\s*"
                   rf"({_NUMBER}|{_INF})\s*([\])）］])")
BOUND = re.compile(rf"(?:取值|值|须|需|必须|要求|应)\s*(大于等于|大于|小于等于|小于|不小于|不大于)\s*`?({_NUMBER})`?(?![\d.]|\s*的)")
BOUND_TEST = {"大于等于": ">=", "不小于": ">=", "大于": ">", "小于等于": "<=", "不大于": "<=", "小于": "<"}
# the same in torch's English docstrings: ``The value must be positive`` (HuberLoss), ``must be greater than 0``
BOUND_EN = re.compile(rf"(?:must|should|has to|needs to) be\s+(?:a\s+|strictly\s+)?(positive|non-negative|nonnegative"
                      rf"|greater than or equal to|greater than|at least|less than or equal to|less than|at most)"
                      rf"(?:\s+`*({_NUMBER})`*)?(?![\w.])", re.IGNORECASE)
BOUND_EN_TEST = {"positive": (">", "0"), "non-negative": (">=", "0"), "nonnegative": (">=", "0"),
                 "greater than or equal to": (">=", None), "greater than": (">", None), "at least": (">=", None),
                 "less than or equal to": ("<=", None), "less than": ("<", None), "at most": ("<=", None)}


def bound(m: re.Match) -> tuple[str, str] | None:
    """(comparison, number) a BOUND or BOUND_EN match requires; None when it names no number."""
    if m.re is BOUND:
        return BOUND_TEST[m.group(1)], m.group(2)
    test, number = BOUND_EN_TEST[m.group(1).lower()]
    number = number or m.group(2)
    return (test, number) if number is not None else None
# a range or bound that is not one number's: of a list's items or a shape, or one the operator clamps to
NOT_ONE_NUMBER = re.compile(r"数组|列表|元素|shape|维度|自动|截断|list", re.IGNORECASE)
MULTIPLE = re.compile(r"(?:必须|须|需|需要|要求)(?:是|为)\s*`?(\d+)`?\s*的(?:整数)?倍数")

# relations between parameters
EXPRESSION = re.compile(r"(?:要求|须满足|需满足|需要满足|必须满足)\s*`([^`]+(?:<=|>=|<|>|==|!=)[^`]+)`")
_NAME = r"([A-Za-z_][A-Za-z0-9_]*)"  # a parameter's name (\w would take the Chinese around it too)
NOT_BOTH_NONE = re.compile(rf"不支持\s*`?{_NAME}`?\s*和\s*`?{_NAME}`?\s*同时(?:传|为|设置为)\s*None")
# (round 13) a comparison written bare in a sentence, between two parameters or a parameter and a number:
# ``且compress_block_size>=compress_stride``, ``目前仅支持head_num<=128`` (not in code, a formula or a call)
# (an operand beside arithmetic, ``a - b < 0``, is part of a formula; a sentence with no word that requires, or one
# that describes what is refused, ``满足拦截条件``, states no requirement)
COMPARISON = re.compile(rf"(?<![A-Za-z0-9_.`$\\])(?<![-+*/∗−]\s)(?<![-+*/∗−]){_NAME}\s*(<=|>=|≤|≥|<|>)\s*"
                        rf"(?:{_NAME}|({_INT}))(?![A-Za-z0-9_.(`$\[])(?!\s*[-+*/∗−])")
REQUIRING = re.compile(r"须|需|要求|仅支持|只支持|满足|且|大小为|取值")
REFUSED_CASE = re.compile(r"拦截|报错|不支持")
NOT_WITHOUT = re.compile(rf"`?{_NAME}`?\s*不能独立于\s*`?{_NAME}`?\s*存在")
# in the constraints: "目前仅支持输入的最后一个维度(dim=-1)"
ONLY_ASSIGNMENT = re.compile(rf"(?:仅|只)支持[^。；;(（\n]*[(（]\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*({_INT})\s*[)）]")
# (round 15) and a list of them: "目前仅支持compress_block_size=32, compress_stride=16, select_block_size=64" (the whole
# sentence, nothing after the list)
ONLY_ASSIGNMENTS = re.compile(rf"(?:仅|只)支持\s*({_NAME}\s*=\s*{_INT}(?:\s*[,，、]\s*{_NAME}\s*=\s*{_INT})*)\s*[。.]?\s*$")
ASSIGNMENT = re.compile(rf"{_NAME}\s*=\s*({_INT})")
# (round 15) the one condition such a setting is read under: "当 group_index 非 None 时，仅支持动态量化（quant_mode=1）"
# (the clause before it, whole)
GIVEN = re.compile(rf"^\W*当\s*`?{_NAME}`?\s*(?:非|不为|不是)\s*None\s*时\s*$")

# dtypes: the names a dtype parameter's paragraph lists (``torch.int8``, ``float16``, ``BFLOAT16``)
DTYPE_PARAMETER = re.compile(r"(?:^|_)dtype$|^dst_type$")
DTYPE_NAMES = ("float16", "float32", "float64", "bfloat16", "float", "double", "half", "int8", "uint8", "int16",
               "int32", "int64", "int4", "qint8", "quint8", "qint32", "quint4x2", "bool", "complex64", "complex128",
               "float8_e4m3fn", "float8_e5m2", "float8_e8m0fnu", "hifloat8", "float4_e2m1", "float4_e1m2", "long", "int",
               "short", "uint16", "uint32", "uint64")
# a bare name that is also a Python type (``int``, ``float``) counts only as ``torch.int``: bare, it is the
# parameter's own type (``gmm_y_dtype（int）``)
_BARE = "|".join(sorted((n for n in DTYPE_NAMES if not n.isalpha()), key=len, reverse=True))
DTYPE = re.compile(r"(?<![A-Za-z0-9_.])(?:torch(?:_npu)?\.(" + "|".join(sorted(DTYPE_NAMES, key=len, reverse=True)) + r")|(" + _BARE
                   + r"))(?![A-Za-z0-9_])", re.IGNORECASE)
DTYPE_ALIASES = {"float": "float32", "half": "float16", "double": "float64", "long": "int64", "int": "int32",
                 "short": "int16"}
# a line that opens what holds under one value of a switch: ``div_mode为True时,``
SWITCH_CONDITION = re.compile(r"^\W*`?([A-Za-z_][A-Za-z0-9_]*)`?\s*为\s*`?(True|False)`?\s*时[,，:：]?")
# (round 15) also "输入值只能是torch.int8和torch.quint4x2"
DTYPE_STATEMENT = re.compile(r"支持|允许|取值|只能|supports?", re.IGNORECASE)
# (round 15) each value's meaning: "None或torch.int8表示INT8（默认）…；torch.quint4x2表示INT4，输出为torch.int32" (the
# names before 表示 only: what follows describes the output)
DTYPE_MEANING = re.compile(r"((?:torch\.[a-z0-9_]+|None)(?:`?\s*(?:或|、|/)\s*`?(?:torch\.[a-z0-9_]+|None))*)`?\s*表示")
