"""lint-npu, torch's own checks: a small interpreter runs the straight-line torch code of an ``npu`` cell on PyTorch's
``meta`` device (tensors with a shape, a dtype and no storage), so torch's own shape, dtype and type checks judge the
arguments a cell passes — ``x.view(3, 5)`` on 16 elements, ``F.one_hot`` on a float tensor, ``torch.zeros`` with a
float size — without data, memory or a device.

Safety: only a whitelist is evaluated — literals, names the interpreter bound, the modules ``torch``, ``torch.nn``,
``torch.nn.functional``, ``torch.nn.init``, ``torch.linalg``, ``torch.fft``, ``torch.special`` (minus I/O, global
state, random seeds, compilers and devices: ``_DENIED``), ``torch.nn`` module classes (built under
``with torch.device("meta")``), tensors and modules the interpreter built, their methods (minus ``_DENIED_METHODS``),
arithmetic and indexing on them, and a few pure builtins on small values. ``.npu()``, ``.cuda()``, ``.to("npu…")`` and
``device=…`` become the meta device. Anything else — user functions, other libraries, torch_npu, loops, branches,
``def``, ``with`` other than ``torch.no_grad()`` — is never called: the statement's names become unknown, and so do the
names handed to a call that was not run (it might change them in place). Data-dependent results (``.item()``,
``.tolist()``, ``nonzero``, ``unique``, boolean masks, ``print``) are unknown, never an error. Autograd runs as torch
runs it (``loss.backward()``, ``torch.autograd.grad``; ``with torch.no_grad()`` is entered): a meta graph has no data.
torch's global setters (``set_*``, ``use_*``, ``manual_seed``) run in a forked child (``npulab.lint.in_child``), never
here; after a ``set_default_*`` the interpreter stops (the cell's later tensors are built with defaults it lacks).

A finding is an exception (RuntimeError, ValueError, TypeError, IndexError, AssertionError, ZeroDivisionError) that
torch raises for a
call whose inputs were all known; a message naming the meta device (a kernel without a meta implementation) is not
the user's error, nor is a NotImplementedError, except one that ``torch/nn/functional.py`` raises itself (``Got 3D
input, but bilinear mode needs 4D input``). A call that returns but makes torch warn is a finding too when the
warning names a keyword the cell passed or a string it passed, or says the function called is deprecated (``_own_warning``: GRU's
``dropout`` with one layer, ``size_average``, ``softmax`` without ``dim``). Each cell has a budget of statements and time; any failure of the
interpreter itself makes the value unknown, never a finding.
"""

from __future__ import annotations

import ast
import contextlib
import itertools
import linecache
import operator
import re
import time
import types
import warnings
from functools import cache

from npulab.core.i18n import t
from npulab.lint import one_rank_group

MAX_STATEMENTS = 200  # per cell, With bodies included
MAX_SECONDS = 1.5  # per cell, without a function's first meta call (it loads torch's Python kernels once)
MAX_ITEMS = 10_000  # the longest list, tuple or string the interpreter builds
MODULES = ("torch", "torch.nn", "torch.nn.functional", "torch.nn.init", "torch.linalg", "torch.fft", "torch.special",
           "torch.autograd", "torch.utils",  # only _ONLY's members
           "torch.utils.data",  # only its dataset, sampler and loader classes, built and never iterated (_data_class)
           "torch.distributions",  # its classes are called only by npulab.lint.cpu_values (they validate values)
           "torch.nn.utils", "torch.nn.utils.rnn", "torch.nn.utils.parametrizations",  # torch.utils stays denied
           # functional transforms of a function the cell passes (a torch function or a lambda, _Lambda): only _ONLY's
           "torch.func", "torch.autograd.functional", "torch.autograd.forward_ad", "torch.utils.checkpoint",
           # optimizers and learning-rate schedulers, built over the meta parameters and never stepped (_optim_class)
           "torch.optim", "torch.optim.lr_scheduler",
           # quantization observers and fake-quantize modules (torch modules), built on the meta device: only _ONLY's
           "torch.ao", "torch.ao.quantization", "torch.ao.quantization.observer", "torch.ao.quantization.fake_quantize")
# names of the whitelisted modules that do I/O, change global state, seed or draw from a generator, compile, or reach
# a device or another process (with the prefixes and the home modules below, and legacy *Tensor / *Storage classes)
_DENIED = frozenset({
    "save", "load", "compile", "manual_seed", "seed", "initial_seed", "from_file", "from_numpy", "from_dlpack",
    "frombuffer", "hub", "jit", "onnx", "cuda", "npu", "mps", "xpu", "mtia", "cpu", "distributed", "multiprocessing",
    "profiler", "backends", "utils", "autograd", "library", "ops", "classes", "export", "fx", "func", "vmap",
    "testing", "package", "cond", "while_loop", "Generator", "get_rng_state", "random", "storage", "parallel",
    "DataParallel", "Tensor", "Parameter", "UninitializedParameter", "UninitializedBuffer", "Buffer", "compiler",
    "quantization", "ao", "amp", "overrides", "sparse", "nested", "masked", "accelerator", "monitor",
    "futures", "signal", "modules", "attention", "quantized", "intrinsic", "qat",
    "get_default_dtype", "get_default_device", "inference_mode", "no_grad", "enable_grad", "autocast",
    "set_grad_enabled", "empty_cache", "synchronize", "device_count", "fork", "wait", "init_num_threads",
    "clear_autocast_cache", "merge_type_from_type_comment", "unify_type_list", "to_dlpack", "get_file_path",
    "prepare_multiprocessing_environment", "thread_safe_generator", "get_device_module", "classproperty",
})
# a whitelisted module of which only these members are handed out
_ONLY = {"torch.autograd": frozenset({"grad", "backward", "Variable", "functional", "forward_ad", "gradcheck",
                                      "gradgradcheck"}),
         "torch.utils": frozenset({"data", "checkpoint"}),
         "torch.func": frozenset({"grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian", "vmap"}),
         "torch.autograd.functional": frozenset({"vjp", "jvp", "vhp", "hvp", "jacobian", "hessian"}),
         "torch.autograd.forward_ad": frozenset({"make_dual", "unpack_dual", "dual_level"}),
         "torch.utils.checkpoint": frozenset({"checkpoint", "checkpoint_sequential"}),
         "torch.ao": frozenset({"quantization"})}
