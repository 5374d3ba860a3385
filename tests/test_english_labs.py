"""Issue 37: the seven labs' checkers give their feedback in English when the notebook's language is English.

Every question of every lab is checked with a right answer and with typical wrong ones, under NPULAB_LANG=en: the
printed feedback (the frame of npulab.course.labs and the checker's own hint) has no Chinese, says what the English
lab means, and keeps the numbers. With NPULAB_LANG=zh the same checks print the same Chinese as before.
"""

from __future__ import annotations

import statistics

import pytest
from english_checks import CJK

from npulab.course.labs import export, lab01, lab02, lab03, lab04, lab05, lab06, lab07

LABS = {"01": lab01, "02": lab02, "03": lab03, "04": lab04, "05": lab05, "06": lab06, "07": lab07}


@pytest.fixture
def english(monkeypatch):
    monkeypatch.setenv("NPULAB_LANG", "en")
    monkeypatch.delenv("NPULAB_LAB_STRICT", raising=False)


def _feedback(lab_id: str, question: str, answer, capsys):
    lab = LABS[lab_id].make_lab()
    ok = lab.check(question, answer)
    return ok, lab.results[question], capsys.readouterr().out


# ---- lab 01 ------------------------------------------------------------------------------------------------------

def _timer(sync=True, warm=True, stat="median", returns=True):
    def median_time(fn, sync_fn, repeats=5, clock=None):
        if warm:
            fn()
            sync_fn()
        times = []
        for _ in range(repeats):
            start = clock()
            fn()
            if sync:
                sync_fn()
            times.append(clock() - start)
        return getattr(statistics, stat)(times) if returns else None

    return median_time


def _first_error(log):
    from npulab.env import explain as ex

    report = ex.explain_text(log)
    return min((e.line for finding in report.findings for e in finding.evidence), default=None)


def _pairing(match_torch: bool):
    from npulab.env import compatibility

    rows = compatibility.torch_npu_rows()
    if match_torch:
        return next(r.torch_npu for r in rows if r.pytorch == "2.9.0" and r.cann != "9.1.0"
                    and r.torch_npu not in lab01._expected_torch_npu("2.9.0", "9.1.0"))
    return next(r.torch_npu for r in rows if r.pytorch != "2.9.0")


def _right_pairing():
    return sorted(lab01._expected_torch_npu("2.9.0", "9.1.0"))[0]


# ---- lab 03 ------------------------------------------------------------------------------------------------------

SEVERITY = {"a": "auto", "b": "manual", "c": "manual", "d": "auto", "e": "manual", "f": "blocker"}


def _predict_scales(overflows, init, interval):
    scale, clean, out = init, 0, []
    for overflow in overflows:
        clean = 0 if overflow else clean + 1
        scale = scale * 0.5 if overflow else scale * 2 if clean == interval else scale
        clean = 0 if clean == interval else clean
        out.append(scale)
    return out


def _step_bytes(part=None):
    from npulab.pytorch.compile import mlp_step_memory

    m = mlp_step_memory(**lab03.MEMORY_CASE, optimizer="adam")
    return m.total - (getattr(m, part) if part else 0)


# ---- lab 04 ------------------------------------------------------------------------------------------------------

def _ms_block(has_bias=True, momentum=0.7, relu=True):
    from mindspore import nn

    class Block(nn.Cell):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 8, 3, stride=2, pad_mode="pad", padding=1, has_bias=has_bias)
            self.bn = nn.BatchNorm2d(8, momentum=momentum)
            self.relu = nn.ReLU()

        def construct(self, x):
            out = self.bn(self.conv(x))
            return self.relu(out) if relu else out

    return Block


def _rename(name, bn):
    layer, _, leaf = name.rpartition(".")
    if leaf == "num_batches_tracked":
        return None
    table = {"weight": "gamma", "bias": "beta", "running_mean": "moving_mean", "running_var": "moving_variance"}
    return f"{layer}.{table[leaf]}" if layer in bn and leaf in table else name


def _train_step(update=True):
    def make_train_step(net, loss_fn, optimizer):
        import mindspore as ms

        grad_fn = ms.value_and_grad(lambda x, y: loss_fn(net(x), y), None, optimizer.parameters)

        def step(x, y):
            loss, grads = grad_fn(x, y)
            if update:
                optimizer(grads)
            return loss

        return step

    return make_train_step


