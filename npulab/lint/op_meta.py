"""lint-npu, torch_npu's own meta functions: the pinned wheel's ``torch_npu/op_plugin/meta/_meta_registrations.py``
registers, for most fused operators, a function that computes the output's shape and dtype on the meta device and
``torch._check``s the inputs on the way (ranks, sizes that must agree between inputs, head counts that divide, layouts,
dtypes). npulab.lint.meta_run hands each ``torch_npu.npu_x(...)`` call whose arguments it knows to :func:`refusal`,
which binds them to the function registered for ``npu_x`` (its own signature and defaults; a ``torch.int32`` given
where the schema has an ``int`` becomes the module's own enum value, as the dispatcher hands it over) and runs it on
meta tensors: a ``torch._check`` or a ``raise`` of the module that refuses is the finding. An operator whose own
documented example (``调用示例`` on its page) its meta function refuses is not judged: page and function disagree.

Safety: the module's source is read from the wheel, never imported: torch_npu is never imported and nothing is
registered with ``torch.library``. The module runs statement by statement with an ``__import__`` that hands out
stand-ins for ``torch_npu.*``, ``torch.library`` (``impl`` only collects the functions) and ``torch.fx.node``; a
stand-in's attribute (a device query such as ``get_soc_version``, torch_npu's own dtypes) raises :class:`_Absent`, and
a statement that fails leaves its names unbound — a function that reaches one is unknown, never a finding. So is any
failure that is not a check of the module itself (a binding the signature refuses, a torch kernel's error).
"""

from __future__ import annotations

import ast
import builtins
import inspect
import sys
import types
import warnings

from npulab.core.i18n import t
from npulab.lint.signatures import SourceTree

MODULE = "torch_npu.op_plugin.meta._meta_registrations"
FILE = "torch_npu/op_plugin/meta/_meta_registrations.py"
_STANDING_IN = ("torch_npu", "torch.library", "torch.fx.node")
_LOADED: dict = {}  # id(tree) -> (tree, {operator: function}, {line of a check or raise: its condition}, dtype codes)
_EXAMPLES: dict = {}  # (id(tree), operator) -> whether the operator's documented example fails its meta function


class _Absent(Exception):
    """A name the stand-ins do not give: what reaches it is unknown."""


_UNKNOWN = (_Absent, NameError, NotImplementedError)  # a raise that needs a device or torch_npu, or says "not here"


class _StandIn(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise _Absent(f"{self.__name__}.{name}")


def _stand_in(name: str, registry: dict) -> _StandIn:
    module = _StandIn(name)
    if name == "torch.library":
        module.Library = lambda *args, **kwargs: args[0]  # the namespace: "npu" or "aten"
        module.impl = lambda library, operator, *a, **k: (lambda function: registry.setdefault(
            operator, function) if library == "npu" and "." not in operator else function)
    elif name == "torch.fx.node":
        module.has_side_effect = lambda op: op
    elif name == "torch_npu.utils._error_code":  # the error code each message ends with: left out of the finding
        module.ErrCode = types.SimpleNamespace(**{c: c for c in ("PARAM", "VALUE", "TYPE", "NOT_SUPPORT", "INTERNAL")})
        module.ops_error = lambda *args, **kwargs: ""
    return module


def _checking_lines(tree: ast.Module) -> dict[int, str | None]:
    """line -> the condition checked there, for every line a ``torch._check*(…)`` statement spans (None for a
    ``raise``)."""
    lines: dict[int, str | None] = {}
    for node in ast.walk(tree):
        call = node.value if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) else None
        checks = call is not None and ast.unparse(call.func).startswith("torch._check") and call.args
        if checks or isinstance(node, ast.Raise):
            condition = ast.unparse(call.args[0]) if checks else None
            lines.update(dict.fromkeys(range(node.lineno, (node.end_lineno or node.lineno) + 1), condition))
    return lines


def _load(tree: SourceTree) -> tuple[dict, dict[int, str | None]]:
    """({operator: its meta function}, the checking lines) of the wheel's module, run with the stand-ins."""
    if id(tree) not in _LOADED:
        parsed = tree.tree(MODULE)
        registry: dict = {}
        stand_ins: dict = {}

        def importing(name, globals=None, locals=None, fromlist=(), level=0):
            if level == 0 and name.startswith(_STANDING_IN) and (fromlist or name.split(".")[0] == "torch_npu"):
                key = name if fromlist else "torch_npu"
                return stand_ins.setdefault(key, _stand_in(key, registry))
            return builtins.__import__(name, globals, locals, fromlist, level)

        namespace = {"__name__": MODULE, "__builtins__": {**vars(builtins), "__import__": importing,
                                                          "print": lambda *a, **k: None}}
        for statement in parsed.body if parsed is not None else []:
            try:
                code = compile(ast.Module(body=[statement], type_ignores=[]), FILE, "exec")
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    exec(code, namespace)  # noqa: S102 - the pinned wheel's module, with the stand-ins above
            except Exception:  # a statement that needs torch_npu or a device: its names stay unbound
                continue
        codes: dict = {}  # torch dtype -> the module's own enum value for it (the smallest: the native one)
        for code, dtype in sorted(namespace.get("TORCH_DTYPE_ENUM_VALUE_TO_SCALAR_TYPE_MAP", {}).items(), reverse=True):
            codes[dtype] = code
        _LOADED[id(tree)] = (tree, registry, _checking_lines(parsed) if parsed is not None else {}, codes)
    return _LOADED[id(tree)][1], _LOADED[id(tree)][2]