# torch.ao.quantization lets in its observer and fake-quantize modules and the classes they define, re-exported
_OBSERVER_HOMES = ("torch.ao.quantization.observer", "torch.ao.quantization.fake_quantize")
_DATA_HOMES = ("torch.utils.data.dataset", "torch.utils.data.sampler", "torch.utils.data.dataloader")
# torch's functions that set the process's global state: run in a forked child only (npulab.lint.in_child)
_SETTER_PREFIXES = ("set_", "use_")
_SETTERS = frozenset({"manual_seed"})
_DENIED_PREFIXES = ("_", "set_", "use_", "is_", "autocast_", "get_autocast", "import_ir", "parse_", "profiler_")
_DENIED_HOMES = ("torch._utils", "torch.random", "torch._ops", "torch.jit", "torch.hub", "torch.serialization",
                 # torch.nn.utils: gradients the interpreter never computes, a module run with other parameters,
                 # a module built without initialisation
                 "torch.nn.utils.clip_grad", "torch.nn.utils.stateless", "torch.nn.utils.init")
# tensor and module methods never called: data-dependent (their result is unknown) …
_DATA_METHODS = frozenset({"item", "tolist", "numpy", "nonzero", "argwhere", "unique", "unique_consecutive",
                           "masked_select", "bincount", "histc", "histogram", "any", "all", "equal", "allclose",
                           "__bool__", "__int__", "__float__", "__index__", "__len__", "__iter__", "__repr__",
                           "__str__", "__format__", "__array__", "data_ptr", "storage", "untyped_storage",
                           "element_size", "is_pinned", "eq_", "repeat_interleave", "masked_scatter"})
# … or with an effect beyond the object (shared memory, hooks, autograd, compilation, callables)
_DENIED_METHODS = frozenset({"share_memory_", "share_memory", "pin_memory", "register_hook",
                             "register_post_accumulate_grad_hook", "record_stream", "apply_", "map_", "map2_",
                             "apply", "compile", "tofile", "cuda_", "to_sparse", "to_dense", "to_mkldnn",
                             "storage_offset", "set_", "resize_", "resize_as_", "ipu", "xpu", "mps", "hpu"})
_DEVICE_METHODS = frozenset({"npu", "cuda", "cpu"})  # x.npu() / x.cuda() / x.cpu(): the same meta tensor
_CONTEXTS = ("no_grad", "inference_mode", "enable_grad")  # with torch.no_grad(): shapes and dtypes as without it
_DUAL_CONTEXT = "torch.autograd.forward_ad"  # with fwAD.dual_level(): forward-mode tangents, as the cell enters it
# module methods that only name and store a tensor or module on the module (other register_* take callables: hooks)
_NAMING_METHODS = frozenset({"register_buffer", "register_parameter", "register_module"})
_BUILTINS = {"len": len, "int": int, "float": float, "tuple": tuple, "list": list, "range": range, "min": min,
             "max": max, "abs": abs, "sum": sum, "round": round, "bool": bool}
_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
        ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow, ast.MatMult: operator.matmul,
        ast.BitAnd: operator.and_, ast.BitOr: operator.or_, ast.BitXor: operator.xor, ast.LShift: operator.lshift,
        ast.RShift: operator.rshift}
_UNARY = {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Invert: operator.invert}
_COMPARE = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
            ast.Gt: operator.gt, ast.GtE: operator.ge}
_ERRORS = (RuntimeError, ValueError, TypeError, IndexError, AssertionError, ZeroDivisionError)
_DEPRECATED = re.compile(r"\bdeprecated\b", re.IGNORECASE)
_NOT_THE_USER = re.compile(r"\b(meta|fake impl|no data|cuda|npu|gpu|device|pin[_ ]memory|not implemented|symbolic|"
                           r"symint|data-dependent|guard)", re.IGNORECASE)


_ACCELERATOR = re.compile(r"^(npu|cuda)(?=$|:)")  # a device type string the CPU build cannot parse
_NO_ACCELERATOR = re.compile(r"\bavailable\b|accelerator", re.IGNORECASE)  # torch.device(0) here: not the user's
_UNBOUND = object()  # a comprehension's name that the cell had not bound
_FUNCTIONS: set[int] = set()  # ids of the whitelisted modules' functions handed out


class _OnMeta:
    """``x.npu()``, ``x.cuda()``, ``x.cpu()``, ``x.to(device, dtype)`` of a tensor or module the interpreter built."""

    def __init__(self, base, move: bool):
        self.base, self.move = base, move

    def __call__(self, *args, **kwargs):
        if not self.move:
            return self.base
        torch = _torch()
        args = tuple(torch.device("meta") if isinstance(v, (str, torch.device)) else v for v in args)
        return self.base.to(*args, **{k: ("meta" if k == "device" else v) for k, v in kwargs.items()})


class _Lambda:
    """A cell's ``lambda`` handed to a torch transform (``vjp(lambda t: t.sum() * t, x, v)``): calling it evaluates its
    body with the interpreter, the parameters bound over the cell's names; what the interpreter cannot evaluate
    raises _Unknown inside torch's call, which leaves that call unknown."""

    def __init__(self, interpreter, node: ast.Lambda):
        self.interpreter, self.node = interpreter, node

    def __call__(self, *args):
        names = [a.arg for a in self.node.args.args]
        if len(args) != len(names):
            raise _Unknown("lambda arguments")
        saved = {n: self.interpreter.env.get(n, _UNBOUND) for n in names}
        self.interpreter.env.update(zip(names, args, strict=True))
        try:
            return self.interpreter.eval(self.node.body)
        finally:
            for n, value in saved.items():
                if value is _UNBOUND:
                    self.interpreter.env.pop(n, None)
                else:
                    self.interpreter.env[n] = value


class _Made:
    """A function a whitelisted torch transform returned (``torch.func.grad(f)``): called like torch's own."""

    def __init__(self, function):
        self.function = function

    def __call__(self, *args, **kwargs):
        return self.function(*args, **kwargs)


