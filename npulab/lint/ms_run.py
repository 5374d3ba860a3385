"""lint-npu, MindSpore's own checks: MindSpore has no meta device, so the straight-line MindSpore code of an ``npu``
cell is run by the interpreter of ``meta_run`` in PyNative mode on the CPU of the pinned wheel, on the small tensors
the cell builds from literals and numpy — so MindSpore's own validators and C++ shape inference
(``mindspore/ops/infer/*.cc``, the primitives' ``check_*`` calls in ``mindspore/ops``, ``mindspore/nn``) judge the
arguments the cell passes: ``ops.gather(x, idx, axis=2)`` on a 2-D tensor, ``ops.stack`` of unequal shapes,
``nn.ELU(alpha=2.0)``.

Safety, by whitelist (the rest is never called; the names a skipped statement binds or hands on become unknown, as in
``meta_run``): literals and the names the interpreter bound; ``mindspore.Tensor`` and the dtypes; the functions and
primitive classes of ``mindspore.ops`` and ``mindspore.mint`` (``mint.nn.functional`` included) outside
communication, debugging, printing, custom and hook operators; the layer, loss and learning-rate-schedule classes
of ``mindspore.nn`` and ``mindspore.mint.nn``; numpy's array constructors and random draws (``_NUMPY``); the methods of the tensors, arrays and
cells the interpreter built minus the data-dependent ones; and the classes and functions of ``mindspore.dataset``
(its vision, transforms, text and audio operations included) and ``mindspore.amp``, called only in a child forked from
lint's process (``npulab.lint.in_child``, from a scratch directory: a dataset may start its pipeline's threads, ``amp``
rewrites the cell it is given and writes the new network's source), whose refusal is a finding and whose result is only
a recipe the child follows again (``_InChild``); a primitive built with its attributes is kept and called later
(``ops.ReduceSum(keep_dims=…)``). No call is made whose integer arguments could build more
than ``MAX_ELEMENTS`` elements, no result larger than that is kept, and a cell has a budget of statements and time.

A finding is a ValueError, TypeError, IndexError or RuntimeError MindSpore raises for a call whose inputs were all
known, unless its message names the platform (a kernel the CPU build lacks is not the user's error).
"""

from __future__ import annotations

import os
import re
import tempfile
import time
import types
import warnings
from functools import cache

from npulab.core.i18n import t
from npulab.lint import in_child, meta_run

MAX_ELEMENTS = 1 << 20  # the largest tensor, array or integer size argument the interpreter builds or passes
MAX_SECONDS = 3.0  # per cell, without an operator's first call (PyNative builds its CPU kernel once)
_MODULES = ("mindspore", "mindspore.ops", "mindspore.nn", "mindspore.mint", "mindspore.mint.nn",
            "mindspore.mint.nn.functional", "mindspore.ops.functional", "numpy", "numpy.random",
            "mindspore.dataset", "mindspore.dataset.vision", "mindspore.dataset.transforms", "mindspore.dataset.text",
            "mindspore.dataset.audio", "mindspore.amp")
# where a callable is built or called only in a forked child (_InChild): the data pipeline and mixed precision
_CHILD_HOMES = re.compile(r"^mindspore\.(?:dataset|train\.amp|amp)(?:\.|$)")
MAX_CHILD_ELEMENTS = 1000  # the largest array handed to the child (in_child keys its memo on the arguments' repr)
# a dataset read from files names a path this machine lacks: the machine's, never the cell's error
_MISSING_FILES = re.compile(r"\b(?:folder|file|files|directory|path|permission|patterns? did not match)\b",
                            re.IGNORECASE)
_FROM_TOP = frozenset({"Tensor", "ops", "nn", "mint", "dtype"})  # mindspore.* members besides the dtypes
# numpy: constructors and draws (the draws' values never decide a finding of shape or type)
_NUMPY = frozenset({"ones", "zeros", "full", "array", "asarray", "arange", "linspace", "eye", "ones_like",
                    "zeros_like", "full_like", "stack", "concatenate", "reshape", "random", "randn", "rand",
                    "randint", "normal", "uniform", "standard_normal", "float16", "float32", "float64", "int8",
                    "int16", "int32", "int64", "uint8", "bool_", "complex64", "pi", "e"})
