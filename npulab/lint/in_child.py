"""lint-npu, torch's global setters judged by torch itself: ``torch.set_num_threads(0)``,
``torch.set_default_dtype(torch.int32)``, ``torch.manual_seed("a")``, ``torch.set_float32_matmul_precision("fp32")``.
Running such a call in lint's own process would change that process (its thread pool, the dtype of every later tensor,
its random generator; ``set_num_interop_threads`` may even be called only once), so the call runs in a forked child
that exits right after it: torch's own argument checks raise there, or warn that the call has no effect, and only
that outcome comes back through a pipe. A child that does not answer within ``TIMEOUT`` seconds is killed, the call
stays unknown and that setter is not asked again in this process (``use_deterministic_algorithms`` imports torch's
compiler first, six seconds); an outcome is kept per setter and arguments (the course calls `torch.manual_seed` 42 times).
"""

from __future__ import annotations

import faulthandler
import json
import os
import select
import signal
import time
import warnings

# seconds a child may take: it only makes one call (milliseconds), but forking a large process on a busy machine
# (a test worker beside others on two cores) has taken over 0.2 s; a child that hangs costs this once per callable
TIMEOUT = 3.0
_HEARD: dict[tuple, dict | None] = {}  # (setter, arguments) -> outcome
_SLOW: set[str] = set()  # setters whose child did not answer in time


def built(value, recipe: type):
    """``value`` with every ``recipe`` among it (itself, or an item of a list, tuple or dict) replaced by what the
    recipe's ``build()`` returns: the arguments a recipe is called with, followed in the child."""
    if isinstance(value, recipe):
        return value.build()
    if isinstance(value, (list, tuple)):
        return type(value)(built(v, recipe) for v in value)
    if isinstance(value, dict):
        return {k: built(v, recipe) for k, v in value.items()}
    return value


def outcome(function, args: tuple, kwargs: dict, name: str | None = None) -> dict | None:
    """What ``function(*args, **kwargs)`` did in a forked child: ``{"error": name, "message": text}`` when it raised,
    ``{"warnings": [(class name, text), …]}`` when it returned (with ``"returned"``: the dict it returned, if any); None when the child could not be asked (no fork, no answer).
    ``name`` is what a child that did not answer makes slow (the function's own name by default)."""
    name = name or f"{getattr(function, '__module__', '')}.{getattr(function, '__qualname__', repr(function))}"
    key = (name, repr(args), repr(sorted(kwargs.items())))
    if name in _SLOW or not hasattr(os, "fork"):
        return None
    if key not in _HEARD:
        _HEARD[key] = _ask(function, args, kwargs)
        if _HEARD[key] is None:
            _SLOW.add(name)
    return _HEARD[key]


def _ask(function, args: tuple, kwargs: dict) -> dict | None:
    read_end, write_end = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        os.close(read_end)
        os.close(write_end)
        return None
    if pid == 0:  # the child: call, report, exit without running the parent's exit handlers
        try:
            faulthandler.disable()  # a child that crashes (gloo's send to a missing rank) dies quietly: the call is unknown
            os.close(read_end)
            os.write(write_end, json.dumps(_call(function, args, kwargs)).encode())
        finally:
            os._exit(0)
    os.close(write_end)
    try:
        return _answer(read_end, pid)
    finally:
        os.close(read_end)


def _call(function, args: tuple, kwargs: dict) -> dict:
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        try:
            returned = function(*args, **kwargs)
        except Exception as err:  # the child reports every refusal; the parent decides what counts
            return {"error": type(err).__name__, "message": str(err)}
    heard = {"warnings": [(w.category.__name__, str(w.message)) for w in seen]}
    if isinstance(returned, dict):  # what a function that judges in the child itself found (npulab.lint.triton_run)
        heard["returned"] = returned
    return heard


def _answer(read_end: int, pid: int) -> dict | None:
    data, deadline = b"", time.monotonic() + TIMEOUT
    while True:
        left = deadline - time.monotonic()
        ready = select.select([read_end], [], [], max(left, 0))[0] if left > 0 else []
        if not ready:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return None
        chunk = os.read(read_end, 1 << 16)
        if not chunk:
            break
        data += chunk
    os.waitpid(pid, 0)
    try:
        return json.loads(data.decode()) if data else None
    except ValueError:
        return None
