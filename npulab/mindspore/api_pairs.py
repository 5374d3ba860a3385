"""The seed's PyTorch ↔ MindSpore API table as data, each pair executed in both frameworks and compared.

Every row runs the PyTorch call and today's MindSpore call with the same weights and inputs and
compares the outputs numerically (``check(key)``); where a literal translation goes wrong (padding,
bias, BatchNorm momentum, loss defaults, accumulated gradients …), the row also measures what the
wrong version gives, so a lesson can show it instead of asserting it. The seed lists 16 rows (its
text says 15); two rows are added (train/eval switch, checkpoints). Facts checked against MindSpore
2.10.0; defaults are read from the installed version at run time, not written down.
"""

from __future__ import annotations

import inspect
import os
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import mindspore as ms
import numpy as np
import torch
from mindspore import nn

from npulab.core.display import Table
from npulab.core.i18n import localized, t
from npulab.mindspore import convert as ms_convert
from npulab.mindspore import runtime as ms_env
from npulab.mindspore import timing as ms_timing

# ---------------------------------------------------------------------------------------------------------------
# Results
# ---------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Comparison:
    """One numeric comparison: what was compared, the largest difference and the limit it must stay under."""

    what: str
    max_abs: float
    limit: float

    @property
    def ok(self) -> bool:
        return self.max_abs <= self.limit


@dataclass(frozen=True)
class PairResult:
    """The outcome of executing one pair in both frameworks."""

    key: str
    comparisons: tuple[Comparison, ...]
    pitfall: str = ""  # what the literal (wrong) translation gives, measured by the same run

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.comparisons)

    @property
    def max_abs(self) -> float:
        return max(c.max_abs for c in self.comparisons)

    def __str__(self) -> str:
        parts = t("ms.pair_separator").join(t("ms.pair_part", what=c.what, max_abs=c.max_abs, limit=c.limit)
                                            for c in self.comparisons)
        return (t("ms.pair_line", mark="✓" if self.ok else "✗", name=self.key, parts=parts)
                + (t("ms.pair_pitfall", pitfall=self.pitfall) if self.pitfall else ""))


def _diff(a, b) -> float:
    a = a.asnumpy() if isinstance(a, ms.Tensor) else a.detach().numpy() if isinstance(a, torch.Tensor) else np.asarray(a)
    b = b.asnumpy() if isinstance(b, ms.Tensor) else b.detach().numpy() if isinstance(b, torch.Tensor) else np.asarray(b)
    if a.shape != b.shape:
        return float("inf")
    return float(np.abs(a.astype(np.float64) - b.astype(np.float64)).max()) if a.size else 0.0


def _cmp(what: str, a, b, limit: float = 1e-5) -> Comparison:
    """Compare a PyTorch (CPU) result with a MindSpore one; the FP32 limit is relaxed off the CPU (see ms_env)."""
    return Comparison(what, _diff(a, b), limit * ms_env.precision_allowance())


def _rng(seed: int = 0) -> np.random.Generator:
    return np.random.default_rng(seed)


def _randn(*shape: int, seed: int = 0) -> np.ndarray:
    return _rng(seed).standard_normal(shape).astype(np.float32)


def _default(cls: type, name: str):
    """A constructor default of the installed version (so the page never states a stale default)."""
    return inspect.signature(cls.__init__).parameters[name].default


# ---------------------------------------------------------------------------------------------------------------
# Small networks defined in both frameworks with the same attribute names
# ---------------------------------------------------------------------------------------------------------------