# operators whose home module does I/O, communicates, prints, hooks or runs user code
_DENIED_HOMES = re.compile(r"comm_ops|debug_ops|custom|_embedding|rl_ops|_ps_|tensor_array|pyfunc|py_func|hook|"
                           r"_inner_ops|communication|dump|summary|print|random_ops|_grad|composite|dataset|train|"
                           r"optim|wrap|amp|parallel|profil|checkpoint|serializ|export|context|file|"
                           r"(?:^|\.)jit(?:$|\.)")  # mindspore.jit, not mint's wrappers in _check_jit_view_unsupported_api
_DENIED = frozenset({"Print", "print_", "tensordump", "TensorDump", "depend", "Depend", "Custom", "Cell", "CellList",
                     "SequentialCell", "PyFunc", "HookBackward", "set_context", "set_seed", "load", "save",
                     "Parameter", "ParameterTuple", "Morph", "vmap", "grad", "value_and_grad", "jvp", "vjp",
                     "GradOperation", "stop_gradient", "Partial", "partial", "MultitypeFuncGraph", "HyperMap",
                     "Map", "shard", "Shard"})
_DATA_METHODS = frozenset({"asnumpy", "item", "tolist", "numpy", "asnumpy_of_slice_persistent_data", "nonzero",
                           "unique", "masked_select", "any", "all", "__bool__", "__int__", "__float__", "__index__",
                           "__len__", "__iter__", "__repr__", "__str__", "__format__", "__array__", "tofile",
                           "tobytes", "dump", "assign_value", "set_data", "init_data", "data_sync", "register_hook",
                           "backward", "move_to", "to", "copy_", "set_dtype", "offload", "flush_from_cache",
                           "set_const_arg", "set_init_flag", "fill", "put", "itemset", "setflags", "resize", "sort",
                           "view", "byteswap", "data", "base", "ctypes", "flags"})
_ERRORS = (ValueError, TypeError, IndexError, RuntimeError)
_NOT_THE_USER = re.compile(r"\b(cpu|gpu|ascend|npu|device|platform|backend|kernel|not implement|no implement|"
                           r"unsupported platform|graph mode|jit|context|compile|"
                           r"num_parallel_workers)", re.IGNORECASE)  # bounded by this machine's core count


@cache
def _ms():
    saved = dict(os.environ)  # importing mindspore sets variables (HCCL_CONNECT_TIMEOUT …): keep ours as they were
    os.environ.setdefault("GLOG_v", "4")  # the C++ log: nothing (a refused call logs an ERROR line beside the finding)
    try:
        import mindspore  # imported only when a cell has MindSpore code to run
    finally:
        os.environ.clear()
        os.environ.update(saved)
    # PyNative runs operators asynchronously: synchronous, an error is raised by the call that caused it
    mindspore.set_context(mode=mindspore.PYNATIVE_MODE, pynative_synchronize=True)
    return mindspore


@cache
def _np():
    import numpy

    return numpy


_FUNCTIONS: set[int] = set()  # ids of the whitelisted functions handed out
# what an object of the child's families never reaches: I/O, a pipeline run, a device, another process
_CHILD_DENIED = re.compile(r"^(?:_|create_|save|serialize|to_json|to_device|device_que|send|sync|get_|output_|apply|"
                           r"map$|filter$|parse|load)")


class _InChild:
    """A callable of ``_CHILD_HOMES``, what it returned, or an attribute of that: a recipe the forked child follows
    (``build``); lint's process never holds the object itself. ``repr`` keys in_child's memo."""

    def __init__(self, recipe: tuple):
        self.recipe = recipe

    def __repr__(self) -> str:
        kind, *parts = self.recipe
        if kind == "root":
            return f"{parts[0].__module__}.{parts[0].__qualname__}"
        if kind == "attr":
            return f"{parts[0]!r}.{parts[1]}"
        return f"{parts[0]!r}(*{parts[1]!r}, **{sorted(parts[2].items())!r})"

    def build(self):
        kind, *parts = self.recipe
        if kind == "root":
            return parts[0]
        if kind == "attr":
            return getattr(parts[0].build(), parts[1])
        function, args, kwargs = parts
        return function.build()(*_built(args), **_built(kwargs))


