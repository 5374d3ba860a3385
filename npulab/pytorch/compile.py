"""torch.compile, measured: compile time kept apart from the steady state, compilations counted, memory by formula.

- ``compare_compile`` times the first call on its own (``npulab.core.timing.time_steps``) (that is where compilation happens) and then the
  steady state with ``npulab.core.timing.benchmark`` (warm-up, device sync before every clock read, median), so the
  compile time never leaks into the steady-state median;
- ``CompileCounter`` is a ``torch.compile`` backend that only counts the graphs Dynamo hands it (and runs them
  as they are), which makes graph breaks and recompilations cheap to see on any device;
- ``mlp_step_memory`` derives what a training step of the lesson's MLP holds (weights, gradients, optimizer
  state, activations saved for backward), and ``measure_step_memory`` counts the same things on real tensors.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import torch
import torch.nn.functional as F
from torch import nn

from npulab.core.comparison import FASTER, NOISY, SAME, SLOWER, Verdict, between
from npulab.core.device import Device, synchronize
from npulab.core.i18n import t
from npulab.core.provenance import Figure, derive, derived, measured
from npulab.core.timing import StepTimes, Timing, benchmark, time_steps

# --- the lesson's model ---------------------------------------------------------------------------------


class MLPBlock(nn.Module):
    """The feed-forward half of a transformer layer: ``x + W₂·GELU(W₁·LayerNorm(x))``."""

    def __init__(self, dim: int, hidden: int):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.up = nn.Linear(dim, hidden)
        self.down = nn.Linear(hidden, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.down(F.gelu(self.up(self.norm(x))))


def mlp_model(dim: int, hidden: int, depth: int) -> nn.Sequential:
    """``depth`` MLP blocks in a row."""
    return nn.Sequential(*(MLPBlock(dim, hidden) for _ in range(depth)))


def mlp_parameters(dim: int, hidden: int, depth: int) -> int:
    """Parameters of ``mlp_model``: per block LayerNorm 2·d, up d·h + h, down h·d + d."""
    return depth * (2 * dim + dim * hidden + hidden + hidden * dim + dim)


def make_train_step(model: nn.Module, optimizer: torch.optim.Optimizer, x: torch.Tensor, target: torch.Tensor,
                    forward: Callable[[torch.Tensor], torch.Tensor] | None = None) -> Callable[[], torch.Tensor]:
    """One training step (zero_grad → forward → MSE loss → backward → optimizer step) on a fixed batch.

    ``forward`` defaults to ``model``; pass ``torch.compile(model)`` to compile forward and backward while the
    optimizer stays in eager mode (the torch_npu documentation advises that optimizers usually stay out of graphs).
    """
    run = forward if forward is not None else model

    def step() -> torch.Tensor:
        optimizer.zero_grad(set_to_none=True)
        loss = F.mse_loss(run(x), target)
        loss.backward()
        optimizer.step()
        return loss.detach()

    return step


# --- compile time versus steady state -----------------------------------------------------------------------


@dataclass(frozen=True)
class CompileComparison:
    """The same step in eager mode and compiled."""

    eager: StepTimes
    compiled: StepTimes
    backend: str = "inductor"

    @property
    def compile_time(self) -> float:
        """Seconds: compiled first call − compiled steady median (what compiling cost, one run subtracted)."""
        return self.compiled.one_off_s

    @property
    def speedup(self) -> float:
        """Eager steady median / compiled steady median (> 1: the compiled step is faster)."""
        return self.eager.steady.median / self.compiled.steady.median

    @property
    def saving(self) -> float:
        """Seconds saved per step once compiled (negative: compiling made the step slower)."""
        return self.eager.steady.median - self.compiled.steady.median

    @property
    def break_even_steps(self) -> float | None:
        """Steps after which the compile time is paid back: compile time / saving; None unless the verdict is that
        the compiled step is faster (slower, the same within the margin, or too noisy to tell: no payback to state)."""
        return self.compile_time / self.saving if self.verdict().verdict == FASTER else None

    def verdict(self, margin: float = 0.1) -> Verdict:
        """Is the compiled steady step faster than eager's? Chosen from the intervals of the two medians."""
        compile_s = self.compile_time
        payback = self.compile_time / self.saving if self.saving > 0 else float("inf")
        words = {
            FASTER: t("pt.compile_faster"),
            SLOWER: t("pt.compile_slower"),
            SAME: t("pt.compile_same"),
            NOISY: t("pt.compile_noisy"),
        }
        return between("compile_payback", self.eager.steady, self.compiled.steady, a="eager", b=t("pt.compiled"),
                       margin=margin, words=words, compile_s=compile_s, payback=payback)

    def figures(self, device: object) -> list[Figure]:
        """Measured and derived figures for ``npulab.core.provenance.show``."""
        e, c = self.eager, self.compiled
        ms = 1e3
        e_steady = measured(t("pt.eager_steady"), round(e.steady.median * ms, 3), "ms", device,
                            t("pt.repeats_spread", repeats=len(e.steady.times), spread=e.steady.spread))
        c_first = measured(t("pt.compiled_first", backend=self.backend), round(c.first_s * ms, 1), "ms", device,
                           t("pt.compiled_first_note"))
        c_steady = measured(t("pt.compiled_steady", backend=self.backend), round(c.steady.median * ms, 3), "ms", device,
                            t("pt.repeats_spread", repeats=len(c.steady.times), spread=c.steady.spread))
        compile_ms = derive(t("pt.compile_time"), "t_first - t_steady", "ms", digits=5, note=t("pt.compile_time_note"),
                            t_first=c_first, t_steady=c_steady)
        rows = [
            measured(t("pt.eager_first"), round(e.first_s * ms, 2), "ms", device, t("pt.eager_first_note")),
            e_steady, c_first, c_steady, compile_ms,
            derive(t("pt.steady_speedup"), "t_eager / t_compiled", "×", digits=3, t_eager=e_steady, t_compiled=c_steady),
        ]
        judged = self.verdict().verdict
        if judged == FASTER:
            rows.append(derive(t("pt.payback_steps"), "t_compile / (t_eager - t_compiled)", t("pt.steps_unit"), digits=3,
                               t_compile=compile_ms, t_eager=e_steady, t_compiled=c_steady))
        elif judged == SLOWER:  # no arithmetic to show: the step got slower, so the cost is never paid back
            rows.append(derived(t("pt.payback_steps"), float("inf"), t("pt.steps_unit"), t("pt.payback_never_how"),
                                t("pt.payback_never_note")))
        # SAME or NOISY: no payback row; the verdict under the table says why
        return rows