# ---- lab 05 ------------------------------------------------------------------------------------------------------

def _count_cards(text):
    from npulab.ascend_tools import smi

    return smi.parse_list(text)["card_count"]


def _hot_op(by_total=False, neither=False):
    """The op with the most self time (the right answer), the one with the most total time, or — ``neither`` — one
    that is neither: the trace is measured, so which op that is depends on the run."""
    from npulab.pytorch import profile_trace

    stats = profile_trace.top_ops(lab05.lab_trace(), 1000)
    by_self, by_total_op = stats[0].name, max(stats, key=lambda s: s.total_us).name
    if neither:
        return next(s.name for s in stats if s.name not in (by_self, by_total_op))
    return by_total_op if by_total else by_self


# ---- lab 06 ------------------------------------------------------------------------------------------------------

def _copy_out(pad_tail=True, offset=True):
    from npulab.kernels.ascendc import emulator

    def copy_out(kernel, progress, length):
        y = kernel.out_queue_y.de_que()
        nbytes = length * kernel.dtype.itemsize
        target = kernel.y_gm[progress * kernel.tile_length if offset else progress]
        if nbytes % 32 and pad_tail:
            emulator.data_copy_pad(target, y, emulator.DataCopyExtParams(1, nbytes, 0, 0, 0))
        else:
            emulator.data_copy(target, y, length)
        kernel.out_queue_y.free_tensor(y)

    return copy_out


