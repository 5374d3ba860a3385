"""lint-npu, validating decorators: a function (or constructor) of the released sources wrapped by a decorator that
checks the arguments before the function runs — MindSpore's dataset validators::

    def check_prob(method):
        @wraps(method)
        def new_method(self, *args, **kwargs):
            [prob], _ = parse_user_args(method, *args, **kwargs)
            check_value(prob, [0., 1.], "prob")
            return method(self, *args, **kwargs)
        return new_method

:func:`wrapper_of` finds the nested function a decorator returns; npulab.lint.callees then walks it in place of the
decorated function, with the call's arguments packed as its ``*args``/``**kwargs`` and the decorator's parameter
(``method``) standing for the decorated function (own_checks.Wrapped): calling it walks the decorated body, and a
helper that binds arguments to its signature (``inspect.signature(method).bind(…)``) gives the parameters' values
(own_checks.bound_to). Nothing is run.
"""

from __future__ import annotations

import ast


def wrapper_of(decorator: ast.FunctionDef) -> ast.FunctionDef | None:
    """The nested ``def`` a one-parameter decorator returns, when it takes ``*args`` and ``**kwargs`` (what it hands
    the decorated function); None for any other decorator."""
    if len(decorator.args.args) != 1 or decorator.args.vararg or decorator.args.kwarg:
        return None
    nested = {n.name: n for n in decorator.body if isinstance(n, ast.FunctionDef)}
    returned = [n.value.id for n in decorator.body if isinstance(n, ast.Return) and isinstance(n.value, ast.Name)]
    if len(returned) != 1 or returned[0] not in nested:
        return None
    wrapper = nested[returned[0]]
    method = decorator.args.args[0].arg
    calls_it = any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == method
                   for n in ast.walk(wrapper))
    return wrapper if wrapper.args.vararg and wrapper.args.kwarg and calls_it else None