def _built(value):
    """Arguments with every recipe among them followed (in the child)."""
    return in_child.built(value, _InChild)


def _in_child(recipe: _InChild) -> None:
    """In the child, from a scratch directory: amp's rewrite writes the network's source into ``rewritten_network/``
    under the working directory, which must stay the user's."""
    with tempfile.TemporaryDirectory(prefix="npulab-ms-") as scratch:
        os.chdir(scratch)
        recipe.build()


def _module_name(value) -> str | None:
    return value.__name__ if isinstance(value, types.ModuleType) and value.__name__ in _MODULES else None


def _operator_class(value) -> bool:
    """A primitive of mindspore.ops or a layer or loss class of mindspore.nn / mint.nn, not a user's subclass."""
    if not isinstance(value, type):
        return False
    ms = _ms()
    home = value.__module__ or ""
    if _DENIED_HOMES.search(home.replace("mindspore.ops.operations.", ".")) or value.__name__ in _DENIED:
        return False
    if issubclass(value, ms.ops.Primitive):
        return home.startswith("mindspore.ops")
    return issubclass(value, ms.nn.Cell) and home.startswith(("mindspore.nn.layer", "mindspore.nn.loss",
                                                              "mindspore.nn.learning_rate_schedule",
                                                              "mindspore.mint.nn"))


def _member(module, name: str):
    if name.startswith("_") or name in _DENIED:
        raise meta_run._Unknown(name)
    top = module.__name__.split(".")[0]
    if top == "numpy" and name not in _NUMPY:
        raise meta_run._Unknown(name)
    value = getattr(module, name, None)
    if value is None:
        raise meta_run._Unknown(name)
    if isinstance(value, types.ModuleType):
        if _module_name(value) is None:
            raise meta_run._Unknown(name)
        return value
    ms = _ms()
    if top == "mindspore" and module.__name__ == "mindspore" and name not in _FROM_TOP:
        if isinstance(value, ms.dtype.Type):
            return value
        raise meta_run._Unknown(name)
    if value is ms.Tensor or _operator_class(value):
        return value
    if callable(value) and _CHILD_HOMES.search(getattr(value, "__module__", None) or ""):
        return _InChild(("root", value))
    if isinstance(value, type):
        if top == "numpy" and issubclass(value, _np().generic):
            return value  # np.float32
        raise meta_run._Unknown(name)
    if isinstance(value, ms.dtype.Type) or isinstance(value, (int, float, str, bool)):
        return value
    if callable(value):
        home = getattr(value, "__module__", None) or ""
        if top == "mindspore" and (not home.startswith("mindspore") or _DENIED_HOMES.search(home)):
            raise meta_run._Unknown(name)
        _FUNCTIONS.add(id(value))
        return value
    raise meta_run._Unknown(name)


def resolve(dotted: str):
    """The object a whitelisted dotted path names (``mindspore.ops``, ``numpy.random``), or _Unknown."""
    parts = dotted.split(".")
    if parts[0] not in ("mindspore", "numpy"):
        raise meta_run._Unknown(dotted)
    value = _ms() if parts[0] == "mindspore" else _np()
    for part in parts[1:]:
        value = _member(value, part)
    return value


def _elements(value) -> int:
    """How many elements an integer or a tuple of integers given as a size could build (0 for anything else)."""
    if isinstance(value, bool):
        return 0
    if isinstance(value, int):
        return abs(value)
    if isinstance(value, (tuple, list)) and value and all(isinstance(v, int) and not isinstance(v, bool)
                                                         for v in value):
        product = 1
        for v in value:
            product *= max(abs(v), 1)
        return product
    return 0


