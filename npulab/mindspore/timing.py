"""Fair timing of a whole training step in MindSpore (PyNative, GRAPH_MODE, PyNative + ``@ms.jit``) and PyTorch.

The method is the same for every mode and both frameworks (``time_steps``):

1. compile, where the mode has an explicit compile step (``Cell.compile`` in GRAPH_MODE), timed on its own;
2. the first call, timed on its own: it still contains one-off work (the ``@ms.jit`` compile, memory pools);
3. untimed warm-up calls;
4. timed calls, each one ending with a device synchronisation *inside* the timed region, so that an
   asynchronous launch (MindSpore's PyNative dispatches asynchronously, as do NPUs and GPUs) is not
   mistaken for the work; the median is reported with all repeats kept.

The seed article timed ``grad_fn(...) + optimizer(grads)`` with no synchronisation and read the loss
only after stopping the clock, so its MindSpore step times are not comparable with its PyTorch ones.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator, Mapping

import mindspore as ms
import mindspore.dataset as msds
import numpy as np
from mindspore import nn

from npulab.core.comparison import FASTER, NOISY, SAME, SLOWER, Verdict, between
from npulab.core.i18n import t
from npulab.core.timing import StepTimes, Timing, benchmark, time_steps  # noqa: F401  (re-exported for lessons)
from npulab.mindspore import runtime as ms_env


class _Modes(Mapping):
    """The execution modes and their titles, in the reader's language when read (``npulab.core.i18n``)."""

    _TITLES = {
        "pynative": lambda: t("ms.mode_pynative"),
        "graph": lambda: t("ms.mode_graph"),
        "jit": lambda: t("ms.mode_jit"),
    }

    def __getitem__(self, mode: str) -> str:
        return self._TITLES[mode]()

    def __iter__(self) -> Iterator[str]:
        return iter(self._TITLES)

    def __len__(self) -> int:
        return len(self._TITLES)

    def __repr__(self) -> str:
        return repr(dict(self))


MODES = _Modes()


def compare(a: StepTimes | Timing, a_name: str, b: StepTimes | Timing, b_name: str, margin: float = 0.1) -> Verdict:
    """Say which of two measurements is faster, only when the intervals of their medians part (``between``).

    ``str()`` of the result is the Chinese sentence; ``.show("判定：")`` prints it with its numbers as output metadata.
    """
    ta = a.steady if isinstance(a, StepTimes) else a
    tb = b.steady if isinstance(b, StepTimes) else b
    words = {
        FASTER: t("ms.compare_faster"),
        SLOWER: t("ms.compare_slower"),
        SAME: t("ms.compare_same"),
        NOISY: t("ms.compare_noisy"),
    }
    return between("ms_compare", ta, tb, a=a_name, b=b_name, margin=margin, words=words, ma=ta.median, mb=tb.median)


@contextlib.contextmanager
def execution_mode(mode: int) -> Iterator[None]:
    """Temporarily switch MindSpore's execution mode (``ms.GRAPH_MODE`` / ``ms.PYNATIVE_MODE``)."""
    previous = ms.get_context("mode")
    ms.set_context(mode=mode)
    try:
        yield
    finally:
        ms.set_context(mode=previous)


def train_step_fn(net: nn.Cell, loss_fn: nn.Cell, optimizer: nn.Optimizer) -> Callable[[ms.Tensor, ms.Tensor], ms.Tensor]:
    """The whole training step as one function: forward, loss, gradients (``ms.value_and_grad``), update."""

    def forward(images, labels):
        return loss_fn(net(images), labels)

    grad_fn = ms.value_and_grad(forward, None, optimizer.parameters)

    def train_step(images, labels):
        loss, grads = grad_fn(images, labels)
        optimizer(grads)
        return loss

    return train_step