class _Setter:
    """A torch function that sets the process's global state: called only in a forked child (npulab.lint.in_child)."""

    def __init__(self, function, name: str):
        self.function, self.name = function, name


class _Said(Exception):
    """torch's refusal or warning heard outside the meta run itself (a forked child, a warning): its message, the
    name of the error and the message key ``findings`` words it with."""

    def __init__(self, message: str, error_name: str, message_key: str):
        super().__init__(message)
        self.error_name, self.message_key = error_name, message_key


class _Unknown(Exception):
    """The value of an expression cannot be known without running what the whitelist excludes."""


class _Refused(Exception):
    def __init__(self, written: str, error: BaseException):
        super().__init__(written)
        self.written, self.error = written, error


class _DocumentedLimit(Exception):
    """A torch_npu operator's documented limit a call breaks (the sentence, in the reader's language)."""


class _NpuModule:
    """``torch_npu`` in a cell: its operators are never run (no meta kernels); ``check(name, args, kwargs)`` says
    which documented limit a call with known arguments breaks (npulab.lint.op_ranks)."""

    def __init__(self, check):
        self.check = check


class _NpuOp:
    def __init__(self, module: _NpuModule, name: str):
        self.module, self.name = module, name


@cache
def _torch():
    import torch  # imported only when a cell has torch code to run

    return torch


def _module_name(value) -> str | None:
    return value.__name__ if isinstance(value, types.ModuleType) and value.__name__ in MODULES else None


def _module_class(value) -> bool:
    """A module class of torch.nn (``nn.Linear``) or a quantization observer (``MinMaxObserver``), not a user's
    subclass."""
    return isinstance(value, type) and issubclass(value, _torch().nn.Module) \
        and (value.__module__.startswith("torch.nn.modules") or value.__module__ in _OBSERVER_HOMES)


def _distribution_class(value) -> bool:
    """A class of torch.distributions (not a user's subclass)."""
    return isinstance(value, type) and issubclass(value, _torch().distributions.Distribution) \
        and value.__module__.startswith("torch.distributions")


def _data_class(value) -> bool:
    """A dataset, sampler or loader class of torch.utils.data, or a cell's subclass of one (cell_class): its
    constructor checks its arguments; the object built is handed on to others (``StackDataset(a, b)``) but no builtin,
    method or index reaches it (a loader starts its workers only when iterated, and nothing here iterates)."""
    return isinstance(value, type) and (value.__module__ in _DATA_HOMES or id(value) in _CELL_CLASSES)


def _optim_class(value) -> bool:
    """An optimizer or learning-rate scheduler class of torch.optim: its constructor checks its arguments against each
    other and the optimizer's parameter groups (``ReduceLROnPlateau``'s ``min_lr`` list, ``SequentialLR``'s
    milestones); the object built is handed on to a scheduler but never stepped (no method or attribute reaches it)."""
    if not isinstance(value, type) or not value.__module__.startswith("torch.optim"):
        return False
    optim = _torch().optim
    return issubclass(value, (optim.Optimizer, optim.lr_scheduler.LRScheduler, optim.lr_scheduler.ReduceLROnPlateau))


def _handed_on_class(value) -> bool:
    """A class whose objects the interpreter builds and hands on to other calls, but never uses itself."""
    return _data_class(value) or _optim_class(value)


_CELL_CLASSES: dict[int, type] = {}  # id -> a cell's subclass of a torch.utils.data class (kept alive: ids stay its)


def _not_run(name: str):
    """A method of a cell's class stands in for its body, which the interpreter does not run: calling it (from the
    cell, or from torch's constructor — ``len(dataset)`` in ``RandomSampler``) leaves the call unknown."""
    def method(*args, **kwargs):
        raise _Unknown(name)
    method.__name__ = name
    return method


def cell_class(node: ast.ClassDef, bases: list):
    """The class a cell's ``class`` statement defines over torch.utils.data classes (``class Stream(IterableDataset)``):
    a real subclass, so torch's checks see what it is (a DataLoader over an IterableDataset takes no sampler), with
    each method the cell wrote standing in for its body (_not_run). Only undecorated methods whose defaults are
    literals, a docstring and ``pass`` in the body (nothing that runs when the class is defined); no decorator or
    keyword on the class; else _Unknown."""
    def quiet(stmt) -> bool:
        if isinstance(stmt, ast.FunctionDef):
            defaults = [*stmt.args.defaults, *(d for d in stmt.args.kw_defaults if d is not None)]
            return not stmt.decorator_list and all(isinstance(d, ast.Constant) for d in defaults)
        return isinstance(stmt, ast.Pass) or isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)

    if node.decorator_list or node.keywords or not bases or not all(_data_class(b) for b in bases) \
            or not all(quiet(s) for s in node.body):
        raise _Unknown("class")
    methods = {s.name: _not_run(s.name) for s in node.body if isinstance(s, ast.FunctionDef)}
    made = type(node.name, tuple(bases), {"__module__": "__cell__", **methods})
    _CELL_CLASSES[id(made)] = made
    return made