def _bias_gelu():
    import torch
    import triton
    import triton.language as tl

    from npulab.kernels import triton_kernels as tk

    @tk.jit_for("cpu")
    def kernel(x_ptr, b_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
        row = tl.program_id(0)
        cols = tl.arange(0, BLOCK)
        mask = cols < n_cols
        v = tl.load(x_ptr + row * n_cols + cols, mask=mask) + tl.load(b_ptr + cols, mask=mask)
        tl.store(y_ptr + row * n_cols + cols, 0.5 * v * (1 + tl.erf(v * 0.7071067811865476)), mask=mask)

    def bias_gelu(x, bias):
        y = torch.empty_like(x)
        kernel[(x.shape[0],)](x, bias, y, x.shape[1], BLOCK=triton.next_power_of_2(x.shape[1]))
        return y

    return bias_gelu


def _torch_gelu(approximate="none", bias=True):
    import torch

    return lambda x, b: torch.nn.functional.gelu(x + b if bias else x, approximate=approximate)


GIB16 = 16 * 2**30  # lab 07, question 1

# (lab, question, answer or a zero-argument factory called at test time, expected result (None: unanswered),
#  an English phrase the feedback must contain)
CASES = [
    ("01", "visible", 6, True, "logical IDs"),
    ("01", "visible", "6", False, "got str"),
    ("01", "visible", 1, False, "index inside the process"),
    ("01", "visible", 4, False, "count from 0"),
    ("01", "visible", 7, False, "one of the entries"),
    ("01", "visible_space", 1, True, "only logical ID 4"),
    ("01", "visible_space", 2, False, "ASCII commas"),
    ("01", "visible_space", 0, False, "before the space"),
    ("01", "visible_space", 3, False, "only two IDs"),
    ("01", "visible_space", 1.0, False, "got float"),
    ("01", "pairing", _right_pairing, True, "PyTorch 2.9.0 and CANN 9.1.0"),
    ("01", "pairing", "0.0.0", False, ".postN suffix"),
    ("01", "pairing", lambda: _pairing(False), False, "not 2.9.0"),
    ("01", "pairing", lambda: _pairing(True), False, "different .postN"),
    ("01", "timer", lambda: _timer(), True, "all four steps"),
    ("01", "timer", lambda: _timer(sync=False), False, "wait for the device"),
    ("01", "timer", lambda: _timer(stat="mean"), False, "use the median"),
    ("01", "timer", lambda: _timer(warm=False), False, "6 times; it was called 5 times"),
    ("01", "timer", lambda: _timer(stat="fmean", returns=False), False, "returns nothing"),
    ("01", "timer", lambda: (lambda fn, sync, repeats=5, clock=None: ...), None, "not written yet"),
    ("01", "timer", 3, False, "Give a function"),
    ("01", "tflops", 2 * 4096**3 / 2.13e-3 / 1e12, True, "2n³"),
    ("01", "tflops", 4096**3 / 2.13e-3 / 1e12, False, "factor of 2"),
    ("01", "tflops", 2 * 4096**3 / 2.13 / 1e12, False, "order of magnitude"),
    ("01", "tflops", 1.0, False, "time in seconds"),
    ("01", "tflops", "fast", False, "in TFLOPS"),
    ("01", "root_cause", "env_not_loaded", True, "libge_runner.so"),
    ("01", "root_cause", "mindspore_target", False, "surface symptom"),
    ("01", "root_cause", "nonsense", False, "category ids"),
    ("01", "root_cause", "hccl_timeout", False, "matches neither line"),
    ("01", "first_error", lambda: _first_error, True, "earliest line"),
    ("01", "first_error", lambda: (lambda log: 0), False, "should return None; you returned 0"),
    ("01", "first_error", lambda: (lambda log: None if not log or "loss" in log else 7), False, "on line 3; you returned 7"),

    ("02", "nz_shape", (4, 3, 4, 16, 32), True, "16 rows × N0 columns"),
    ("02", "nz_shape", (4, 5, 4, 16, 16), False, "2-byte type"),
    ("02", "nz_shape", (4, 4, 3, 16, 32), False, "wrong way round"),
    ("02", "nz_shape", (3, 4, 16, 32), False, "5 dimensions; you gave 4"),
    ("02", "nz_shape", (4, 3, 4, 16, 16, 1), False, "you gave 6"),
    ("02", "nz_shape", (4, 3, 5, 16, 32), False, "rounding up"),
    ("02", "nz_shape", None, False, "tuple of integers"),
    ("02", "position", lambda: (lambda m, n, n0: (n // n0, m // 16, m % 16, n % n0)), True, "All 84 positions"),
    ("02", "position", lambda: (lambda m, n, n0: (m // 16, n // n0, m % 16, n % n0)), False, "outermost"),
    ("02", "position", lambda: (lambda m, n, n0: (n // n0, m // 16, n % n0, m % 16)), False, "row by row"),
    ("02", "position", lambda: (lambda m, n, n0: (n // 16, m // 16, m % 16, n % 16)), False, "with N0=32"),
    ("02", "position", lambda: (lambda m, n, n0: "x"), False, "tuple of 4 integers"),
    ("02", "position", lambda: (lambda m, n, n0: ...), None, "not written yet"),
    ("02", "instructions", 7 * 13 * 19, True, "16×16×16"),
    ("02", "instructions", 100 * 200 * 300 / 4096, False, "padding is not counted"),
    ("02", "instructions", 100 * 200 * 300, False, "multiply-accumulates"),
    ("02", "instructions", 5, False, "rounding up"),
    ("02", "instructions", "many", False, "Give an integer"),
    ("02", "utilisation", 100 * 200 * 300 / (7 * 13 * 19 * 4096), True, "the lower the utilisation"),
    ("02", "utilisation", 84.72, False, "not a percentage"),
    ("02", "utilisation", 2, False, "cannot exceed 1"),
    ("02", "utilisation", 0.5, False, "numerator"),
    ("02", "attainable", 1538e9 * 2 / 1e12, True, "memory bandwidth"),
    ("02", "attainable", 294.912, False, "compute peak"),
    ("02", "attainable", 1538e9 * 8 / 6 / 1e12, False, "1 input array"),
    ("02", "attainable", 1538e9 * 8 / 8 / 1e12, False, "FP16 element"),
    ("02", "attainable", 1538e9 * 2 / 1e9, False, "GB/s and TFLOPS"),
    ("02", "attainable", 7, False, "min(peak"),
    ("02", "allreduce", 2 * 7 / 8 * 25_557_032 * 4 / 26.2e9 * 1e3, True, "2(n−1)/n"),
    ("02", "allreduce", 2 * 7 / 8 * 25_557_032 / 26.2e9 * 1e3, False, "bytes does each parameter"),
    ("02", "allreduce", 25_557_032 * 4 / 26.2e9 * 1e3, False, "one direction"),
    ("02", "allreduce", 2 * 7 / 8 * 25_557_032 * 4 / 26.2e9, False, "milliseconds"),
    ("02", "allreduce", 1, False, "allreduce_time(bytes, 8"),
    ("02", "chip_peak", 245.76, True, "differs in frequency"),
    ("02", "chip_peak", 294.912, False, "peak of the 910B3"),
    ("02", "chip_peak", 122.88, False, "2 floating-point operations"),
    ("02", "chip_peak", 245760.0, False, "MHz and TFLOPS"),
    ("02", "chip_peak", 100, False, "chapter 02"),

    ("03", "severity", SEVERITY, True, "agrees with the analyser"),
    ("03", "severity", {**SEVERITY, "c": "blocker"}, False, "Lines judged wrongly: 1. Hints: c: "),
    ("03", "severity", {**SEVERITY, "a": "manual", "b": "auto"}, False, "under torch.npu?; b: Does this line"),
    ("03", "severity", {"a": "auto"}, False, "keys a, b, c, d, e, f"),
    ("03", "severity", {**SEVERITY, "a": ..., "e": ...}, None, "Still ...: a, e."),
    ("03", "severity", {**SEVERITY, "d": "easy"}, False, "blocker: the value(s) of d."),
    ("03", "backend", lambda: (lambda kind: {"cuda": "nccl", "npu": "hccl", "cpu": "gloo"}[kind]), True, "every device"),
    ("03", "backend", lambda: (lambda kind: "nccl"), False, "no NCCL on the NPU"),
    ("03", "backend", lambda: (lambda kind: {"cuda": "gloo", "npu": "hccl", "cpu": "nccl"}[kind]), False, "device type(s) cuda, cpu"),
    ("03", "backend", lambda: (lambda kind: ...), None, "not written yet"),
    ("03", "scales", lambda: _predict_scales, True, "growth_interval"),
    ("03", "scales", lambda: (lambda o, i, g: [i * (0.5 if x else 1) for x in o]), False, "After step 2 (a step that overflowed)"),
    ("03", "scales", lambda: (lambda o, i, g: [i]), False, "as long as overflows (8 numbers)"),
    ("03", "mfu", lab03._expected_mfu, True, "a tenth of the Cube peak"),
    ("03", "mfu", lambda: lab03._expected_mfu() / 100, False, "asks for a percentage"),
    ("03", "mfu", lambda: lab03._expected_mfu() / 3, False, "Only the forward pass"),
    ("03", "mfu", lambda: lab03._expected_mfu() * 2, False, "factor of 2"),
    ("03", "mfu", 50, False, "forward_flop_per_image(224)"),
    ("03", "mfu", "ten", False, "12.3 means 12.3%"),
    ("03", "bn", True, True, "running statistics"),
    ("03", "bn", False, False, "What does no_grad turn off"),
    ("03", "bn", 1, False, "got int"),
    ("03", "recompiles", lambda: dict(lab03.expected_recompiles()), True, "Dynamo's real behaviour"),
    ("03", "recompiles", {"default": (1, 1, 2, 3, 3), "static": (1, 1, 2, 3, 3)}, False, "automatic dynamic shapes"),
    ("03", "recompiles", {"default": (1, 1, 1, 1, 1), "static": (1, 1, 2, 3, 4)}, False,
     "after that?; static: is a shape"),
    ("03", "recompiles", {"default": (1, 2)}, False, "keys default and static"),
    ("03", "recompiles", {"default": (1, 2), "static": (1, 2)}, False, "should have 5 numbers"),
    ("03", "recompiles", {"default": ..., "static": (1, 1, 2, 3, 3)}, None, "tuple of 5 integers"),
    ("03", "memory", _step_bytes, True, "Adam's two states"),
    ("03", "memory", lambda: _step_bytes() / 2**20, False, "MiB or MB"),
    ("03", "memory", lambda: _step_bytes("optimizer_state"), False, "optimizer state is missing"),
    # without the gradients it is the same number as Adam with one state: one hint names both
    ("03", "memory", lambda: _step_bytes("gradients"), False, "did you leave out the gradients, or count only one of Adam's states"),
    ("03", "memory", lambda: _step_bytes("activations"), False, "activations are missing"),
    ("03", "memory", 1, False, "term by term"),
    ("03", "memory", "big", False, "of bytes"),
    ("03", "host_bound", {"host_ms": 30.0, "host_bound": True}, True, "30 ms, longer than the device's 12 ms"),
    ("03", "host_bound", {"host_ms": 30_000, "host_bound": True}, False, "microseconds"),
    ("03", "host_bound", {"host_ms": 30, "host_bound": False}, False, "the longer one sets the step time"),
    ("03", "host_bound", {"host_ms": 12, "host_bound": False}, False, "number of operators"),
    ("03", "host_bound", {"host_ms": "x", "host_bound": False}, False, "host_ms should be a number"),
    ("03", "host_bound", {"host_ms": ..., "host_bound": True}, None, "still ...."),
    ("03", "host_bound", 30, False, '"host_bound": True or False'),

    ("04", "momentum", 0.99, True, "weight of the old value"),
    ("04", "momentum", 0.01, False, "copies PyTorch's value"),
    ("04", "momentum", 0.9, False, "default"),
    ("04", "momentum", 0.5, False, "running mean"),
    ("04", "momentum", "x", False, "Give a number"),
    ("04", "block", _ms_block, True, "all agree with PyTorch"),
    ("04", "block", lambda: _ms_block(has_bias=False), False, "has a bias by default"),
    ("04", "block", lambda: _ms_block(momentum=0.3), False, "conversion of momentum"),
    ("04", "block", lambda: _ms_block(relu=False), False, "whether a ReLU follows"),
    ("04", "block", lambda: _ms_block()(), False, "the class itself"),
    ("04", "rename", lambda: _rename, True, "num_batches_tracked is dropped"),
    ("04", "rename", lambda: (lambda n, bn: _rename(n, bn) or "x"), False, "should return None"),
    ("04", "rename", lambda: (lambda n, bn: n.replace("weight", "gamma") if n.startswith("conv") else _rename(n, bn)),
     False, "conv1.weight does not belong to a BatchNorm layer"),
    ("04", "rename", lambda: (lambda n, bn: n if "bn1.w" in n else _rename(n, bn)), False, "mapping of bn1.weight"),
    ("04", "rename", lambda: (lambda n, bn: ...), None, "not written yet"),
    ("04", "train_step", lambda: _train_step(), True, "SGD with momentum"),
    ("04", "train_step", lambda: _train_step(update=False), False, "give them to the optimizer"),
    ("04", "train_step", lambda: (lambda net, loss_fn, optimizer: 3), False, "should return a function step(x, y)"),
    ("04", "train_step", lambda: (lambda *a: ...), None, "not written yet"),

    ("05", "cards", lambda: _count_cards, True, "Card Count"),
    ("05", "cards", lambda: (lambda text: sum(1 for line in text.splitlines() if "NPU" in line or "Chip" in line)),
     False, "twice the number of cards"),
    ("05", "cards", lambda: (lambda text: 1), False, "listing 8 card(s) your function gives 1"),
    ("05", "cards", lambda: (lambda text: "1"), False, "got str"),
    ("05", "cards", lambda: (lambda text: ...), None, "not written yet"),
    ("05", "phy", 9, True, "two dies"),
    ("05", "phy", 4, False, "NPU ID of the card"),
    ("05", "phy", 1, False, "Chip ID within the card"),
    ("05", "phy", 14, False, "HBM-Usage"),
    ("05", "phy", "9", False, "got str"),
    ("05", "pcie", 31.5, True, "128/130 encoding efficiency"),
    ("05", "pcie", 25.2, False, "seed article's figure"),
    ("05", "pcie", 252.06, False, "bits per second"),
    ("05", "pcie", 32, False, "128 of every 130 bits"),
    ("05", "pcie", 10, False, "rate per lane"),
    ("05", "om", 51.1, True, "half the size"),
    ("05", "om", 102.2, False, "FP32 weights"),
    ("05", "om", 48.7, False, "2^20 bytes"),
    ("05", "om", 10, False, "Count only the weights"),
    ("05", "shape", "pixel_values:1,3,32,32", True, "accepts the command"),
    ("05", "shape", "input:1,3,32,32", False, "onnx_export.inputs(lab05.lab_model())"),
    ("05", "shape", 3, False, "name:dim,dim"),
    ("05", "release", lambda: [lab05.RELEASES[c] for c in reversed(lab05.ACQUIRED)], True, "acl.finalize comes last"),
    ("05", "release", lambda: list(lab05.RELEASES.values()), False, "order of acquisition"),
    ("05", "release", ["acl.rt.free", "acl.rt.free_host"], False,
     "Missing: acl.finalize, acl.mdl.destroy_desc, acl.mdl.unload, acl.rt.destroy_context, acl.rt.destroy_stream, "
     "acl.rt.reset_device; Not needed: acl.rt.free_host (every resource"),
    ("05", "release", lambda: ["acl.finalize"] + [lab05.RELEASES[c] for c in reversed(lab05.ACQUIRED)][:-1],
     False, "acl.init"),
    ("05", "release", lambda: ["acl.rt.reset_device", *[lab05.RELEASES[c] for c in reversed(lab05.ACQUIRED[2:])],
                               "acl.finalize"], False, "depends on"),
    ("05", "release", "acl.rt.free", False, "list of the names"),
    ("05", "hot_op", _hot_op, True, "self time"),
    ("05", "hot_op", lambda: _hot_op(by_total=True), False, "largest total time"),
    ("05", "hot_op", "aten::conv2d", False, "no operator of this name"),
    ("05", "hot_op", lambda: _hot_op(neither=True), False, "more self time"),
    ("05", "hot_op", 3, False, "aten::xxx"),
    ("05", "overflow", "block.proj", True, "innermost module"),
    ("05", "overflow", "block", False, "outer container"),
    ("05", "overflow", None, False, "float16"),
    ("05", "overflow", "head", False, "runs earlier"),
    ("05", "overflow", "block.nothing", False, "no module of this name"),
    ("05", "overflow", 3, False, "qualified name"),

    ("06", "tiling", (40, 25008, 24576), True, "all right"),
    ("06", "tiling", (40, 25000, 24576), False, "multiple of 32 bytes"),
    ("06", "tiling", (40, 25008, 49152), False, "both the input and the output queue"),
    ("06", "tiling", (39, 25008, 24576), False, "blockDim is wrong"),
    ("06", "tiling", (40, 25024, 24576), False, "blockLength is wrong"),
    ("06", "tiling", (40, 25008, 1024), False, "tileLength is wrong"),
    ("06", "tiling", "40", False, "tuple of three integers"),
    ("06", "copy_out", lambda: _copy_out(), True, "every length agrees with numpy"),
    ("06", "copy_out", lambda: _copy_out(pad_tail=False), False, "DataCopyPad"),
    ("06", "copy_out", lambda: _copy_out(offset=False), False, "progress × tileLength"),
    ("06", "copy_out", lambda: (lambda kernel, progress, length: ...), None, "not written yet"),
    ("06", "copy_out", 1, False, "copy_out(kernel, progress, length)"),
    ("06", "speedup", lab06.pipeline_speedup, True, "MTE2"),
    ("06", "speedup", lambda: 1 / lab06.pipeline_speedup(), False, "upside down"),
    ("06", "speedup", 1.0, False, "BUFFER_NUM"),
    ("06", "speedup", 7, False, "Vector rate"),
    ("06", "speedup", "x", False, "double-buffered cycles"),
    ("06", "assessment", lambda: dict(lab06.PROJECT), True, "All seven answers"),
    ("06", "assessment", lambda: dict(lab06.PROJECT, libraries="none"), False, "libraries: Does apex have a replacement"),
    ("06", "assessment", "hf", False, "{question id: option id}"),
    ("06", "busbw", 512 * 2**20 / 30e-3 * 2 * 7 / 8 / 1e9, True, "2(n−1)/n"),
    ("06", "busbw", 512 * 2**20 / 30e-3 / 1e9, False, "algorithm bandwidth"),
    ("06", "busbw", 512e6 / 30e-3 * 1.75 / 1e9, False, "1 MiB = 2^20 bytes"),
    ("06", "busbw", 512 * 2**20 / 30e-3 * 2 / 1e9, False, "factor is wrong"),
    ("06", "busbw", 1, False, "10^9 bytes per second"),
    ("06", "busbw", "x", False, "in GB/s"),
    ("06", "launch", (205, 40), True, "Vector cores"),
    ("06", "launch", (204, 40), False, "Round the number of rounds up"),
    ("06", "launch", (410, 40), False, "pure Vector kernel function"),
    ("06", "launch", (7, 40), False, "number of rounds is wrong"),
    ("06", "launch", (205, 20), False, "does not use the Cube"),
    ("06", "launch", (205, 8192), False, "loop inside the core"),
    ("06", "launch", 205, False, "tuple of two integers"),
    ("06", "bias_gelu", _bias_gelu, True, "one read, one write"),
    ("06", "bias_gelu", lambda: _torch_gelu(bias=False), False, "bias is not added"),
    ("06", "bias_gelu", lambda: _torch_gelu(approximate="tanh"), False, "tanh approximation"),
    ("06", "bias_gelu", lambda: _torch_gelu(), False, "no Triton kernel function was launched"),
    ("06", "bias_gelu", lambda: (lambda x, bias: x.flatten()), False, "input of 1×1 it should return a tensor"),
    ("06", "bias_gelu", lambda: (lambda x, bias: x * 0 + 9), False, "With 1×1, wrong elements: 1"),
    ("06", "bias_gelu", lambda: (lambda x, bias: ...), None, "not written yet"),
    ("06", "bias_gelu", "no", False, "bias_gelu(x, bias)"),
    ("06", "fullmesh", {"ring": 896, "mesh": 128}, True, "worst case"),
    ("06", "fullmesh", {"ring": 448, "mesh": 64}, False, "2 AllReduces"),
    ("06", "fullmesh", {"ring": 448, "mesh": 128}, False, "2(t−1) steps"),
    ("06", "fullmesh", {"ring": 1, "mesh": 2}, False, "latency term of one step"),
    ("06", "fullmesh", {"ring": ..., "mesh": 128}, None, "still ...."),
    ("06", "fullmesh", [896, 128], False, "multiples of α"),

    ("07", "kv_bytes", GIB16, True, "2 × layers × KV heads"),
    ("07", "kv_bytes", 16.0, False, "not GiB or GB"),
    ("07", "kv_bytes", GIB16 / 2, False, "both K and V"),
    ("07", "kv_bytes", GIB16 * 4, False, "32 query heads"),
    ("07", "kv_bytes", GIB16 * 2, False, "BF16 takes 2 bytes"),
    ("07", "kv_bytes", GIB16 / 16, False, "16 sequences of 8192 tokens"),
    ("07", "kv_bytes", 3, False, "bytes per token"),
    ("07", "kv_bytes", "many", False, "Give a number"),
    ("07", "mla", 27 * 576 * 2, True, "latent vector"),
    ("07", "mla", 27 * 16 * 320 * 2, False, "expanding"),
    ("07", "mla", 27 * 512 * 2, False, "qk_rope_head_dim"),
    ("07", "mla", 2 * 27 * 576 * 2, False, "do not multiply by 2"),
    ("07", "mla", 576 * 2, False, "one layer"),
    ("07", "mla", 5, False, "bytes per element"),
    ("07", "max_batch", 22, True, "60.96 GiB"),
    ("07", "max_batch", 11, False, "half of the KV heads"),
    ("07", "max_batch", 25, False, "Very close"),
    ("07", "max_batch", 100, False, "kv_cache.plan(config"),
    ("07", "max_batch", 3.5, False, "Give an integer"),
    ("07", "tp", 4, True, "faster than linearly"),
    ("07", "tp", 2, False, "With TP = 2, 64 × 8192 tokens do not fit"),
    ("07", "tp", 8, False, "smaller power of 2"),
    ("07", "tp", 0, False, "positive integer"),
    ("07", "lora", 6_815_744, True, "r × (input dimension + output dimension)"),
    ("07", "lora", 32 * 16 * 4 * 4096, False, "1024 dimensions"),
    ("07", "lora", 6_815_744 / 32, False, "one layer"),
    ("07", "lora", 32 * 16 * 5120, False, "two matrices"),
    ("07", "lora", 7, False, "q_proj (4096 → 4096)"),
    ("07", "lora", "x", False, "trainable parameters"),
]


def _answer(answer):
    return answer() if callable(answer) and getattr(answer, "__name__", "") in {"<lambda>"} | FACTORIES else answer


FACTORIES = {"_right_pairing", "_expected_mfu", "_step_bytes", "expected_recompiles", "_ms_block",
             "_hot_op", "pipeline_speedup", "_bias_gelu"}


@pytest.mark.parametrize("lab_id, question, answer, ok, phrase", CASES,
                         ids=[f"{c[0]}-{c[1]}-{i}" for i, c in enumerate(CASES)])
def test_feedback_in_english(english, capsys, lab_id, question, answer, ok, phrase):
    result, recorded, out = _feedback(lab_id, question, _answer(answer), capsys)
    assert recorded is ok and result is bool(ok), out
    assert CJK.search(out) is None, out
    assert phrase in out, out
    assert out.startswith({True: "✓ ", False: "✗ ", None: "… "}[ok] + question + ": "), out


def test_every_question_has_a_right_and_a_wrong_answer_here():
    for lab_id, module in LABS.items():
        for question in module.make_lab().checks:
            outcomes = {ok for lab, q, _, ok, _ in CASES if (lab, q) == (lab_id, question)}
            assert {True, False} <= outcomes, (lab_id, question)


@pytest.mark.parametrize("lab_id", sorted(LABS))
def test_title_and_report_in_english(english, capsys, lab_id):
    lab = LABS[lab_id].make_lab()
    assert lab.title == f"Lab {lab_id}"
    lab.check(next(iter(lab.checks)), ...)
    total = len(lab.checks)
    assert lab.report() == {"correct": 0, "wrong": 0, "unanswered": total}
    out = capsys.readouterr().out
    assert f"Lab {lab_id}: 0/{total} correct, 0 to correct, {total} not answered." in out
    assert CJK.search(out) is None


def test_chinese_feedback_unchanged(monkeypatch, capsys):
    monkeypatch.setenv("NPULAB_LANG", "zh")
    monkeypatch.delenv("NPULAB_LAB_STRICT", raising=False)
    lab = lab01.make_lab()
    assert lab.title == "实验 01"
    lab.check("visible", "6")
    lab.check("timer", _timer(warm=False))
    assert capsys.readouterr().out == (
        "✗ visible：请给出一个整数（逻辑设备 ID），收到的是 str。\n"
        "✗ timer：fn 应被调用 1 次预热 + 5 次计时 = 6 次，实际 5 次。\n")
    lab03.make_lab().check("severity", {**SEVERITY, "a": "manual", "c": "blocker"})
    assert capsys.readouterr().out == (
        "✗ severity：2 行判断不对。提示：a：torch.npu 下有没有同名接口？；c：这个包在昇腾上有没有现成的替代接口？\n")
    lab05.make_lab().check("release", ["acl.rt.free", "acl.rt.free_host"])
    assert "；多了 acl.rt.free_host（每申请一样资源，就要有一个对应的释放）。" in capsys.readouterr().out
    lab06.make_lab().check("assessment", dict(lab06.PROJECT, libraries="none"))
    assert capsys.readouterr().out == "✗ assessment：1 个回答与描述不符，先看 libraries：apex 在昇腾上有没有替代品？\n"
    lab07.make_lab().check("tp", 2)
    assert capsys.readouterr().out == "✗ tp：TP = 2 时放不下 64 × 8192 个 token：用 plan(...).max_tokens 检查。\n"


# ---- the exercise export and the lesson exercises' check (npulab.course.labs.export, npulab.course.exercises) --------

def test_lab_export_messages_in_english(english, capsys):
    with pytest.raises(ValueError, match="^END SOLUTION is missing$"):
        export.strip_solution("# BEGIN SOLUTION\nx = 1")
    with pytest.raises(ValueError, match="^BEGIN SOLUTION is nested"):
        export.strip_solution("# BEGIN SOLUTION\n# BEGIN SOLUTION\n")
    with pytest.raises(ValueError, match="^END SOLUTION without a BEGIN SOLUTION"):
        export.strip_solution("# END SOLUTION\n")

    class Args:
        check = True

    assert export.run(Args()) == 0
    assert capsys.readouterr().out == "Every exercise notebook is in sync with its solution.\n"


def test_exercise_check_in_english(english, capsys):
    from npulab.course import exercises

    lesson = {"cells": [{"cell_type": "markdown", "source": (
        "## Exercises\n\n1. Run `helper.compare(1, 2)`.\n\n:::{admonition} Solutions\n:class: dropdown\n\n"
        "```python\nresult = helper.compare(1, 2)\n```\n:::\n")}]}

    class Helper:
        @staticmethod
        def compare(a, b):
            return a < b

    program = exercises.check_program(exercises.exercise_section(lesson))
    exec(program, {"helper": Helper})
    out = capsys.readouterr().out
    assert out == "Exercises: 1 solution code block(s) ran; all 1 name(s) called exist\n"
    assert "# --- solution code, part 1 ---" in program and CJK.search(program) is None
    with pytest.raises(NameError, match="`helper.compare`: `helper` has no attribute `compare`") as err:
        exec(program, {"helper": object()})
    assert CJK.search(str(err.value)) is None
    assert exercises.unresolved(["os.path.join"], {}) == [
        "`os.path.join`: this section's kernel has no `os` (neither defined nor imported)"]
    assert "cannot be imported" in exercises.unresolved(["nosuchmodule_xyz.f"], {}, ["nosuchmodule_xyz"])[0]