class _Interpreter(meta_run._Interpreter):
    """meta_run's interpreter over MindSpore and numpy values, run for real on the CPU on small tensors."""

    _resolve = staticmethod(resolve)
    _module = staticmethod(lambda value: _module_name(value) is not None)

    def __init__(self, env: dict):
        super().__init__(env)
        self.deadline = time.monotonic() + MAX_SECONDS

    @staticmethod
    def _is_device(function) -> bool:
        return False

    @staticmethod
    def _meta(kwargs):
        return kwargs

    def _torchy(self, value) -> bool:
        return isinstance(value, (_ms().Tensor, _ms().nn.Cell, _np().ndarray))

    def _plain(self, value) -> bool:
        ms, np = _ms(), _np()
        if value is None or value is Ellipsis or isinstance(value, (bool, int, float, complex, str, slice, range,
                                                                      ms.dtype.Type, np.generic, np.dtype, _InChild)):
            return True
        if isinstance(value, type) and (issubclass(value, np.generic) or _operator_class(value)):
            return True  # np.float32; nn.Dense named as a value (amp's white_list)
        if isinstance(value, (tuple, list)):
            return len(value) <= meta_run.MAX_ITEMS and all(self._plain(v) or self._torchy(v) for v in value)
        if isinstance(value, dict):
            return len(value) <= meta_run.MAX_ITEMS and all(
                self._plain(k) and (self._plain(v) or self._torchy(v)) for k, v in value.items())
        return False

    def _checked(self, value):
        ms, np = _ms(), _np()
        if isinstance(value, (ms.Tensor, np.ndarray)):
            if int(np.prod(value.shape)) > MAX_ELEMENTS:
                raise meta_run._Unknown("big")
            return value
        if isinstance(value, ms.nn.Cell) or self._plain(value):
            return value
        if isinstance(value, ms.ops.Primitive) and _operator_class(type(value)):
            return value  # a primitive built with its attributes (``ops.ReduceSum(keep_dims=True)``), called later
        if isinstance(value, (tuple, list)) and len(value) <= meta_run.MAX_ITEMS:
            for item in value:
                self._checked(item)
            return value
        raise meta_run._Unknown("result")

    def _Attribute(self, node):
        base = self.eval(node.value)
        name = node.attr
        if _module_name(base):
            return _member(base, name)
        if isinstance(base, _InChild) and not _CHILD_DENIED.search(name):
            return _InChild(("attr", base, name))
        ms, np = _ms(), _np()
        if name.startswith("_") or name in _DATA_METHODS:
            raise meta_run._Unknown(name)
        if isinstance(base, (ms.Tensor, np.ndarray)):
            value = getattr(base, name)
            if callable(value) or self._plain(value) or self._torchy(value):
                return value
            raise meta_run._Unknown(name)
        if isinstance(base, ms.nn.Cell):
            value = getattr(base, name)
            if isinstance(value, ms.Tensor) or (self._plain(value) and not callable(value)):
                return value  # a cell is only called itself, never its methods
            raise meta_run._Unknown(name)
        if isinstance(base, (tuple, list, dict, str, int, float)) and not callable(getattr(base, name, None)):
            return getattr(base, name)
        raise meta_run._Unknown(name)

    def _Subscript(self, node):
        base = self.eval(node.value)
        index = self.eval(node.slice)
        if self._torchy(base) and not isinstance(base, _ms().nn.Cell):
            parts = index if isinstance(index, tuple) else (index,)
            if any(self._torchy(p) or isinstance(p, list) for p in parts):
                raise meta_run._Unknown("mask")  # an index tensor or mask selects by value
            try:
                return self._checked(base[index])
            except Exception as err:
                raise meta_run._Unknown("index") from err
        if isinstance(base, (tuple, list, dict, str)):
            try:
                return base[index]
            except Exception as err:
                raise meta_run._Unknown("index") from err
        raise meta_run._Unknown("subscript")

    @staticmethod
    def _torch_callable(function) -> bool:
        ms, np = _ms(), _np()
        if id(function) in _FUNCTIONS or isinstance(function, (ms.nn.Cell, ms.ops.Primitive, _InChild)):
            return True
        if isinstance(function, type):
            return function is ms.Tensor or _operator_class(function) or issubclass(function, np.generic)
        owner = getattr(function, "__self__", None)
        return isinstance(owner, (ms.Tensor, np.ndarray)) and getattr(function, "__name__", "") not in _DATA_METHODS

    def _builtin(self, function, args, kwargs):
        if kwargs or any(self._torchy(v) for v in args) and function is not len:
            raise meta_run._Unknown("builtin")
        if function is not range and any(hasattr(v, "__len__") and len(v) > meta_run.MAX_ITEMS for v in args):
            raise meta_run._Unknown("big")
        if function is range and any(_elements(v) > meta_run.MAX_ITEMS for v in args):
            raise meta_run._Unknown("big")
        try:
            return self._checked(function(*args))
        except Exception as err:
            raise meta_run._Unknown("python") from err

    def _run(self, written: str, function, args: tuple, kwargs: dict):
        """Call a whitelisted MindSpore or numpy function on the CPU; MindSpore's refusal becomes _Refused."""
        if any(_elements(v) > MAX_ELEMENTS for v in (*args, *kwargs.values())):
            raise meta_run._Unknown("big")
        if isinstance(function, _InChild):
            return _called_in_child(written, function, args, kwargs)
        first = meta_run._first_call(function)
        started = time.monotonic()
        np = _np()
        numpy_call = (getattr(function, "__module__", None) or "").startswith("numpy") \
            or isinstance(getattr(function, "__self__", None), np.ndarray)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                result = function(*args, **kwargs)
        except _ERRORS as err:
            if numpy_call or _NOT_THE_USER.search(_first_line(err)):
                raise meta_run._Unknown("not the user") from err
            raise meta_run._Refused(written, err) from err
        except Exception as err:
            raise meta_run._Unknown("other") from err
        finally:
            if first:  # an operator's first call builds its CPU kernel: not the cell's time
                self.deadline += time.monotonic() - started
        return self._checked(result)

    def _bind(self, target, value) -> None:
        import ast

        if isinstance(target, ast.Name):
            self.env[target.id] = value
        elif isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, (tuple, list)) \
                and len(value) == len(target.elts) and not any(isinstance(e, ast.Starred) for e in target.elts):
            for element, item in zip(target.elts, value, strict=True):
                self._bind(element, item)
        else:
            self._taint(target)
            raise meta_run._Unknown("target")

    def _grad_context(self, item) -> bool:
        return False