def _member(module, name: str):
    """A whitelisted module's attribute, or _Unknown."""
    if isinstance(module, one_rank_group.Namespace):
        value = module.member(name)
        if value is None:
            raise _Unknown(name)
        return value
    home = getattr(module, "__name__", None)
    if home == "torch" and name == "distributed":  # its calls run only in a one-rank group in a forked child
        return one_rank_group.Namespace()
    if home in _ONLY and name not in _ONLY[home]:
        raise _Unknown(name)
    if home == "torch.ao.quantization" and f"{home}.{name}" not in _OBSERVER_HOMES \
            and getattr(getattr(module, name, None), "__module__", None) not in _OBSERVER_HOMES:
        raise _Unknown(name)
    if home == "torch" and (name.startswith(_SETTER_PREFIXES) or name in _SETTERS):
        value = getattr(module, name, None)
        if isinstance(value, types.FunctionType | types.BuiltinFunctionType) and name not in _DENIED - _SETTERS:
            return _Setter(value, name)
        raise _Unknown(name)
    if home == "torch.utils.data" and not _data_class(getattr(module, name, None)):
        raise _Unknown(name)
    opened = f"{home}.{name}" in MODULES  # a denied name of a module let in (torch.nn.utils, torch.autograd)
    if name.startswith(_DENIED_PREFIXES) or name in _DENIED and not opened or name.endswith(("Tensor", "Storage")):
        raise _Unknown(name)
    value = getattr(module, name, None)
    if value is None:
        raise _Unknown(name)
    if isinstance(value, types.ModuleType):
        if _module_name(value) is None:
            raise _Unknown(name)
        return value
    if isinstance(value, type):
        torch = _torch()
        if _module_class(value) or _distribution_class(value):
            return value
        if value in (torch.Size, torch.device, torch.finfo, torch.iinfo, torch.autograd.Variable) or _handed_on_class(value) \
                or home == _DUAL_CONTEXT:  # fwAD.dual_level, entered only by a with statement
            return value
        raise _Unknown(name)
    if callable(value):
        if (getattr(value, "__module__", None) or "").startswith(_DENIED_HOMES):
            raise _Unknown(name)  # JIT futures, file paths, generators, raw operator packets
        _FUNCTIONS.add(id(value))  # module attributes live as long as torch: their ids stay theirs
        return value
    if isinstance(value, (int, float, str, bool)) or type(value).__module__ == "torch":
        return value
    raise _Unknown(name)


def resolve(dotted: str):
    """The object a whitelisted dotted path names (``torch.nn.functional``), or _Unknown."""
    parts = dotted.split(".")
    if parts[0] != "torch":
        raise _Unknown(dotted)
    value = _torch()
    for part in parts[1:]:
        value = _member(value, part)
    return value


def _child_refused(written: str, heard: dict):
    """A forked child's refusal (npulab.lint.in_child) as a finding, unless it is not the user's error."""
    if _NOT_THE_USER.search(heard["message"]) or heard["error"] not in {e.__name__ for e in _ERRORS}:
        raise _Unknown("not the user")
    raise _Refused(written, _Said(heard["message"], heard["error"], "lint.child.refused"))


