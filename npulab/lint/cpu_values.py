"""lint-npu, torch's checks that need values: round 10's interpreter (``meta_run``) runs a cell's straight-line torch
code on the meta device, where a tensor has no data, so every check of a value — a negative count for ``bincount``,
an index past ``numel()`` for ``take``, ``uniform_(0.1, -0.1)``, a distribution's ``arg_constraints`` (``Normal``'s
scale must be positive), ``one_hot`` with too few classes, a CTC ``blank`` past the classes — is out of its reach.

This interpreter keeps, beside each small tensor and module the meta run built, a CPU twin with the same values the
cell would give it, and runs each call again on the twins with torch's own CPU kernels: a refusal that the meta run
did not make is a finding of its own (``lint.cpu.refused``). The meta run goes first and decides what is safe: a
twin is made only for a result the meta run built (or, for a call the meta device cannot judge, one whose arguments
are all twins and whose integer sizes are small), of at most ``MAX_ELEMENTS`` elements (a module: its parameters and
buffers), at most ``MAX_TOTAL`` in a cell. Random draws run under a forked generator seeded with 0: the same cell
gives the same values every time, and the process's generator is left as it was. A message that names a device, a
dtype the CPU build does not implement (``not implemented for 'Half'``) or the meta device is not the user's error
(``meta_run._NOT_THE_USER``).

``torch.distributions``' classes are whitelisted here too: they validate their arguments against their own
``arg_constraints`` (torch ``torch/distributions/distribution.py`` ``Distribution.__init__``, validation on by
default), which needs values, so only the twins can judge them.
"""

from __future__ import annotations

import re
import time
import warnings

from npulab.lint import meta_run

MAX_ELEMENTS = 1 << 16  # the largest tensor (or module's parameters and buffers) given a CPU twin
MAX_TOTAL = 1 << 20  # all the twins of one cell together
# a call handed a function (gradcheck, jacobian, hessian) may call it once per element of its inputs and build their
# product: it runs on twins holding at most this many elements in all
MAX_TRANSFORMED = 1 << 8
# "<kernel>" not implemented for '<dtype>': torch's CPU build implements every operator for the full-precision and
# integer dtypes it supports at all (c10 ScalarType names), so for those the operator refuses the dtype; half, brain
# float, float8 and complex half may be a gap of the CPU build that the NPU fills, and stay unknown
_DTYPE_REFUSED = re.compile(r"not implemented for '(Float|Double|Long|Int|Short|Char|Byte|Bool|ComplexFloat|"
                            r"ComplexDouble)'")


class OnCpu(Exception):
    """torch's CPU refusal of a call the meta device accepted or could not judge (its message, its error's name)."""

    message_key = "lint.cpu.refused"  # meta_run.findings words it as the CPU's refusal

    def __init__(self, error: BaseException):
        super().__init__(str(error))
        self.error_name = type(error).__name__


class _NoTwin(Exception):
    pass


_MISSING = object()


def _numel(value) -> int | None:
    """Elements a result holds: a tensor's, a module's parameters and buffers, a tuple's items; None: not countable."""
    torch = meta_run._torch()
    if isinstance(value, torch.Tensor):
        return value.numel()
    if isinstance(value, torch.nn.Module):
        return sum(p.numel() for p in value.parameters()) + sum(b.numel() for b in value.buffers())
    if isinstance(value, (tuple, list)):
        counts = [_numel(v) for v in value]
        return None if any(c is None for c in counts) else sum(counts)
    return 0 if value is None or isinstance(value, (bool, int, float, str, torch.dtype, torch.Size)) else None


def _elements(values) -> int:
    """The elements of the tensors among ``values`` (nested in tuples and lists)."""
    torch = meta_run._torch()
    return sum(v.numel() if isinstance(v, torch.Tensor) else _elements(v) if isinstance(v, (tuple, list)) else 0
               for v in values)


def _sizes_small(values) -> bool:
    """Integer arguments that could not build more than MAX_TOTAL elements (their product, as ms_run judges)."""
    product = 1
    for value in values:
        items = value if isinstance(value, (tuple, list)) else (value,)
        for item in items:
            if isinstance(item, int) and not isinstance(item, bool):
                product *= max(abs(item), 1)
    return product <= MAX_TOTAL


