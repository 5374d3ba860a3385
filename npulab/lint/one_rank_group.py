"""lint-npu, torch.distributed judged by its own collectives in a one-rank group: a cell that starts a group of one
process (``init_process_group(…, rank=0, world_size=1)``) has its ``torch.distributed`` calls run in a forked child
(``npulab.lint.in_child``) that starts the same group with the ``gloo`` backend on a free port of 127.0.0.1, with CPU
zeros in place of the meta tensors the interpreter built, and makes the cell's call there. The collective's own
checks judge it — a root rank outside the world (``broadcast(src=1)``), an output list of another length than the
world (``all_gather``, ``scatter``), split sizes of another length (``all_to_all_single``), ranks beyond the world
(``new_group``), a timeout that is not a ``timedelta`` (``init_process_group``, ``monitored_barrier``). A group of
several processes is never started (its child would wait for the others): those calls stay unknown, and so does every
call when the cell's group was not started from known values. A call whose child dies (``send`` to a rank the group
does not have crashes gloo in torch 2.13) or does not answer within ``in_child.TIMEOUT`` (killed) stays unknown, and
that collective is not asked again. The backend's name is read elsewhere
(npulab.lint.distributed); here any backend becomes ``gloo``, the one torch's CPU build has. A store the cell builds
(``TCPStore``, ``FileStore``, ``HashStore``) is never built in lint's process (a TCPStore server listens on a port):
it stands for a store (StoreStandIn), which the child replaces by an in-memory ``HashStore`` — any store serves a group
of one — so ``init_process_group``'s own checks of the store beside the other arguments run ("Cannot specify both
init_method and store").
"""

from __future__ import annotations

import socket
import types

INIT = "init_process_group"


class Namespace:
    """``torch.distributed`` as a cell sees it: each public function becomes a Collective; nothing else is handed out."""

    def member(self, name: str):
        import torch.distributed as dist

        value = getattr(dist, name, None)
        if isinstance(value, type) and issubclass(value, dist.Store) and value is not dist.Store:
            return StoreClass(name)
        if name.startswith("_") or not isinstance(value, types.FunctionType):
            return None
        return Collective(value, name)


class StoreClass:
    """A store class of torch.distributed: calling it gives a StoreStandIn (its arguments are not judged)."""

    def __init__(self, name: str):
        self.name = name

    def stand_in(self) -> StoreStandIn:
        return StoreStandIn(self.name)


class StoreStandIn:
    """A store the cell built, handed to ``init_process_group``; an in-memory HashStore in the child."""

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:  # in_child keeps outcomes by the arguments' repr
        return f"StoreStandIn({self.name})"


class Collective:
    """A torch.distributed function: run only in a forked child, in a one-rank group."""

    def __init__(self, function, name: str):
        self.function, self.name = function, name


def one_rank(args: tuple, kwargs: dict) -> bool:
    """Whether ``init_process_group``'s arguments start a group of this process alone."""
    return kwargs.get("world_size") == 1 and kwargs.get("rank", 0) == 0 and len(args) <= 1 \
        and (kwargs.get("store") is None or isinstance(kwargs.get("store"), StoreStandIn))


def outcome(group: tuple | None, collective: Collective, args: tuple, kwargs: dict) -> dict | None:
    """What the call did in a forked child (npulab.lint.in_child): ``init_process_group`` alone, or another call after
    the cell's one-rank ``group`` (its init arguments) was started. None: not asked (no one-rank group, no answer)."""
    from npulab.lint import in_child

    if collective.name == INIT:
        if not one_rank(args, kwargs):
            return None
        return in_child.outcome(_in_group, (None, collective.function, args, kwargs), {}, _slow_key(collective))
    if group is None:
        return None
    return in_child.outcome(_in_group, (group, collective.function, args, kwargs), {}, _slow_key(collective))


def _slow_key(collective: Collective) -> str:
    """A collective whose child died or hung (``send(t, dst=1)`` in a group of one) is not asked again; others still are."""
    return f"torch.distributed.{collective.name}"


def _free_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"tcp://127.0.0.1:{sock.getsockname()[1]}"


def _on_gloo(args: tuple, kwargs: dict) -> tuple[tuple, dict]:
    """The cell's init arguments with the gloo backend and a free local port (its own URL may be taken or remote)."""
    import torch.distributed as dist

    kwargs = {k: v for k, v in kwargs.items() if k != "device_id"}
    kwargs["init_method"] = _free_url() if "init_method" in kwargs or "store" not in kwargs else None
    if isinstance(kwargs.get("store"), StoreStandIn):
        kwargs["store"] = dist.HashStore()
    kwargs.pop("backend", None)
    return ("gloo",), kwargs


def _on_cpu(value):
    """Meta tensors (and lists of them) as CPU zeros of the same shape and dtype."""
    import torch

    if isinstance(value, torch.Tensor):
        return torch.zeros(value.shape, dtype=value.dtype)
    if isinstance(value, (list, tuple)):
        return type(value)(_on_cpu(v) for v in value)
    return value


def _in_group(group: tuple | None, function, args: tuple, kwargs: dict) -> None:
    """In the child: start the cell's one-rank group (or, for ``init_process_group`` itself, the call) and call."""
    import torch.distributed as dist

    if group is None:
        init_args, init_kwargs = _on_gloo(args, kwargs)
        function(*init_args, **init_kwargs)
        return
    init_args, init_kwargs = _on_gloo(*group)
    dist.init_process_group(*init_args, **init_kwargs)
    function(*_on_cpu(args), **{k: _on_cpu(v) for k, v in kwargs.items()})