class _Interpreter:
    def __init__(self, env: dict):
        self.env = env
        self.tainted: set[str] = set()
        self.statements = 0
        self.halted = False  # a set_default_* took effect: the rest of the cell is not followed
        self.group: tuple | None = None  # the init arguments of the cell's one-rank process group, once started
        self.deadline = time.monotonic() + MAX_SECONDS

    # --- values ---------------------------------------------------------------------------------------

    def _torchy(self, value) -> bool:
        torch = _torch()
        return isinstance(value, (torch.Tensor, torch.nn.Module))

    def _plain(self, value) -> bool:
        """A Python value the interpreter may hand on (no user object)."""
        torch = _torch()
        if value is None or value is Ellipsis or isinstance(value, (bool, int, float, complex, str, slice, range,
                                                                      torch.dtype, torch.device, torch.Size,
                                                                      torch.memory_format, torch.layout, torch.qscheme)):
            return True
        if _handed_on_class(type(value)):  # a dataset, loader, optimizer … built here: handed on, never used
            return True
        if isinstance(value, (tuple, list)):
            return len(value) <= MAX_ITEMS and all(self._plain(v) or self._torchy(v) or self._function(v) for v in value)
        if isinstance(value, dict):
            return len(value) <= MAX_ITEMS and all(self._plain(k) and (self._plain(v) or self._torchy(v))
                                                   for k, v in value.items())
        return False

    def _checked(self, value):
        """A result the interpreter keeps: tensors on the meta device, modules, plain values; else _Unknown."""
        torch = _torch()
        if isinstance(value, torch.Tensor):
            if value.device.type != "meta":
                raise _Unknown("not meta")
            return value
        if isinstance(value, torch.nn.Module) or self._plain(value):
            return value
        if isinstance(value, (tuple, list)) and len(value) <= MAX_ITEMS:
            for item in value:
                self._checked(item)
            return value
        if isinstance(value, (torch.finfo, torch.iinfo, _Made)):
            return value
        if isinstance(value, types.GeneratorType):  # model.parameters(): a module's own members, finite
            items = list(itertools.islice(value, MAX_ITEMS + 1))
            if len(items) > MAX_ITEMS:
                raise _Unknown("size")
            return self._checked(items)
        if isinstance(value, types.FunctionType):  # only torch's whitelisted calls return here
            return _Made(value)  # torch.func.grad(f): a function a transform made, called as torch's own
        raise _Unknown("result")

    # --- expressions ----------------------------------------------------------------------------------

    def eval(self, node: ast.expr):
        if time.monotonic() > self.deadline:
            raise _Unknown("time")
        method = getattr(self, "_" + type(node).__name__, None)
        if method is None:
            self._taint(node)
            raise _Unknown(type(node).__name__)
        return method(node)

    def _Constant(self, node):
        return node.value

    def _Name(self, node):
        if node.id in self.env:
            return self.env[node.id]
        if node.id in _BUILTINS:
            return _BUILTINS[node.id]
        raise _Unknown(node.id)

    def _Tuple(self, node):
        return tuple(self._items(node.elts))

    def _List(self, node):
        return list(self._items(node.elts))

    def _items(self, elts):
        out = []
        for elt in elts:
            if isinstance(elt, ast.Starred):
                value = self.eval(elt.value)
                if not isinstance(value, (tuple, list, range)) and not isinstance(value, _torch().Size):
                    raise _Unknown("starred")
                out.extend(value)
            else:
                out.append(self.eval(elt))
            if len(out) > MAX_ITEMS:
                raise _Unknown("size")
        return out

    def _Lambda(self, node):
        spec = node.args
        if spec.posonlyargs or spec.vararg or spec.kwonlyargs or spec.kwarg or spec.defaults:
            raise _Unknown("lambda")
        return _Lambda(self, node)

    def _ListComp(self, node):
        """``[expr for name in iterable]`` over a known range, tuple or list: each element evaluated with the name bound
        in the comprehension's own scope (the cell's binding of the name, if any, comes back)."""
        if len(node.generators) != 1 or node.generators[0].ifs or node.generators[0].is_async \
                or not isinstance(node.generators[0].target, ast.Name):
            raise _Unknown("comprehension")
        name, items = node.generators[0].target.id, self.eval(node.generators[0].iter)
        if not isinstance(items, (range, tuple, list)) or len(items) > MAX_ITEMS:
            raise _Unknown("comprehension")
        saved = self.env.get(name, _UNBOUND)
        try:
            out = []
            for item in items:
                self.env[name] = item
                out.append(self.eval(node.elt))
            return out
        finally:
            if saved is _UNBOUND:
                self.env.pop(name, None)
            else:
                self.env[name] = saved

    def _Dict(self, node):
        if any(k is None for k in node.keys):
            raise _Unknown("**")
        return {self.eval(k): self.eval(v) for k, v in zip(node.keys, node.values, strict=True)}

    def _Slice(self, node):
        parts = [self.eval(p) if p is not None else None for p in (node.lower, node.upper, node.step)]
        return slice(*parts)

    def _Attribute(self, node):
        base = self.eval(node.value)
        name = node.attr
        if isinstance(base, _NpuModule) and not name.startswith("_"):
            return _NpuOp(base, name)
        if _module_name(base) or isinstance(base, one_rank_group.Namespace):
            return _member(base, name)
        torch = _torch()
        if name.startswith("_"):
            raise _Unknown(name)
        if isinstance(base, torch.Tensor):
            if name in _DATA_METHODS or name in _DENIED_METHODS or name in ("grad_fn", "data", "grad"):
                raise _Unknown(name)
            if name in _DEVICE_METHODS or name == "to":
                return _OnMeta(base, name == "to")
            return getattr(base, name)
        if isinstance(base, torch.nn.Module):
            if name in _DENIED_METHODS or name.startswith("register_") and name not in _NAMING_METHODS \
                    or name in ("load_state_dict", "state_dict"):
                raise _Unknown(name)
            if name in _DEVICE_METHODS or name == "to":
                return _OnMeta(base, name == "to")
            value = getattr(base, name)
            if isinstance(value, (torch.Tensor, torch.nn.Module)) or callable(value) or self._plain(value):
                return value
            raise _Unknown(name)
        if _module_class(base):  # nn.Embedding.from_pretrained: a class method of a torch.nn module class
            value = getattr(base, name)
            if getattr(value, "__self__", None) is base:
                return value
            raise _Unknown(name)
        if isinstance(base, (torch.Size, torch.dtype, tuple, list, dict, str, int, float, torch.finfo, torch.iinfo)):
            return getattr(base, name)
        raise _Unknown(name)

    @staticmethod
    def _meta(kwargs):
        return {k: ("meta" if k == "device" else v) for k, v in kwargs.items()}

    def _Subscript(self, node):
        base = self.eval(node.value)
        index = self.eval(node.slice)
        torch = _torch()
        if isinstance(base, torch.Tensor):
            parts = index if isinstance(index, tuple) else (index,)
            if any(isinstance(p, (torch.Tensor, list)) and (not isinstance(p, torch.Tensor) or p.dtype in
                                                             (torch.bool, torch.uint8)) for p in parts):
                raise _Unknown("mask")  # a boolean mask selects by value
            return self._run(ast.unparse(node), operator.getitem, (base, index), {})
        if isinstance(base, (tuple, list, dict, str, torch.Size, torch.nn.Module)):
            try:
                return base[index]
            except Exception as err:
                raise _Unknown("index") from err
        raise _Unknown("subscript")

    def _BinOp(self, node):
        left, right = self.eval(node.left), self.eval(node.right)
        op = _OPS.get(type(node.op))
        if op is None:
            raise _Unknown("op")
        if self._torchy(left) or self._torchy(right):
            return self._run(ast.unparse(node), op, (left, right), {})
        self._small(op, left, right)
        try:
            return self._checked(op(left, right))
        except Exception as err:
            raise _Unknown("python") from err

    @staticmethod
    def _small(op, left, right) -> None:
        """Refuse Python arithmetic whose result could be huge (``[0] * 10**9``, ``10 ** 10 ** 10``)."""
        numbers = all(isinstance(v, (int, float)) for v in (left, right))
        if op in (operator.pow, operator.lshift) and not (numbers and abs(right) <= 64 and abs(left) <= 2 ** 64):
            raise _Unknown("big")
        if op is operator.mul and not numbers:
            count = right if isinstance(right, int) else left if isinstance(left, int) else None
            sized = left if isinstance(right, int) else right
            if count is None or not hasattr(sized, "__len__") or count * len(sized) > MAX_ITEMS:
                raise _Unknown("big")

    def _UnaryOp(self, node):
        value = self.eval(node.operand)
        if isinstance(node.op, ast.Not):
            if self._torchy(value):
                raise _Unknown("bool")
            return not value
        op = _UNARY[type(node.op)]
        if self._torchy(value):
            return self._run(ast.unparse(node), op, (value,), {})
        try:
            return op(value)
        except Exception as err:
            raise _Unknown("python") from err

    def _Compare(self, node):
        if len(node.ops) != 1 or type(node.ops[0]) not in _COMPARE:
            raise _Unknown("compare")
        left, right = self.eval(node.left), self.eval(node.comparators[0])
        op = _COMPARE[type(node.ops[0])]
        if self._torchy(left) or self._torchy(right):
            return self._run(ast.unparse(node), op, (left, right), {})
        try:
            return bool(op(left, right))
        except Exception as err:
            raise _Unknown("python") from err

    def _Call(self, node):
        written = ast.unparse(node.func)
        if isinstance(node.func, ast.Name) and node.func.id == "print" and "print" not in self.env:
            for arg in node.args:  # the arguments are checked; printing is not run
                self._quiet(arg)
            raise _Unknown("print")
        try:
            function = self.eval(node.func)
            if isinstance(function, _OnMeta) and not function.move:
                return function.base  # x.npu(rank), model.cuda(device): whichever device, the same meta value
            args = self._items(node.args)
            kwargs = {}
            for keyword in node.keywords:
                if keyword.arg == "device":
                    kwargs["device"] = "meta"  # whichever device the cell names (a rank, an f-string)
                elif keyword.arg is None:
                    extra = self.eval(keyword.value)
                    if not isinstance(extra, dict) or not all(isinstance(k, str) for k in extra):
                        raise _Unknown("**")
                    kwargs.update(extra)
                else:
                    kwargs[keyword.arg] = self.eval(keyword.value)
        except _Unknown:
            if not (isinstance(node.func, ast.Attribute) and node.func.attr in _DATA_METHODS):
                self._taint(node)  # a call not run may change what it was given
            raise
        if isinstance(function, _Setter):
            return self._set(written, function, tuple(args), kwargs)
        if isinstance(function, one_rank_group.Collective):
            return self._collective(written, function, tuple(args), kwargs)
        if isinstance(function, one_rank_group.StoreClass):  # built only in the child (one_rank_group)
            return function.stand_in()
        if isinstance(function, _NpuOp):  # never run: its documented limits judge the arguments, the result is unknown
            self._taint(node)
            said = function.module.check(function.name, tuple(args), kwargs)
            if said:
                raise _Refused(written, _DocumentedLimit(said))
            raise _Unknown("torch_npu")
        if function in _BUILTINS.values():
            return self._builtin(function, args, kwargs)
        if self._is_device(function) and all(self._plain(v) for v in (*args, *kwargs.values())):
            self._device_parsed(written, tuple(args), kwargs)
            return _torch().device("meta")
        if not (self._torch_callable(function) and all(self._plain(v) or self._torchy(v) or self._function(v)
                                                        for v in (*args, *kwargs.values()))):
            self._taint(node)
            raise _Unknown("call")
        return self._run(written, function, tuple(args), self._meta(kwargs))

    def _set(self, written: str, setter: _Setter, args: tuple, kwargs: dict):
        """A global setter, run in a forked child on plain values: its refusal or warning is a finding; the result is
        unknown. After a ``set_default_*`` that took effect, the cell's later tensors are built with a default the
        interpreter does not have: it stops."""
        from npulab.lint import in_child

        if not all(self._plain(v) and not self._torchy(v) for v in (*args, *kwargs.values())):
            raise _Unknown("setter")
        heard = in_child.outcome(setter.function, args, kwargs)
        if heard is None:
            raise _Unknown("child")
        if "error" in heard:
            _child_refused(written, heard)
        said = _own_warning(heard["warnings"], setter.function, args, kwargs)
        if said:
            raise _Refused(written, _Said(said[1], said[0], "lint.child.warned"))
        if setter.name.startswith("set_default_"):
            self.halted = True
        raise _Unknown("setter")

    def _collective(self, written: str, collective, args: tuple, kwargs: dict):
        """A torch.distributed call, run in a forked child in the cell's one-rank group (npulab.lint.one_rank_group):
        its refusal is a finding, its result unknown; ``init_process_group`` that the child accepted starts the group."""
        if not all(self._plain(v) or self._torchy(v) or isinstance(v, one_rank_group.StoreStandIn)
                   for v in (*args, *kwargs.values())):
            raise _Unknown("collective")
        heard = one_rank_group.outcome(self.group, collective, args, kwargs)
        if heard is None:
            raise _Unknown("child")
        if "error" in heard:
            _child_refused(written, heard)
        if collective.name == one_rank_group.INIT:
            self.group = (args, kwargs)
        raise _Unknown("collective")

    @staticmethod
    def _device_parsed(written: str, args: tuple, kwargs: dict) -> None:
        """``torch.device``'s own parsing of the cell's type string and index (``torch.device("npu:0", 0)``: an index
        given twice), an accelerator's name read as ``cpu`` — the CPU build knows no ``npu`` — and written back in
        torch's message; the device the cell gets stays the meta device."""
        named = {v for v in (*args, *kwargs.values()) if isinstance(v, str) and _ACCELERATOR.match(v)}
        try:
            on_cpu = [_ACCELERATOR.sub("cpu", v) if isinstance(v, str) else v for v in args]
            _torch().device(*on_cpu, **{k: _ACCELERATOR.sub("cpu", v) if isinstance(v, str) else v
                                        for k, v in kwargs.items()})
        except _ERRORS as err:
            message = str(err)
            for original in named:
                message = message.replace(_ACCELERATOR.sub("cpu", original), original)
            if not _NO_ACCELERATOR.search(message):
                raise _Refused(written, _Said(message, type(err).__name__, "lint.meta.device")) from err
        except Exception:
            pass

    @staticmethod
    def _is_device(function) -> bool:
        return function is _torch().device

    # hooks another framework's interpreter overrides (npulab.lint.ms_run)
    _resolve = staticmethod(lambda dotted: resolve(dotted))
    _module = staticmethod(lambda value: _module_name(value) is not None or isinstance(value, one_rank_group.Namespace))

    def _quiet(self, node):
        try:
            self.eval(node)
        except _Unknown:
            pass

    @staticmethod
    def _function(value) -> bool:
        """A function the interpreter may hand to a torch transform: a whitelisted torch function, a lambda it
        evaluates, a function a transform made."""
        return isinstance(value, (_Lambda, _Made)) or id(value) in _FUNCTIONS

    @staticmethod
    def _torch_callable(function) -> bool:
        """A function of a whitelisted module, a torch.nn module class or instance, or a method of a tensor, module
        or size the interpreter built — nothing else is ever called."""
        torch = _torch()
        if isinstance(function, (_OnMeta, _Made, torch.nn.Module)) or id(function) in _FUNCTIONS:
            return True
        if isinstance(function, type):
            return _module_class(function) or _handed_on_class(function) \
                or function in (torch.Size, torch.finfo, torch.iinfo, torch.autograd.Variable)
        owner = getattr(function, "__self__", None)
        return isinstance(owner, (torch.Tensor, torch.nn.Module, torch.Size)) or _module_class(owner)

    def _builtin(self, function, args, kwargs):
        torch = _torch()
        if kwargs or any(isinstance(v, torch.nn.Module) or _handed_on_class(type(v)) for v in args):
            raise _Unknown("builtin")  # sum(loader) would start its workers
        if function is not len and any(isinstance(v, torch.Tensor) for v in args):
            raise _Unknown("data")
        if function is not range and any(hasattr(v, "__len__") and len(v) > MAX_ITEMS for v in args):
            raise _Unknown("big")
        if function in (tuple, list) and args and not isinstance(args[0], (tuple, list, range, str, torch.Size)):
            raise _Unknown("iterable")
        if function in (tuple, list) and args and isinstance(args[0], range) and len(args[0]) > MAX_ITEMS:
            raise _Unknown("big")
        try:
            return self._checked(function(*args))
        except Exception as err:
            raise _Unknown("python") from err

    def _run(self, written: str, function, args: tuple, kwargs: dict):
        """Call a whitelisted torch function under the meta device; torch's refusal becomes _Refused."""
        torch = _torch()
        first = _first_call(function)
        started = time.monotonic()
        try:
            with torch.device("meta"), warnings.catch_warnings(record=True) as seen:
                warnings.simplefilter("always")
                result = function(*args, **kwargs)
        except NotImplementedError as err:
            # torch/nn/functional.py's own refusal of an input rank; a constructor's own ``raise`` (an observer's qscheme)
            own = _raised_by_functional(err) or isinstance(function, type) and _raised_by_torch(err)
            if own and not _NOT_THE_USER.search(str(err)):
                said = _Said(str(err), type(err).__name__, "lint.meta.constructor_refused") \
                    if isinstance(function, type) else err
                raise _Refused(written, said) from err
            raise _Unknown("no meta kernel") from err
        except _ERRORS as err:
            if _NOT_THE_USER.search(str(err)):
                raise _Unknown("meta") from err
            if isinstance(function, type):  # an optimizer, a scheduler, a data class: its constructor refused
                err = _Said(str(err), type(err).__name__, "lint.meta.constructor_refused")
            raise _Refused(written, err) from err
        except KeyError as err:  # torch's own ``raise KeyError("module name can't contain \".\"")``, not a lookup
            if _raised_by_torch(err):
                raise _Refused(written, err) from err
            raise _Unknown("lookup") from err
        except Exception as err:
            raise _Unknown("other") from err
        finally:
            if first:  # a function's first meta call loads torch's Python kernels: not the cell's time
                self.deadline += time.monotonic() - started
        said = _own_warning([(w.category.__name__, str(w.message)) for w in seen], function, args, kwargs)
        if said:
            raise _Refused(written, _Said(said[1], said[0], "lint.meta.warned"))
        return self._checked(result)

    def _taint(self, node) -> None:
        self.tainted |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}

    # --- statements -----------------------------------------------------------------------------------

    def run(self, body: list[ast.stmt], refused: list) -> None:
        for statement in body:
            self.statements += 1
            if self.halted or self.statements > MAX_STATEMENTS or time.monotonic() > self.deadline:
                return
            self.tainted = set()
            try:
                self._statement(statement, refused)
            except _Refused as err:
                refused.append((statement.lineno, err.written, err.error))
                self._forget(statement)
            except _Unknown:
                self._forget(statement)
            except Exception:  # the interpreter's own failure: unknown, never a finding
                self._forget(statement)
            for name in self.tainted:
                if not self._module(self.env.get(name)):
                    self.env.pop(name, None)

    def _forget(self, statement) -> None:
        """The names a statement binds are unknown after it."""
        for node in ast.walk(statement):
            if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
                self.env.pop(node.id, None)

    def _statement(self, node, refused) -> None:
        if isinstance(node, ast.Import):
            for alias in node.names:
                name = alias.asname or alias.name.split(".")[0]
                try:
                    self.env[name] = self._resolve(alias.name if alias.asname else name)
                except _Unknown:
                    if not isinstance(self.env.get(name), _NpuModule):  # torch_npu stays its documented limits
                        self.env.pop(name, None)
        elif isinstance(node, ast.ImportFrom):
            for alias in node.names:
                name = alias.asname or alias.name
                try:
                    if node.level or not node.module or alias.name == "*":
                        raise _Unknown("import")
                    self.env[name] = self._resolve(f"{node.module}.{alias.name}")
                except _Unknown:
                    self.env.pop(name, None)
        elif isinstance(node, ast.Assign):
            value = self.eval(node.value)
            for target in node.targets:
                self._bind(target, value)
        elif isinstance(node, ast.AnnAssign) and node.value is not None and node.simple:
            self._bind(node.target, self.eval(node.value))
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            self._bind(node.target, self._BinOp(ast.BinOp(left=ast.Name(node.target.id, ast.Load()), op=node.op,
                                                          right=node.value)))
        elif isinstance(node, ast.Expr):
            self.eval(node.value)
        elif isinstance(node, ast.Pass):
            pass
        elif isinstance(node, ast.ClassDef):
            self.env.pop(node.name, None)
            try:
                self.env[node.name] = cell_class(node, self._items(node.bases))
            except _Unknown:
                self._taint(node)  # a class body that runs code may change what it names
                raise
        elif isinstance(node, ast.With) and all(self._grad_context(item) for item in node.items):
            with contextlib.ExitStack() as stack:  # torch.no_grad() as the cell enters it: autograd sees it
                for item in node.items:
                    stack.enter_context(self._entered(item))
                self.run(node.body, refused)
        else:
            self._taint(node)
            raise _Unknown(type(node).__name__)

    def _entered(self, item: ast.withitem):
        """The context a with statement enters (checked by _grad_context): torch's, or forward_ad's dual level."""
        func = item.context_expr.func
        home = self.env[func.value.id]
        return (home.dual_level if _module_name(home) == _DUAL_CONTEXT else getattr(_torch(), func.attr))()

    def _grad_context(self, item: ast.withitem) -> bool:
        expr = item.context_expr
        if item.optional_vars is not None or not isinstance(expr, ast.Call) or expr.args or expr.keywords \
                or not isinstance(expr.func, ast.Attribute):
            return False
        home = _module_name(self.env.get(getattr(expr.func.value, "id", "")))
        return home == "torch" and expr.func.attr in _CONTEXTS or home == _DUAL_CONTEXT and expr.func.attr == "dual_level"

    def _bind(self, target, value) -> None:
        torch = _torch()
        if isinstance(target, ast.Name):
            self.env[target.id] = value
        elif isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, (tuple, list, torch.Size)) \
                and len(value) == len(target.elts) and not any(isinstance(e, ast.Starred) for e in target.elts):
            for element, item in zip(target.elts, value, strict=True):
                self._bind(element, item)
        elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) \
                and isinstance(self.env.get(target.value.id), torch.Tensor):
            base, index = self.env[target.value.id], self.eval(target.slice)
            parts = index if isinstance(index, tuple) else (index,)
            if any(isinstance(p, (torch.Tensor, list)) for p in parts):
                raise _Unknown("mask")
            self._run(ast.unparse(target), operator.setitem, (base, index, value), {})
        else:
            self._taint(target)
            raise _Unknown("target")