def _time(step: Callable[[], object], device: Device | str, warmup: int, repeats: int, label: str) -> StepTimes:
    """The course's step timer: first call alone (compilation happens there), ``warmup`` more, then the median."""
    return time_steps(step, sync=lambda: synchronize(device), warmup=warmup + 1, repeats=repeats, label=label,
                      device=device)


def compare_compile(model: nn.Module, x: torch.Tensor, target: torch.Tensor, device: Device, *,
                    backend: str = "inductor", warmup: int = 2, repeats: int = 10, lr: float = 1e-3,
                    **compile_kwargs) -> CompileComparison:
    """Eager versus ``torch.compile(model, backend=...)`` for one training step (Adam), from the same weights."""
    import copy

    twin = copy.deepcopy(model)  # both runs start from the same weights
    eager_step = make_train_step(model, torch.optim.Adam(model.parameters(), lr=lr), x, target)
    eager = _time(eager_step, device, warmup, repeats, "eager")
    compiled_forward = torch.compile(twin, backend=backend, **compile_kwargs)
    compiled_step = make_train_step(twin, torch.optim.Adam(twin.parameters(), lr=lr), x, target, compiled_forward)
    compiled = _time(compiled_step, device, warmup, repeats, f"compiled ({backend})")
    return CompileComparison(eager, compiled, backend)


# --- graph breaks and recompilations ----------------------------------------------------------------------------