class TorchMLP(torch.nn.Module):
    """6 → 8 → 3 with ReLU (PyTorch: ``nn.Module`` + ``forward``)."""

    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(6, 8)
        self.relu = torch.nn.ReLU()
        self.fc2 = torch.nn.Linear(8, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(self.relu(self.fc1(x)))


class MsMLP(nn.Cell):
    """The same network in MindSpore (``nn.Cell`` + ``construct``)."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(6, 8)
        self.relu = nn.ReLU()
        self.fc2 = nn.Dense(8, 3)

    def construct(self, x: ms.Tensor) -> ms.Tensor:
        return self.fc2(self.relu(self.fc1(x)))


def twin_mlps(seed: int = 0) -> tuple[TorchMLP, MsMLP]:
    """A PyTorch and a MindSpore MLP holding the same weights (the global torch RNG is left untouched)."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        pt = TorchMLP()
    net = MsMLP()
    ms_convert.load_torch_state_dict(net, pt.state_dict())
    return pt, net


def _set(param: ms.Parameter, value: torch.Tensor) -> None:
    param.set_data(ms.Tensor(value.detach().numpy().copy()))


# ---------------------------------------------------------------------------------------------------------------
# The checks, one per pair
# ---------------------------------------------------------------------------------------------------------------


def _check_cell() -> PairResult:
    pt, net = twin_mlps()
    x = _randn(5, 6)
    return PairResult("cell", (_cmp(t("ms.cmp_output", shape="(5, 3)"), pt(torch.from_numpy(x)), net(ms.Tensor(x))),))


def _check_conv2d() -> PairResult:
    x = _randn(2, 3, 8, 8)
    pt = torch.nn.Conv2d(3, 8, 3, stride=2, padding=1)  # PyTorch: bias=True by default
    m = nn.Conv2d(3, 8, 3, stride=2, pad_mode="pad", padding=1, has_bias=True)
    _set(m.weight, pt.weight)
    _set(m.bias, pt.bias)
    out_pt, out_ms = pt(torch.from_numpy(x)), m(ms.Tensor(x))
    literal_pt = torch.nn.Conv2d(3, 8, 3)
    literal_ms = nn.Conv2d(3, 8, 3)
    pitfall = t("ms.pitfall_conv2d", pt_shape=tuple(literal_pt(torch.from_numpy(x)).shape),
                ms_shape=tuple(literal_ms(ms.Tensor(x)).shape), pad_mode=repr(_default(nn.Conv2d, "pad_mode")),
                has_bias=_default(nn.Conv2d, "has_bias"))
    return PairResult("conv2d", (_cmp(t("ms.cmp_output", shape=tuple(out_pt.shape)), out_pt, out_ms),), pitfall)


def _check_batchnorm() -> PairResult:
    pt_momentum = 0.2
    pt = torch.nn.BatchNorm2d(4, momentum=pt_momentum)
    good = nn.BatchNorm2d(4, momentum=1 - pt_momentum)
    literal = nn.BatchNorm2d(4, momentum=pt_momentum)
    pt.train()
    good.set_train(True)
    literal.set_train(True)
    comparisons = []
    for step in range(3):
        x = _randn(4, 4, 5, 5, seed=step) * (step + 1) + step
        out_pt, out_ms = pt(torch.from_numpy(x)), good(ms.Tensor(x))
        literal(ms.Tensor(x))
        comparisons.append(_cmp(t("ms.cmp_train_batch", batch=step + 1), out_pt, out_ms))
    comparisons.append(_cmp("running_mean ↔ moving_mean", pt.running_mean, good.moving_mean))
    comparisons.append(_cmp(t("ms.cmp_running_var"), pt.running_var, good.moving_variance))
    pt.eval()
    good.set_train(False)
    x = _randn(2, 4, 5, 5, seed=9)
    comparisons.append(_cmp(t("ms.cmp_eval_output"), pt(torch.from_numpy(x)), good(ms.Tensor(x))))
    pitfall = t("ms.pitfall_batchnorm", momentum=pt_momentum, gap=_diff(pt.running_mean, literal.moving_mean),
                version=ms.__version__, default=_default(nn.BatchNorm2d, "momentum"))
    return PairResult("batchnorm", tuple(comparisons), pitfall)


def _check_relu() -> PairResult:
    x = _randn(3, 4)
    x_pt = torch.from_numpy(x.copy())
    out_pt = torch.nn.ReLU(inplace=True)(x_pt)
    out_ms = nn.ReLU()(ms.Tensor(x))
    changed = int((x_pt.numpy() != x).sum())
    pitfall = t("ms.pitfall_relu", changed=changed)
    return PairResult("relu", (_cmp(t("ms.cmp_output", shape="(3, 4)"), out_pt, out_ms),), pitfall)


def _check_maxpool() -> PairResult:
    x = -np.abs(_randn(2, 3, 7, 7))  # all negative: padding must act as −∞, not 0
    out_pt = torch.nn.MaxPool2d(3, 2, 1)(torch.from_numpy(x))
    out_ms = nn.MaxPool2d(3, 2, pad_mode="pad", padding=1)(ms.Tensor(x))
    literal = nn.MaxPool2d(3, 2)(ms.Tensor(x))
    pitfall = t("ms.pitfall_maxpool", pad_mode=repr(_default(nn.MaxPool2d, "pad_mode")), ms_shape=tuple(literal.shape),
                pt_shape=tuple(out_pt.shape))
    return PairResult("maxpool", (_cmp(t("ms.cmp_output_negative", shape=tuple(out_pt.shape)), out_pt, out_ms),), pitfall)


def _check_dense() -> PairResult:
    pt = torch.nn.Linear(6, 4)
    m = nn.Dense(6, 4)
    same_layout = tuple(m.weight.shape) == tuple(pt.weight.shape)
    _set(m.weight, pt.weight)  # no transpose: both store (out_features, in_features)
    _set(m.bias, pt.bias)
    x = _randn(5, 6)
    pitfall = t("ms.pitfall_dense", pt_shape=tuple(pt.weight.shape), ms_shape=tuple(m.weight.shape),
                verdict=t("ms.dense_same") if same_layout else t("ms.dense_different"))
    return PairResult("dense", (_cmp(t("ms.cmp_output", shape="(5, 4)"), pt(torch.from_numpy(x)), m(ms.Tensor(x))),), pitfall)


def _check_flatten() -> PairResult:
    x = _randn(2, 3, 4, 5)
    return PairResult("flatten", (_cmp(t("ms.cmp_output", shape="(2, 60)"), torch.nn.Flatten()(torch.from_numpy(x)), nn.Flatten()(ms.Tensor(x))),))


def _check_sequential() -> PairResult:
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(1)
        pt = torch.nn.Sequential(torch.nn.Linear(6, 8), torch.nn.ReLU(), torch.nn.Linear(8, 3))
    m = nn.SequentialCell([nn.Dense(6, 8), nn.ReLU(), nn.Dense(8, 3)])
    names = ms_convert.load_torch_state_dict(m, pt.state_dict())
    x = _randn(5, 6)
    pitfall = t("ms.pitfall_sequential", names=names)
    return PairResult("sequential", (_cmp(t("ms.cmp_output", shape="(5, 3)"), pt(torch.from_numpy(x)), m(ms.Tensor(x))),), pitfall)


def _check_sgd(steps: int = 5) -> PairResult:
    pt, net = twin_mlps(seed=2)
    x, y = _randn(8, 6, seed=3), (np.arange(8) % 3).astype(np.int32)
    opt_pt = torch.optim.SGD(pt.parameters(), lr=0.1, momentum=0.9)
    opt_ms = nn.SGD(net.trainable_params(), learning_rate=0.1, momentum=0.9)
    step = ms_timing.train_step_fn(net, nn.CrossEntropyLoss(), opt_ms)
    losses = []
    for _ in range(steps):
        opt_pt.zero_grad()
        loss_pt = torch.nn.functional.cross_entropy(pt(torch.from_numpy(x)), torch.from_numpy(y).long())
        loss_pt.backward()
        opt_pt.step()
        loss_ms = step(ms.Tensor(x), ms.Tensor(y))
        losses.append(_cmp("", loss_pt, loss_ms).max_abs)
    after = ms_convert.to_torch(net, pt.state_dict())
    weights = max(_diff(pt.state_dict()[k], after[k]) for k in after)
    try:
        nn.SGD(net.trainable_params(), lr=0.1)
        lr_keyword = t("ms.sgd_lr_accepted")
    except TypeError:
        lr_keyword = t("ms.sgd_lr_refused")
    limit = 1e-5 * ms_env.precision_allowance()
    return PairResult("sgd", (Comparison(t("ms.cmp_sgd_losses", steps=steps), max(losses), limit),
                              Comparison(t("ms.cmp_sgd_weights", steps=steps), weights, limit)),
                      t("ms.pitfall_sgd", version=ms.__version__, lr_keyword=lr_keyword))


def _check_cross_entropy() -> PairResult:
    logits, labels = _randn(6, 5, seed=4), (np.arange(6) % 5).astype(np.int32)
    ref = torch.nn.CrossEntropyLoss()(torch.from_numpy(logits), torch.from_numpy(labels).long())
    seed_form = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")(ms.Tensor(logits), ms.Tensor(labels))
    modern = nn.CrossEntropyLoss()(ms.Tensor(logits), ms.Tensor(labels))
    literal = nn.SoftmaxCrossEntropyWithLogits(sparse=True)(ms.Tensor(logits), ms.Tensor(labels))
    pitfall = t("ms.pitfall_cross_entropy", reduction=repr(_default(nn.SoftmaxCrossEntropyWithLogits, "reduction")),
                shape=tuple(literal.shape), sparse=_default(nn.SoftmaxCrossEntropyWithLogits, "sparse"))
    return PairResult("cross_entropy", (_cmp("SoftmaxCrossEntropyWithLogits(sparse=True, reduction='mean')", ref, seed_form),
                                        _cmp(t("ms.cmp_modern_loss"), ref, modern)), pitfall)


def _check_grad() -> PairResult:
    pt, net = twin_mlps(seed=5)
    x, y = _randn(8, 6, seed=6), (np.arange(8) % 3).astype(np.int32)
    loss_pt = torch.nn.functional.cross_entropy(pt(torch.from_numpy(x)), torch.from_numpy(y).long())
    loss_pt.backward()
    loss_fn = nn.CrossEntropyLoss()

    def forward(a, b):
        return loss_fn(net(a), b)

    weights = net.trainable_params()
    loss_ms, grads = ms.value_and_grad(forward, None, weights)(ms.Tensor(x), ms.Tensor(y))
    grads_pt = dict(pt.named_parameters())
    comparisons = [_cmp(t("ms.cmp_loss"), loss_pt, loss_ms)]
    comparisons += [_cmp(f"∂L/∂{w.name}", grads_pt[w.name].grad, g) for w, g in zip(weights, grads, strict=True)]
    first = grads_pt["fc1.weight"].grad.clone()
    torch.nn.functional.cross_entropy(pt(torch.from_numpy(x)), torch.from_numpy(y).long()).backward()  # no zero_grad
    ratio = float((grads_pt["fc1.weight"].grad / first).nanmean())
    pitfall = t("ms.pitfall_grad", ratio=ratio)
    return PairResult("grad", tuple(comparisons), pitfall)


def _check_synchronize() -> PairResult:
    a = _randn(512, 512, seed=7)
    ref = torch.from_numpy(a) @ torch.from_numpy(a)
    x = ms.Tensor(a)
    x @ x  # warm-up
    ms_env.synchronize()
    start = time.perf_counter()
    out = x @ x
    returned = time.perf_counter() - start
    ms_env.synchronize()
    finished = time.perf_counter() - start
    pitfall = t("ms.pitfall_synchronize", returned=returned * 1e3, finished=finished * 1e3)
    return PairResult("synchronize", (_cmp(t("ms.cmp_synchronized_matmul"), ref, out, 1e-3),), pitfall)


def _check_device() -> PairResult:
    used = ms_env.use_device()
    a = _randn(4, 4, seed=8)
    out_pt = torch.from_numpy(a).to("cpu") * 2
    out_ms = ms.Tensor(a) * 2
    return PairResult("device", (_cmp(t("ms.cmp_device", device=used), out_pt, out_ms),),
                      t("ms.pitfall_device", device=used))


def _check_tensor() -> PairResult:
    a = np.random.default_rng(0).standard_normal((3, 4))
    pt = torch.from_numpy(a.astype(np.float32))
    good = ms.Tensor(a.astype(np.float32))
    literal = ms.Tensor(a)
    rng_gap = _diff(torch.randn(3, 4, generator=torch.Generator().manual_seed(0)), ms.ops.randn(3, 4, seed=0))
    pitfall = t("ms.pitfall_tensor", ms_dtype=literal.dtype, pt_dtype=torch.randn(1).dtype, gap=rng_gap)
    return PairResult("tensor", (_cmp(t("ms.cmp_same_array"), pt, good, 0.0),), pitfall)


def _check_to_device() -> PairResult:
    a = _randn(2, 3, seed=10)
    target = ms.get_context("device_target")
    moved = ms.Tensor(a).to(target)  # MindSpore 2.10: Tensor.to(device); Tensor.move_to is deprecated (removed after 2.9.0)
    built = ms.Tensor(a, device=target)
    where = t("ms.to_device_where", moved=repr(moved.device), built=repr(built.device))
    return PairResult("to_device", (_cmp(f"Tensor.to({target!r})", torch.from_numpy(a).to("cpu"), moved, 0.0),
                                    _cmp(f"ms.Tensor(..., device={target!r})", torch.from_numpy(a), built, 0.0)),
                      t("ms.pitfall_to_device", where=where))


def _check_train_eval() -> PairResult:
    pt = torch.nn.BatchNorm2d(3)
    m = nn.BatchNorm2d(3)
    x = _randn(4, 3, 2, 2, seed=11) * 3 + 1
    pt.train()
    m.set_train(True)
    train = _cmp(t("ms.cmp_train_mode"), pt(torch.from_numpy(x)), m(ms.Tensor(x)))
    pt.eval()
    m.set_train(False)
    evaluation = _cmp(t("ms.cmp_eval_mode"), pt(torch.from_numpy(x)), m(ms.Tensor(x)))
    return PairResult("train_eval", (train, evaluation),
                      t("ms.pitfall_train_eval", gap=_diff(pt.train()(torch.from_numpy(x)), pt.eval()(torch.from_numpy(x)))))


def _check_checkpoint() -> PairResult:
    pt, net = twin_mlps(seed=12)
    with tempfile.TemporaryDirectory() as tmp:
        ms.save_checkpoint(net, os.path.join(tmp, "mlp.ckpt"))
        loaded = ms_convert.load_checkpoint(os.path.join(tmp, "mlp.ckpt"))
    fresh = MsMLP()
    ms.load_param_into_net(fresh, loaded)
    x = _randn(3, 6, seed=13)
    return PairResult("checkpoint", (_cmp(t("ms.cmp_checkpoint"), pt(torch.from_numpy(x)), fresh(ms.Tensor(x))),),
                      t("ms.pitfall_checkpoint", count=len(loaded), names=", ".join(sorted(loaded)[:2])))


# ---------------------------------------------------------------------------------------------------------------
# The table
# ---------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Pair:
    """One row of the API table: both frameworks' code, the seed's version if it differs, and its check."""

    key: str
    topic: str
    pytorch: str
    mindspore: str
    check: Callable[[], PairResult] = field(repr=False)
    seed: str = ""  # the seed's MindSpore code where today's differs
    note: str = ""
    in_seed: bool = True
    topic_en: str | None = None  # English twins of the Chinese fields (npulab.core.i18n.localized)
    note_en: str | None = None
    mindspore_en: str | None = None
    seed_en: str | None = None


PAIRS: tuple[Pair, ...] = (
    Pair("module", "网络基类", "nn.Module", "nn.Cell", _check_cell,
         note="子层写成属性；参数名就是属性路径，两个框架一致",
         topic_en="network base class",
         note_en="sub-layers are attributes; a parameter's name is its attribute path, the same in both frameworks"),
    Pair("forward", "前向计算", "def forward(self, x)", "def construct(self, x)", _check_cell,
         note="图模式下 construct 的第一个参数必须叫 self",
         topic_en="forward pass", note_en="in graph mode the first parameter of construct must be called self"),
    Pair("conv2d", "卷积", "nn.Conv2d(c_in, c_out, k, stride, padding=p)",
         "nn.Conv2d(c_in, c_out, k, stride, pad_mode='pad', padding=p, has_bias=True)", _check_conv2d,
         seed="nn.Conv2d(c_in, c_out, k, stride, pad_mode='pad', padding=p)",
         note="MindSpore 默认 pad_mode='same'、has_bias=False；PyTorch 默认 padding=0、bias=True",
         topic_en="convolution",
         note_en="MindSpore defaults to pad_mode='same', has_bias=False; PyTorch to padding=0, bias=True"),
    Pair("batchnorm", "批归一化", "nn.BatchNorm2d(c, momentum=m)", "nn.BatchNorm2d(c, momentum=1 - m)", _check_batchnorm,
         seed="nn.BatchNorm2d(c)",
         note="动量的含义相反：MindSpore 的 momentum 是旧值的权重。两边默认值（0.1 / 0.9）恰好等价，改动时要换算",
         topic_en="batch normalisation",
         note_en="momentum means the opposite: MindSpore's momentum is the weight of the old value. The two defaults "
                 "(0.1 / 0.9) happen to agree; convert when you change it"),
    Pair("relu", "激活", "nn.ReLU(inplace=True)", "nn.ReLU()", _check_relu, note="没有 inplace 参数",
         topic_en="activation", note_en="no inplace parameter"),
    Pair("maxpool", "最大池化", "nn.MaxPool2d(k, s, p)", "nn.MaxPool2d(k, s, pad_mode='pad', padding=p)", _check_maxpool,
         note="默认 pad_mode='valid'：不写 pad_mode 时 padding 不起作用",
         topic_en="max pooling", note_en="default pad_mode='valid': without pad_mode, padding has no effect"),
    Pair("dense", "全连接", "nn.Linear(in_f, out_f)", "nn.Dense(in_f, out_f)", _check_dense,
         note="权重都存成 (out, in)，迁移时不转置",
         topic_en="fully connected", note_en="both store the weight as (out, in): no transpose when porting"),
    Pair("flatten", "展平", "nn.Flatten()", "nn.Flatten()", _check_flatten, topic_en="flatten"),
    Pair("sequential", "顺序容器", "nn.Sequential(*layers)", "nn.SequentialCell(layers)", _check_sequential,
         note="列表或逐个传入都可以",
         topic_en="sequential container", note_en="pass a list or the layers one by one"),
    Pair("sgd", "优化器", "optim.SGD(params, lr, momentum)", "nn.SGD(params, learning_rate=lr, momentum=m)", _check_sgd,
         note="优化器本身是 Cell，用 optimizer(grads) 调用",
         topic_en="optimiser", note_en="the optimiser is itself a Cell, called as optimizer(grads)"),
    Pair("cross_entropy", "交叉熵损失", "nn.CrossEntropyLoss()",
         "nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction='mean') 或 nn.CrossEntropyLoss()", _check_cross_entropy,
         seed="nn.SoftmaxCrossEntropyWithLogits(sparse=True)", note="旧接口的默认 reduction 是 'none'",
         topic_en="cross-entropy loss", note_en="the old interface's default reduction is 'none'",
         mindspore_en="nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction='mean') or nn.CrossEntropyLoss()"),
    Pair("grad", "求梯度", "loss.backward()", "ms.value_and_grad(forward_fn, None, weights)(x, y)", _check_grad,
         note="函数式：返回 (loss, grads)，不改动参数，也不需要 zero_grad",
         topic_en="gradients", note_en="functional: returns (loss, grads), leaves the parameters alone, needs no zero_grad"),
    Pair("synchronize", "设备同步", "torch.cuda.synchronize()", "ms.runtime.synchronize()", _check_synchronize,
         seed="ms.hal.synchronize()", note="ms.hal.synchronize 已标注将废弃",
         topic_en="device synchronisation", note_en="ms.hal.synchronize is marked deprecated"),
    Pair("device", "选择设备", "torch.cuda.set_device(i)", "ms.set_device('Ascend', i)", _check_device,
         seed="ms.set_context(device_target='Ascend', device_id=i)",
         note="set_context 的 device_target/device_id 已标注将废弃；set_context 只再用于 mode 等",
         topic_en="choosing the device",
         note_en="set_context's device_target/device_id are marked deprecated; set_context remains for mode and the like"),
    Pair("tensor", "创建张量", "torch.randn(3, 4)", "ms.Tensor(np.random.randn(3, 4).astype(np.float32))", _check_tensor,
         note="也可用 ms.ops.randn(3, 4)，但数值与 PyTorch 的不同",
         topic_en="creating a tensor", note_en="ms.ops.randn(3, 4) works too, but its numbers differ from PyTorch's"),
    Pair("to_device", "张量上设备", "tensor.to('cuda')", "（自动）或 tensor.to('Ascend')", _check_to_device,
         seed="（自动，设好 context 即可）",
         topic_en="tensor to the device", mindspore_en="(automatic) or tensor.to('Ascend')",
         seed_en="(automatic once the context is set)"),
    Pair("train_eval", "训练/推理模式", "model.train() / model.eval()", "net.set_train(True) / net.set_train(False)",
         _check_train_eval, note="影响 BatchNorm 与 Dropout", in_seed=False,
         topic_en="training/inference mode", note_en="affects BatchNorm and Dropout"),
    Pair("checkpoint", "保存与载入权重", "torch.save(model.state_dict(), p)", "ms.save_checkpoint(net, p)",
         _check_checkpoint, note="载入：ms.load_param_into_net(net, ms.load_checkpoint(p))", in_seed=False,
         topic_en="saving and loading weights", note_en="loading: ms.load_param_into_net(net, ms.load_checkpoint(p))"),
)

_BY_KEY = {p.key: p for p in PAIRS}


def keys() -> list[str]:
    """Keys of all pairs, in table order."""
    return [p.key for p in PAIRS]


def get(key: str) -> Pair:
    """The pair called ``key``."""
    if key not in _BY_KEY:
        raise KeyError(t("ms.unknown_pair", name=repr(key), names=", ".join(_BY_KEY)))
    return _BY_KEY[key]


def check(key: str) -> PairResult:
    """Execute one pair in both frameworks and compare (the result's key is the pair's)."""
    result = get(key).check()
    return PairResult(key, result.comparisons, result.pitfall)


def run_all() -> list[PairResult]:
    """Execute every pair; each shared check (module/forward) runs once."""
    done: dict[Callable, PairResult] = {}
    results = []
    for pair in PAIRS:
        if pair.check not in done:
            done[pair.check] = pair.check()
        r = done[pair.check]
        results.append(PairResult(pair.key, r.comparisons, r.pitfall))
    return results


def table() -> Table:
    """The API table: topic, PyTorch, MindSpore today, the seed's version where it differs, note."""
    rows = [(f"{i}", localized(vars(p), "topic"), p.pytorch, localized(vars(p), "mindspore"), localized(vars(p), "seed"),
             localized(vars(p), "note") + ("" if p.in_seed else t("ms.course_addition")))
            for i, p in enumerate(PAIRS, start=1)]
    return Table(("#", t("ms.col_topic"), "PyTorch", t("ms.col_mindspore_today"), t("ms.col_seed_version"),
                  t("ms.col_note")), rows, code_columns={2, 3, 4})


def results_table(results: list[PairResult]) -> Table:
    """Executed pairs: largest difference, the limit, pass/fail, and what the literal translation does."""
    rows = [(r.key, f"{r.max_abs:.1e}", f"{max(c.limit for c in r.comparisons):.0e}", "✓" if r.ok else "✗",
             t("ms.comparison_count", count=len(r.comparisons)), r.pitfall) for r in results]
    return Table((t("ms.col_pair"), t("ms.col_max_diff"), t("ms.col_tolerance"), t("ms.col_equal"),
                  t("ms.col_compared"), t("ms.col_pitfall")), rows)