_CALLED: set = set()


def _first_call(function) -> bool:
    """Whether this process has not yet run ``function`` (a bound method counts by its name)."""
    key = getattr(function, "__qualname__", None) or getattr(function, "__name__", None) or type(function).__name__
    if key in _CALLED:
        return False
    _CALLED.add(key)
    return True


def _own_warning(messages: list, function, args: tuple, kwargs: dict) -> tuple[str, str] | None:
    """The first warning torch gave for a call that is about what the cell passed: it names a keyword the cell gave,
    holds a string value or the size of a tensor the cell gave, or says that the function called is deprecated (a warning about a default the
    cell did not choose — ``TransformerEncoder``'s nested tensors —, about the meta device, or a deprecation of
    something torch used inside the call — ``torch.jit.script`` while ``jacfwd`` imports — is not)."""
    given = [str(v) for v in (*args, *kwargs.values()) if isinstance(v, str) and len(v) > 1 and v != "meta"]
    # a tensor's size written out (``torch.Size([16])``): mse_loss's "target size … different to the input size"
    given += [str(v.shape) for v in (*args, *kwargs.values()) if type(getattr(v, "shape", None)).__name__ == "Size"
              and len(v.shape)]
    name = getattr(function, "__name__", "")
    for category, message in messages:  # (the warning's class name, its message)
        if _NOT_THE_USER.search(message):
            continue
        named = any(re.search(rf"\b{re.escape(k)}\b", message) for k in kwargs if k != "device")
        deprecated = _DEPRECATED.search(message) and name and re.search(rf"\b{re.escape(name)}\b", message)
        if named or any(v in message for v in given) or deprecated:
            return category, message
    return None