@dataclass
class CompileCounter:
    """A ``torch.compile`` backend that counts the graphs it receives and runs each as it is (no code generation).

    ``signatures`` keeps, per graph, the shapes of its tensor inputs other than parameters.

    >>> counter = CompileCounter()
    >>> f = torch.compile(lambda x: x.sin() + 1, backend=counter)
    >>> _ = f(torch.ones(3)); _ = f(torch.ones(3))
    >>> counter.graphs
    1
    """

    graphs: int = 0
    signatures: list[str] = field(default_factory=list)

    def __call__(self, gm: torch.fx.GraphModule, example_inputs: Sequence[object]):
        self.graphs += 1
        shapes = []
        placeholders = [node for node in gm.graph.nodes if node.op == "placeholder"]
        for node, example in zip(placeholders, example_inputs, strict=False):
            value = node.meta.get("example_value")  # as Dynamo traced it: a symbol such as s0 is a dynamic size
            if isinstance(value, torch.Tensor) and not isinstance(example, nn.Parameter):  # data, not weights
                shapes.append("(" + ", ".join(str(s) for s in value.shape) + ")")
        self.signatures.append(", ".join(shapes))
        return gm.forward


@dataclass(frozen=True)
class CompileLog:
    """Compilations after each call of a compiled function fed with different inputs."""

    shapes: tuple[tuple[int, ...], ...]  # the input shape of each call
    graphs_after: tuple[int, ...]  # cumulative number of compiled graphs after each call
    signatures: tuple[str, ...]  # the shapes each compiled graph was specialised for (symbols such as s0 = dynamic)

    @property
    def compilations(self) -> int:
        return self.graphs_after[-1] if self.graphs_after else 0


def count_compilations(fn: Callable, inputs: Sequence[torch.Tensor], *, dynamic: bool | None = None,
                       mark_dynamic_dim: int | None = None) -> CompileLog:
    """Compile ``fn`` with a ``CompileCounter`` and call it on each input; count graphs after each call.

    ``mark_dynamic_dim`` marks that dimension of every input dynamic (``torch._dynamo.mark_dynamic``) before the
    call. Dynamo's caches are reset first (``torch._dynamo.reset()``), so the count starts at zero.
    """
    torch._dynamo.reset()
    counter = CompileCounter()
    compiled = torch.compile(fn, backend=counter, dynamic=dynamic)
    after = []
    for x in inputs:
        if mark_dynamic_dim is not None:
            torch._dynamo.mark_dynamic(x, mark_dynamic_dim)
        compiled(x)
        after.append(counter.graphs)
    return CompileLog(tuple(tuple(x.shape) for x in inputs), tuple(after), tuple(counter.signatures))


def bucket_size(n: int, buckets: Sequence[int]) -> int:
    """The smallest bucket ≥ n; ValueError when n is larger than every bucket."""
    for b in sorted(buckets):
        if n <= b:
            return b
    raise ValueError(t("pt.bucket_too_small", n=n, largest=max(buckets)))


def pad_to_bucket(x: torch.Tensor, buckets: Sequence[int], dim: int = 0) -> torch.Tensor:
    """``x`` padded with zeros along ``dim`` to the next bucket size, so a compiled function sees few shapes."""
    size = bucket_size(x.shape[dim], buckets)
    if size == x.shape[dim]:
        return x
    pad_shape = list(x.shape)
    pad_shape[dim] = size - x.shape[dim]
    return torch.cat([x, x.new_zeros(pad_shape)], dim=dim)


@dataclass(frozen=True)
class GraphBreaks:
    """What ``torch._dynamo.explain`` found: graphs, breaks, and why it broke."""

    graphs: int
    breaks: int
    reasons: tuple[str, ...]


def explain(fn: Callable, *args) -> GraphBreaks:
    """Run ``torch._dynamo.explain`` on ``fn(*args)``; reasons are cut to their first line."""
    out = torch._dynamo.explain(fn)(*args)
    reasons = tuple(str(getattr(r, "reason", r)).strip().splitlines()[0] for r in out.break_reasons)
    return GraphBreaks(out.graph_count, out.graph_break_count, reasons)