def _first_line(error: BaseException) -> str:
    """The user-facing first line of MindSpore's message (its C++ call stack follows)."""
    for line in str(error).strip().splitlines():
        line = line.strip()
        if line and not line.startswith(("-", "[")):
            return line
    return ""


def findings(tree, imported: dict[str, str]) -> list[tuple[int, str, str]]:
    """(line, written, message) of each call in a cell that MindSpore's own checks refuse on the CPU."""
    if not meta_run.calls_into("mindspore", tree, imported):
        return []
    try:
        ms = _ms()
    except Exception:  # no MindSpore in this environment: nothing to run
        return []
    refused = meta_run.refusals(_Interpreter, resolve, tree, imported)
    out = []
    for line, written, error in refused:
        words = {"line": line, "written": written, "version": ms.__version__, "message": _first_line(error),
                 "error": getattr(error, "error_name", type(error).__name__)}
        in_child = isinstance(error, meta_run._Said)  # refused in the forked child (_called_in_child)
        out.append((line, written, t("lint.ms_run.child_refused", **words) if in_child
                    else t("lint.ms_run.refused", **words)))
    return out


def _arrays(value) -> list:
    """The numpy arrays among arguments (in lists, tuples and dicts)."""
    if isinstance(value, (list, tuple)):
        return [a for v in value for a in _arrays(v)]
    if isinstance(value, dict):
        return [a for v in value.values() for a in _arrays(v)]
    return [value] if isinstance(value, _np().ndarray) else []


def _called_in_child(written: str, function: _InChild, args: tuple, kwargs: dict) -> _InChild:
    """Call a dataset or amp callable in a forked child: its refusal is a finding, its result a recipe."""
    if any(a.size > MAX_CHILD_ELEMENTS for a in _arrays((args, kwargs))):
        raise meta_run._Unknown("big")  # a long array's repr elides its middle: the memo would not tell two apart
    call = _InChild(("call", function, tuple(args), dict(kwargs)))
    heard = in_child.outcome(_in_child, (call,), {}, name=repr(function))
    if heard is None:
        raise meta_run._Unknown("child")
    if "error" in heard:
        said = meta_run._Said(heard["message"], heard["error"], "lint.ms_run.child_refused")  # worded by findings
        first = _first_line(said)
        if heard["error"] not in {e.__name__ for e in _ERRORS} or _NOT_THE_USER.search(first) \
                or _MISSING_FILES.search(first):
            raise meta_run._Unknown("not the user")
        raise meta_run._Refused(written, said)
    return call