def time_ms_mode(
    mode: str,
    build_net: Callable[[], nn.Cell],
    images: np.ndarray,
    labels: np.ndarray,
    *,
    warmup: int = 1,
    repeats: int = 3,
    lr: float = 0.01,
    momentum: float = 0.9,
) -> StepTimes:
    """Time a MindSpore training step (SGD with momentum, mean cross-entropy) in ``mode`` (a key of ``MODES``).

    The network is built *after* the mode is set (BatchNorm is implemented differently in the two modes), and
    compile files go to a temporary directory.
    """
    if mode not in MODES:
        raise ValueError(t("ms.unknown_mode", mode=repr(mode), modes=", ".join(MODES)))
    x, y = ms.Tensor(np.ascontiguousarray(images, np.float32)), ms.Tensor(np.asarray(labels, np.int32))
    losses: list[ms.Tensor] = []
    with ms_env.scratch_cwd(), execution_mode(ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE):
        net = build_net()
        loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        optimizer = nn.SGD(net.trainable_params(), learning_rate=lr, momentum=momentum)
        compile_fn = None
        if mode == "graph":
            cell = nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn), optimizer)
            cell.set_train()
            step_fn = cell

            def compile_fn():
                return cell.compile(x, y)
        else:
            net.set_train()
            step_fn = train_step_fn(net, loss_fn, optimizer)
            if mode == "jit":
                step_fn = ms.jit(step_fn)
        times = time_steps(lambda: losses.append(step_fn(x, y)), sync=ms_env.synchronize, warmup=warmup,
                           repeats=repeats, compile=compile_fn, label=f"MindSpore {MODES[mode]}",
                           device=ms.get_context("device_target"))
    return StepTimes(times.label, times.compile_s, times.first_s, times.steady, tuple(float(v.asnumpy()) for v in losses))


def time_torch_step(
    model,
    images: np.ndarray,
    labels: np.ndarray,
    device,
    *,
    warmup: int = 1,
    repeats: int = 3,
    lr: float = 0.01,
    momentum: float = 0.9,
) -> StepTimes:
    """Time the same training step in PyTorch (eager) on ``device`` (an ``npulab.core.device.Device``), same method.

    ``model`` is moved to ``device`` and trained in place (pass a copy to keep the original weights).
    """
    import torch

    from npulab.core.device import synchronize

    model = model.to(device.torch).train()
    x = torch.from_numpy(np.ascontiguousarray(images, np.float32)).to(device.torch)
    y = torch.from_numpy(np.asarray(labels)).long().to(device.torch)
    optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=momentum)
    loss_fn = torch.nn.CrossEntropyLoss()
    losses: list = []

    def step():
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        losses.append(loss.detach())

    times = time_steps(step, sync=lambda: synchronize(device), warmup=warmup, repeats=repeats,
                       label="PyTorch eager", device=device.torch)
    return StepTimes(times.label, None, times.first_s, times.steady, tuple(float(v.cpu()) for v in losses))


# ---------------------------------------------------------------------------------------------------------------
# Input pipelines
# ---------------------------------------------------------------------------------------------------------------


def generator_dataset(images: np.ndarray, labels: np.ndarray, batch: int) -> msds.Dataset:
    """A ``GeneratorDataset`` that yields one sample at a time from Python (the seed's kind of pipeline)."""

    def samples():
        for i in range(len(images)):
            yield images[i], labels[i]

    return msds.GeneratorDataset(samples, ["image", "label"], shuffle=False).batch(batch, drop_remainder=True)


def random_generator_dataset(count: int, image_size: int, batch: int, classes: int = 1000) -> msds.Dataset:
    """Like the seed's pipeline: every sample is drawn from NumPy's normal distribution inside the generator."""

    def samples():
        rng = np.random.default_rng(0)
        for i in range(count):
            yield rng.standard_normal((3, image_size, image_size), dtype=np.float32), np.int32(i % classes)

    return msds.GeneratorDataset(samples, ["image", "label"], shuffle=False).batch(batch, drop_remainder=True)


def memory_dataset(images: np.ndarray, labels: np.ndarray, batch: int) -> msds.Dataset:
    """A ``NumpySlicesDataset`` over arrays already in memory (sliced in C++, no Python per sample)."""
    return msds.NumpySlicesDataset({"image": images, "label": labels}, shuffle=False).batch(batch, drop_remainder=True)


def time_pipeline(dataset: msds.Dataset, label: str = "", *, warmup: int = 1, repeats: int = 3,
                  clock: Callable[[], float] = time.perf_counter) -> Timing:
    """Seconds per batch to drain ``dataset`` with a consumer that does nothing (the pipeline's own throughput).

    Each repeat is one full pass (a fresh iterator, so start-up and prefetching are included), divided by
    the number of batches; ``warmup`` passes are not timed.
    """
    counts: list[int] = []

    def one_pass() -> None:
        counts.append(sum(1 for _ in dataset.create_tuple_iterator(num_epochs=1)))

    whole = benchmark(one_pass, "host", warmup=warmup, repeats=repeats, label=label, clock=clock, sync=lambda: None)
    batches = counts[-1]
    if batches < 1:
        raise ValueError(t("ms.no_full_batch"))
    return Timing(tuple(t / batches for t in whole.times), warmup, "host", label, {"batches": batches})