def _raised_by_functional(err: BaseException) -> bool:
    """A NotImplementedError that torch/nn/functional.py raises itself (an input rank the mode does not take)."""
    frame = err.__traceback__
    while frame is not None and frame.tb_next is not None:
        frame = frame.tb_next
    return frame is not None and frame.tb_frame.f_code.co_filename.replace("\\", "/").endswith("torch/nn/functional.py")


def _raised_by_torch(err: BaseException) -> bool:
    """An exception a ``raise`` statement of torch's own Python code raised (a KeyError from a failed lookup, in
    torch or in lint, is not one)."""
    frame = err.__traceback__
    while frame is not None and frame.tb_next is not None:
        frame = frame.tb_next
    if frame is None or "/torch/" not in frame.tb_frame.f_code.co_filename.replace("\\", "/"):
        return False
    line = linecache.getline(frame.tb_frame.f_code.co_filename, frame.tb_lineno)
    return line.lstrip().startswith("raise ")


def calls_into(package: str, tree: ast.Module, imported: dict[str, str]) -> bool:
    """Whether the cell calls something and names an import of ``package`` (the context binds common aliases such as
    ``ms`` in every cell: a cell that never names one cannot reach the package, and its library is not imported)."""
    bound = {name for name, dotted in imported.items() if dotted == package or dotted.startswith(package + ".")}
    nodes = list(ast.walk(tree))
    return any(isinstance(n, ast.Name) and n.id in bound for n in nodes) and any(isinstance(n, ast.Call) for n in nodes)