# --- per-op launch overhead (what graph capture removes) --------------------------------------------------------


def op_chain(x: torch.Tensor, ops: int) -> torch.Tensor:
    """``ops`` tiny element-wise operations in a row: almost no arithmetic, one launch (dispatch) each."""
    for _ in range(ops):
        x = x * 1.0001 + 0.0001
    return x


@dataclass(frozen=True)
class LaunchOverhead:
    """Time of a chain of tiny ops, per op: on tiny tensors this is almost all host-side dispatch and launch."""

    ops: int  # operators launched per chain (two per op_chain step: a multiply and an add)
    timing: Timing

    @property
    def per_op(self) -> float:
        """Seconds per launched operator: chain median / operators."""
        return self.timing.median / self.ops


def launch_overhead(device: Device, *, steps: int = 100, warmup: int = 3, repeats: int = 10) -> LaunchOverhead:
    """Median time of ``op_chain`` on a 1-element tensor on ``device`` (2·steps operators per chain)."""
    x = torch.ones(1, device=device.torch)
    timing = benchmark(lambda: op_chain(x, steps), device, warmup=warmup, repeats=repeats, label=t("pt.small_ops", ops=2 * steps))
    return LaunchOverhead(2 * steps, timing)


def count_ops(fn: Callable[[], object]) -> int:
    """Operators (ATen calls) that ``fn()`` dispatches: in eager mode each is one launch on an accelerator."""
    from torch.utils._python_dispatch import TorchDispatchMode

    class _Count(TorchDispatchMode):
        calls = 0

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            _Count.calls += 1
            return func(*args, **(kwargs or {}))

    with _Count():
        fn()
    return _Count.calls


@dataclass(frozen=True)
class GraphReplay:
    """The same op chain run op by op (eager) and replayed from a captured CUDA graph."""

    eager: LaunchOverhead
    replay: LaunchOverhead

    @property
    def speedup(self) -> float:
        return self.eager.timing.median / self.replay.timing.median


def cuda_graph_replay(device: Device, *, steps: int = 100, warmup: int = 3, repeats: int = 10) -> GraphReplay:
    """Capture ``op_chain`` once in a ``torch.cuda.CUDAGraph`` and compare replaying it with eager launches.

    The static input buffer is updated with ``copy_()`` before each replay: a graph replays the captured
    addresses, so new data must be written into the captured tensor, never bound to a new one.
    """
    if device.kind != "cuda":
        raise ValueError(t("pt.cuda_graph_device", device=device.kind))
    eager = launch_overhead(device, steps=steps, warmup=warmup, repeats=repeats)
    static_in = torch.ones(1, device=device.torch)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # warm up on a side stream before capture, as the CUDA graph docs ask
        op_chain(static_in, steps)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        static_out = op_chain(static_in, steps)
    fresh = torch.full((1,), 2.0, device=device.torch)

    def replay():
        static_in.copy_(fresh)
        graph.replay()

    timing = benchmark(replay, device, warmup=warmup, repeats=repeats, label=t("pt.cuda_graph_replay", ops=2 * steps))
    expected = op_chain(fresh.clone(), steps)
    if not torch.allclose(static_out, expected):
        raise RuntimeError(t("pt.cuda_graph_mismatch"))
    return GraphReplay(eager, LaunchOverhead(2 * steps, timing))


# --- memory of a training step ---------------------------------------------------------------------------------

OPTIMIZER_STATES = {"sgd": 0, "momentum": 1, "adam": 2}  # values of optimizer state per parameter


@dataclass(frozen=True)
class StepMemory:
    """Bytes a training step holds, by kind."""

    weights: int
    gradients: int
    optimizer_state: int
    activations: int  # tensors saved by the forward pass for the backward pass

    @property
    def total(self) -> int:
        return self.weights + self.gradients + self.optimizer_state + self.activations

    def as_dict(self) -> dict[str, int]:
        return {"weights": self.weights, "gradients": self.gradients, "optimizer_state": self.optimizer_state,
                "activations": self.activations, "total": self.total}