class Interpreter(meta_run._Interpreter):
    """meta_run's interpreter with a CPU twin beside each small tensor and module it built."""

    def __init__(self, env: dict):
        super().__init__(env)
        self.twins: dict[int, tuple] = {}  # id(meta object) -> (meta object, CPU twin)
        self.total = 0

    # --- twins ----------------------------------------------------------------------------------------

    def _twin(self, value):
        torch = meta_run._torch()
        if isinstance(value, (torch.Tensor, torch.nn.Module)):
            pair = self.twins.get(id(value))
            if pair is None or pair[0] is not value:
                raise _NoTwin
            return pair[1]
        if isinstance(value, torch.device):
            return torch.device("cpu")
        if isinstance(value, tuple) and not isinstance(value, torch.Size):
            return tuple(self._twin(v) for v in value)
        if isinstance(value, list):
            return [self._twin(v) for v in value]
        if isinstance(value, dict):
            return {k: self._twin(v) for k, v in value.items()}
        return value

    def _keep(self, meta, cpu) -> None:
        torch = meta_run._torch()
        if isinstance(meta, (torch.Tensor, torch.nn.Module)) and type(cpu) is type(meta) or \
                isinstance(meta, torch.Tensor) and isinstance(cpu, torch.Tensor):
            if isinstance(meta, torch.Tensor) and tuple(meta.shape) != tuple(cpu.shape):
                return
            self.twins[id(meta)] = (meta, cpu)
        elif isinstance(meta, (tuple, list)) and isinstance(cpu, (tuple, list)) and len(meta) == len(cpu):
            for m, c in zip(meta, cpu, strict=True):
                self._keep(m, c)

    def _cpu_callable(self, function, args: tuple):
        """The callable to run on the twins, and its arguments; _NoTwin where there is none."""
        torch = meta_run._torch()
        if isinstance(function, meta_run._OnMeta):
            base = self._twin(function.base)
            if not function.move:
                return (lambda: base), ()
            moved = tuple(torch.device("cpu") if isinstance(v, (str, torch.device)) else v for v in args)
            return base.to, self._twin(moved)
        if isinstance(function, torch.nn.Module):
            return self._twin(function), self._twin(args)
        owner = getattr(function, "__self__", None)
        if isinstance(owner, (torch.Tensor, torch.nn.Module)):
            return getattr(self._twin(owner), function.__name__), self._twin(args)
        return function, self._twin(args)

    def _on_cpu(self, written: str, function, args: tuple, kwargs: dict, meta_result):
        """Run the call on the twins; keep the result's twin; torch's CPU refusal becomes _Refused."""
        torch = meta_run._torch()
        if meta_result is _MISSING:  # the meta device could not judge: only twins and small sizes
            if isinstance(function, type) and not meta_run._distribution_class(function) \
                    or not _sizes_small((*args, *kwargs.values())):
                return _MISSING
        else:
            count = _numel(meta_result)
            if count is None or count > MAX_ELEMENTS or self.total + count > MAX_TOTAL:
                return _MISSING
        try:
            call, cpu_args = self._cpu_callable(function, args)
            cpu_kwargs = {k: ("cpu" if k == "device" else self._twin(v)) for k, v in kwargs.items()}
        except _NoTwin:
            return _MISSING
        if self._transforms((*args, *kwargs.values())) and _elements((*cpu_args, *cpu_kwargs.values())) > MAX_TRANSFORMED:
            return _MISSING
        started = time.monotonic()
        try:
            with torch.random.fork_rng(devices=[]), torch.device("cpu"), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                torch.manual_seed(0)
                result = call(*cpu_args, **cpu_kwargs)
        except meta_run._ERRORS as err:
            if meta_run._NOT_THE_USER.search(_DTYPE_REFUSED.sub("", str(err))):
                return _MISSING
            raise meta_run._Refused(written, OnCpu(err)) from err
        except Exception:
            return _MISSING
        finally:
            if meta_run._first_call(call):  # a kernel's first CPU call loads it: not the cell's time
                self.deadline += time.monotonic() - started
        if meta_result is not _MISSING:
            self.total += _numel(meta_result) or 0
            self._keep(meta_result, result)
        return result

    def _run(self, written: str, function, args: tuple, kwargs: dict):
        try:
            result = super()._run(written, function, args, kwargs)
        except meta_run._Unknown:
            if self._on_cpu(written, function, args, kwargs, _MISSING) is _MISSING:
                self._drop(function, args, kwargs)
            raise
        if self._on_cpu(written, function, args, kwargs, result) is _MISSING:
            self._drop(function, args, kwargs)
        return result

    def _transforms(self, values) -> bool:
        """Whether a call is handed a function it may call many times (a torch function, a lambda)."""
        return any(self._function(v) or isinstance(v, (tuple, list)) and self._transforms(v) for v in values)

    def _drop(self, function, args: tuple, kwargs: dict) -> None:
        """A call the twins did not follow may have changed its arguments in place (``x.add_(y)`` with ``y`` too large
        for a twin): their twins no longer hold the cell's values, and are forgotten."""
        torch = meta_run._torch()
        owner = function.base if isinstance(function, meta_run._OnMeta) else getattr(function, "__self__", function)
        stack = [owner, *args, *kwargs.values()]
        while stack:
            value = stack.pop()
            if isinstance(value, (torch.Tensor, torch.nn.Module)):
                self.twins.pop(id(value), None)
            elif isinstance(value, (tuple, list)):
                stack.extend(value)
            elif isinstance(value, dict):
                stack.extend(value.values())

    @staticmethod
    def _torch_callable(function) -> bool:
        return meta_run._Interpreter._torch_callable(function) or meta_run._distribution_class(function)