def _as_dispatched(tree: SourceTree, operator: str, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
    """The arguments as the dispatcher hands them to the meta function: a ``torch.int32`` given for a parameter the
    schema types ``int`` (``npu_dtype_cast``'s ``dtype``) becomes the dtype's enum value in the module's own map."""
    import torch

    schemas = tree.schemas.get(operator) or []
    if len(schemas) != 1:
        return args, kwargs
    codes, types_ = _LOADED[id(tree)][3], schemas[0].types

    def given(name, value):
        integer = types_.get(name, "").rstrip("?") == "int"
        return codes.get(value, value) if integer and isinstance(value, torch.dtype) else value

    positional = schemas[0].positional
    return (tuple(given(positional[i] if i < len(positional) else "", v) for i, v in enumerate(args)),
            {k: given(k, v) for k, v in kwargs.items()})


def _example_refused(tree: SourceTree, operator: str) -> bool:
    """Whether the operator's own documented example (``调用示例`` on its page, run as a cell is) fails its meta
    function: the function and the page disagree, and lint does not take sides (as npulab.lint.op_ranks drops a page's
    rules its example breaks)."""
    from npulab.lint import meta_run, op_docs, op_ranks

    key = (id(tree), operator)
    if key not in _EXAMPLES:
        _EXAMPLES[key] = False
        text = op_docs.texts(tree).get(operator)
        try:
            example = ast.parse(op_ranks._example(text)) if text else None
        except SyntaxError:
            example = None
        if example is not None:
            def check(name, args, kwargs):
                return "refused" if name == operator and refused(tree, name, args, kwargs) else None
            imported = {"torch": "torch", "torch_npu": "torch_npu"}
            _EXAMPLES[key] = any(True for _ in meta_run.refusals_with_npu(example, imported, check))
    return _EXAMPLES[key]


def _plain(value) -> bool:
    """Whether ``value`` is one the cell itself gave: a tensor, a number, a string, a dtype, None, or a list or tuple of
    them. A stand-in for a name of torch_npu (``torch_npu.float4_e2m1fn_x2``: npulab.lint.meta_run does not know its
    value) is not, and a call given one is not judged."""
    import torch

    if isinstance(value, (list, tuple)):
        return all(_plain(v) for v in value)
    return value is None or isinstance(value, (torch.Tensor, torch.dtype, bool, int, float, str))


def _on_meta(value):
    import torch

    if isinstance(value, torch.Tensor):
        return value if value.device.type == "meta" else torch.empty_like(value, device="meta")
    if isinstance(value, (list, tuple)):
        return type(value)(_on_meta(v) for v in value)
    return value


def _said(error: BaseException, lines: dict[int, str | None]) -> str | None:
    """The refusal's message when the innermost frame of the module that ``error`` passed through stood at a check or
    a raise (the condition's source where the check's own message failed to build, as ``"…" + int(n)`` or a name the
    message misspells does); None when it stood elsewhere or needed what the stand-ins do not give."""
    frame, innermost, trace = None, None, error.__traceback__
    while trace is not None:
        if trace.tb_frame.f_code.co_filename == FILE:
            frame = trace
        innermost, trace = trace, trace.tb_next
    if frame is None or frame.tb_lineno not in lines:
        return None
    condition = lines[frame.tb_lineno]
    if frame.tb_frame.f_code.co_name == "<lambda>" and condition:  # the check's condition was false
        return condition
    raised_here = innermost is frame and condition is None and not isinstance(error, _UNKNOWN)  # the module's raise
    if not (raised_here or condition and innermost.tb_frame.f_code.co_name == "_check_with"):  # torch._check refused
        return None
    said = str(error).strip().splitlines()
    return said[0].strip() if said else type(error).__name__


def _by_schema_names(tree: SourceTree, operator: str, signature: inspect.Signature) -> dict[str, str]:
    """The schema's name -> the meta function's name, for the positional parameters where they differ (the dispatcher
    hands those over by position: ``self`` in the schema may be ``x`` in the function)."""
    schemas = tree.schemas.get(operator) or []
    own = [p.name for p in signature.parameters.values() if p.kind is p.POSITIONAL_OR_KEYWORD]
    if len(schemas) != 1:
        return {}
    return {theirs: ours for theirs, ours in zip(schemas[0].positional, own, strict=False) if theirs != ours}


def refused(tree: SourceTree, operator: str, args: tuple, kwargs: dict) -> tuple[str, str] | None:
    """(the meta function's name, its message) when the function registered for ``operator`` refuses the call."""
    registry, lines = _load(tree)
    function = registry.get(operator)
    if function is None or not _plain(tuple(args)) or not _plain(tuple(kwargs.values())):
        return None
    signature = inspect.signature(function)
    named = _by_schema_names(tree, operator, signature)
    args, kwargs = _as_dispatched(tree, operator, args, kwargs)
    try:
        bound = signature.bind(*_on_meta(tuple(args)), **{named.get(k, k): _on_meta(v) for k, v in kwargs.items()})
    except TypeError:  # not this signature: npulab.lint.signatures speaks of the call's form
        return None
    bound.apply_defaults()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            function(*bound.args, **bound.kwargs)
    except Exception as error:
        said = _said(error, lines)
        return (function.__name__, said) if said is not None else None
    return None


def refusal(tree: SourceTree):
    """A check for npulab.lint.meta_run: (operator, args, kwargs) -> the finding's sentence, or None."""
    if "torch" in sys.modules:  # once, before a cell's time budget starts (never the import of torch for it)
        _load(tree)

    def check(name, args, kwargs):
        found = refused(tree, name, args, kwargs)
        if found is None or _example_refused(tree, name):
            return None
        function, message = found
        return t("lint.op_meta.refused", operator=name, version=tree.version, message=message, file=FILE,
                 function=function)
    return check