def mlp_step_memory(dim: int, hidden: int, depth: int, batch: int, *, optimizer: str = "adam",
                    bytes_per_value: int = 4) -> StepMemory:
    """What a training step of ``mlp_model`` holds, by formula (P = ``mlp_parameters``, b = bytes per value).

    weights P·b; gradients P·b; optimizer state k·P·b (k = 0 SGD, 1 momentum, 2 Adam) plus, for Adam, one
    4-byte step counter per parameter tensor (6 per block); activations per block: LayerNorm keeps its input
    (B·d) and its mean and 1/σ (2·B), the first Linear its input (B·d), GELU its input (B·h), the second Linear
    its input (B·h): B·(2d + 2h + 2)·b per block (the residual add saves nothing); the MSE loss keeps the model
    output and the target: 2·B·d·b. The input batch counts too: the first LayerNorm saves it.
    """
    if optimizer not in OPTIMIZER_STATES:
        raise ValueError(t("pt.bad_optimizer", choices=t("pt.list_separator").join(OPTIMIZER_STATES), optimizer=repr(optimizer)))
    p = mlp_parameters(dim, hidden, depth)
    state = OPTIMIZER_STATES[optimizer] * p * bytes_per_value + (4 * 6 * depth if optimizer == "adam" else 0)
    activations = (depth * batch * (2 * dim + 2 * hidden + 2) + 2 * batch * dim) * bytes_per_value
    return StepMemory(p * bytes_per_value, p * bytes_per_value, state, activations)


def _storage_key(t: torch.Tensor) -> tuple[int, int]:
    storage = t.untyped_storage()
    return storage.data_ptr(), storage.nbytes()


def saved_activation_bytes(fn: Callable[[], torch.Tensor], exclude: Sequence[torch.Tensor] = ()) -> int:
    """Bytes of the distinct tensors autograd saves for backward while ``fn()`` runs (``exclude``: the weights)."""
    skip = {_storage_key(t) for t in exclude}
    seen: dict[tuple[int, int], int] = {}

    def pack(t: torch.Tensor):
        key = _storage_key(t)
        if key not in skip:
            seen[key] = key[1]
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        out = fn()
    del out
    return sum(seen.values())


def _tensor_bytes(tensors) -> int:
    return sum(t.numel() * t.element_size() for t in tensors if isinstance(t, torch.Tensor))


@dataclass(frozen=True)
class MeasuredMemory:
    """A training step's memory counted on real tensors, plus the allocator's peak where the device has one."""

    counted: StepMemory
    peak_allocated: int | None  # bytes, max_memory_allocated during one step above what was allocated before it


def measure_step_memory(model: nn.Module, optimizer: torch.optim.Optimizer, x: torch.Tensor, target: torch.Tensor,
                        device: Device) -> MeasuredMemory:
    """Count weights, gradients, optimizer state and saved activations of one real step; read the allocator's peak.

    The activations are counted with ``torch.autograd.graph.saved_tensors_hooks`` during the forward pass and the
    loss; the other kinds by summing their tensors after one full step (Adam creates its state on the first step).
    """
    step = make_train_step(model, optimizer, x, target)
    step()  # creates gradients and optimizer state
    params = list(model.parameters())
    optimizer.zero_grad(set_to_none=True)
    activations = saved_activation_bytes(lambda: F.mse_loss(model(x), target), exclude=params)
    peak = None
    if device.is_accelerator:
        api = getattr(torch, device.kind)
        synchronize(device)
        before = api.memory_allocated(device.torch)
        api.reset_peak_memory_stats(device.torch)
        step()
        synchronize(device)
        peak = int(api.max_memory_allocated(device.torch) - before)
    else:
        step()
    state = [v for s in optimizer.state.values() for v in s.values()]
    counted = StepMemory(_tensor_bytes(params), _tensor_bytes(p.grad for p in params), _tensor_bytes(state), activations)
    return MeasuredMemory(counted, peak)