def refusals(interpreter: type, resolve_name, tree: ast.Module, imported: dict[str, str]) -> list:
    """(line, written, error) of each call the interpreter's library refused, with the cell's imports bound by
    ``resolve_name`` (an import it cannot bind stays unbound; the run stops quietly where it cannot go on)."""
    env = {}
    for name, dotted in imported.items():
        try:
            env[name] = resolve_name(dotted)
        except Exception:
            pass
    refused: list = []
    try:
        interpreter(env).run(tree.body, refused)
    except Exception:
        pass
    return refused


def _npu_resolve(check):
    """``resolve`` with ``torch_npu`` bound to its documented limits (``check``; None: left unbound)."""
    def resolve_name(dotted: str):
        if dotted == "torch_npu" and check is not None:
            return _NpuModule(check)
        return resolve(dotted)
    return resolve_name


def refusals_with_npu(tree: ast.Module, imported: dict[str, str], check) -> list[tuple[int, str, str]]:
    """(line, written, sentence) of each torch_npu call whose known arguments ``check`` refuses."""
    return [(line, written, str(error)) for line, written, error in
            refusals(_Interpreter, _npu_resolve(check), tree, imported) if isinstance(error, _DocumentedLimit)]


def findings(tree: ast.Module, imported: dict[str, str], npu_check=None,
             interpreter: type = _Interpreter) -> list[tuple[int, str, str]]:
    """(line, written, message) of each call in a cell that torch's own checks refuse on the meta device, and of each
    torch_npu call whose known arguments break a documented limit ``npu_check`` reads (npulab.lint.op_ranks)."""
    if not calls_into("torch", tree, imported):
        return []
    try:
        torch = _torch()
    except Exception:  # no torch in this environment: nothing to run
        return []
    refused = refusals(interpreter, _npu_resolve(npu_check), tree, imported)
    version = torch.__version__.split("+")[0]
    out = []
    for line, written, error in refused:
        if isinstance(error, _DocumentedLimit):
            out.append((line, written, t("lint.at_line", line=line, message=str(error))))
            continue
        lines = str(error).strip().splitlines()
        first = lines[0].strip() if lines else ""
        name = getattr(error, "error_name", type(error).__name__)
        key = getattr(error, "message_key", "lint.meta.refused")  # the CPU twins, a forked child, a warning
        out.append((line, written, t(key, line=line, written=written, version=version, error=name, message=first)))
    return out
