"""lint-npu, the checks a called function makes on its arguments TOGETHER, read from its released source and run on
a call's literals: ``if num_workers == 0 and prefetch_factor is not None: raise ValueError`` (DataLoader),
``if rank >= num_replicas or rank < 0: raise`` (DistributedSampler), ``if mode is not None and options is not
None: raise`` (torch.compile), ``if not 0.0 <= betas[1] < 1.0: raise`` (Adam), and a constructor's
``_check_params()`` that warns and resets one of the values it tests (torch_npu's profiler ``_ExperimentalConfig``).

:func:`refusals` walks the function's statements in order (a constructor's, and the ``self.method()`` calls it
makes, inline) over three-valued values: a literal, :data:`UNKNOWN`, or :class:`NotNone` for what a call gives
that is not a literal but is surely not ``None`` (a list display, a constructor call). A branch whose test is
unknown is walked both ways and the two results merged; a loop forgets what it may change. An ``if`` (or
``assert``) is a *refusal* when its test is true for the call, every enclosing test is true too, and its body
raises, or warns and then resets one of the values the test reads (a warning alone is advice). A refusal that the
defaults alone produce (the call's own arguments unknown) is the library's business, not the call's: it is not
reported.
"""

import ast

from npulab.lint.own_expressions import Walk, bind, evaluate, keys_read, truth
from npulab.lint.own_statements import arguments, run
from npulab.lint.walked import (
    UNKNOWN,
    Base,
    Fields,
    Function,
    Items,
    Keys,
    NotNone,
    Refusal,
    Wrapped,
    bind_values,
    bound_to,
    wrapping,
)

# the values and functions a walk handles, re-exported: callers write own_checks.UNKNOWN, own_checks.evaluate …
__all__ = ["UNKNOWN", "Base", "Fields", "Function", "Items", "Keys", "NotNone", "Refusal", "Walk", "Wrapped", "accepts",
           "arguments", "bind", "bind_values", "bound_to", "evaluate", "keys_read", "refusals", "refusals_of", "run",
           "truth"]


def accepts(predicate: ast.Lambda, value, resolve=lambda node: UNKNOWN):
    """Whether a one-parameter ``lambda`` accepts a value: True, False, or UNKNOWN."""
    if len(predicate.args.args) != 1:
        return UNKNOWN
    return truth(evaluate(predicate.body, {predicate.args.args[0].arg: value}, Walk({}, resolve)))


def refusals(body: list[ast.stmt], state: dict, methods: dict, resolve, base: Base | None = None,
             classes=lambda node: False) -> list[Refusal]:
    """The refusals of a function body run with ``state`` (parameter -> value)."""
    walk = Walk(methods, resolve, base=base, classes=classes)
    run(body, dict(state), walk, [])
    return walk.found


def refusals_of(function: Function, values: dict) -> list[Refusal]:
    """The refusals of ``function`` run with ``values`` (parameter -> value), following the functions and
    constructors it calls (their refusals carry ``origin``)."""
    walk = Walk({}, function.resolve).into(function)
    walk.origin = None
    walk.level -= wrapping(function)
    run(function.body, {**function.closure, **values}, walk, [], -wrapping(function))
    return walk.found
