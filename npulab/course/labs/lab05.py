"""Checks of lab 05 (the Ascend toolchain: npu-smi, ascend-dmi figures, ATC, AscendCL)."""

from __future__ import annotations

import functools
import math
import tempfile
from collections.abc import Callable
from pathlib import Path

from npulab.course.labs import Lab

# ``npu-smi info -l`` texts built by the checker in the documented layout (Card Count, then one block per card);
# they exercise the learner's function, they are not device outputs.
_CARD_IDS = (0, 1, 2, 3, 4, 5, 6, 7)


def _listing(ids: tuple[int, ...], chips: int = 1) -> str:
    blocks = [f"        Card Count                     : {len(ids)}"]
    for npu in ids:
        blocks.append("\n".join([
            f"        NPU ID                         : {npu}",
            "        Product Name                   : NA",
            "        Serial Number                  : NA",
            f"        Chip Count                     : {chips}",
        ]))
    return "\n\n".join(blocks) + "\n"


def _check_cards(count_cards: Callable) -> tuple[bool | None, str]:
    if not callable(count_cards):
        return False, "请给出一个函数 count_cards(text)。"
    from npulab.ascend_tools.smi import samples

    cases = [(samples.text("list_200ia2.txt"), 1), (_listing(_CARD_IDS), 8), (_listing((1, 3, 4, 6), chips=4), 4)]
    for text, expected in cases:
        got = count_cards(text)
        if got is Ellipsis:
            return None, "函数还没有实现（仍然返回 ...）。"
        if not isinstance(got, int) or isinstance(got, bool):
            return False, f"应返回整数，收到 {type(got).__name__}。"
        if got == 2 * expected or got == 2 * expected + 1:
            return False, "结果是卡数的两倍：每张卡的记录里有两行同时含有 NPU 或 Chip（原文 diag.sh 的错误）。"
        if got != expected:
            return False, f"有一份 {expected} 张卡的输出，你的函数给出 {got}；卡数写在 Card Count 一行，也可以数 NPU ID 行。"
    return True, "卡数来自 Card Count（或 NPU ID 行），而不是所有含 NPU/Chip 的行。"


def _expected_phy() -> tuple[int, int, int]:
    from npulab.ascend_tools.smi import parse_info, samples

    chip = min(parse_info(samples.text("info_a3_8npu_16die_25.2.1.txt")).chips, key=lambda c: c.hbm_used_mb)
    return chip.phy_id, chip.npu_id, chip.chip_id


def _check_phy(answer) -> tuple[bool, str]:
    if not isinstance(answer, int) or isinstance(answer, bool):
        return False, f"请给出一个整数（Phy-ID），收到 {type(answer).__name__}。"
    phy, npu, chip = _expected_phy()
    if answer == phy:
        return True, "A3 上每个 NPU 有两个 die；Phy-ID 在第二行的第二列。"
    if answer == npu:
        return False, "这是那个芯片所在的 NPU ID；题目问的是它的 Phy-ID（第二行第二列）。"
    if answer == chip:
        return False, "这是卡内的 Chip ID（0 或 1）；题目问的是 Phy-ID。"
    return False, "比较的是 HBM 已用值（最小的那个 die）；再看一遍每个 die 第二行的 HBM-Usage 列。"


def _check_pcie(answer) -> tuple[bool, str]:
    try:
        value = float(answer)
    except (TypeError, ValueError):
        return False, "请给出一个数字（GB/s）。"
    expected = 16 * 16 * 128 / 130 / 8
    if math.isclose(value, expected, rel_tol=0.01):
        return True, "16 GT/s × 16 条通道 × 128/130 编码效率，再除以 8 把比特换成字节。"
    if math.isclose(value, 25.2, rel_tol=0.01):
        return False, "这是原文的数字，它算错了：按同一个式子重新算一遍，注意比特与字节。"
    if math.isclose(value, expected * 8, rel_tol=0.01):
        return False, "这是 Gb/s（比特每秒），换成 GB/s 还要除以 8。"
    if math.isclose(value, 16 * 16 / 8, rel_tol=0.01):
        return False, "少算了 128b/130b 编码：每 130 个线上比特只有 128 个是数据。"
    return False, "单向理论带宽 = 每通道速率 × 通道数 × 编码效率 ÷ 8。"


def _check_om(answer) -> tuple[bool, str]:
    try:
        value = float(answer)
    except (TypeError, ValueError):
        return False, "请给出一个数字（MB）。"
    params = 25_557_032
    if math.isclose(value, params * 2 / 1e6, rel_tol=0.02):
        return True, "每个参数 2 字节：这就是 OM 约为 FP32 ONNX 一半的原因。"
    if math.isclose(value, params * 4 / 1e6, rel_tol=0.02):
        return False, "这是 FP32 权重（每个参数 4 字节）；force_fp16 把权重存成 FP16。"
    if math.isclose(value, params * 2 / 2**20, rel_tol=0.02):
        return False, "这是 MiB（2^20 字节）；题目要 MB（10^6 字节）。"
    return False, "只算权重：参数个数 × 每个参数的字节数，再换算成 MB。"


@functools.lru_cache(maxsize=1)
def lab_model() -> Path:
    """The small ONNX model of the ATC question (exported once per process into a temporary folder)."""
    import torch
    from torch import nn

    from npulab.ascend_tools import onnx_export
    torch.manual_seed(0)
    net = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 10))
    path = Path(tempfile.mkdtemp(prefix="lab05-")) / "classifier.onnx"
    onnx_export.export_onnx(net, torch.randn(1, 3, 32, 32), path, input_names=("pixel_values",))
    return path


def _check_shape(answer) -> tuple[bool, str]:
    from npulab.ascend_tools import atc
    if not isinstance(answer, str):
        return False, "请给出 --input_shape 的字符串，形如 名字:维度,维度,…"
    try:
        atc.command(lab_model(), soc_version="Ascend910B3", input_shape=answer, precision_mode="force_fp16")
    except atc.AtcError as err:
        message = str(err)
        if "真实的输入名" in message:
            return False, "名字与模型的输入名不一致：用 onnx_export.inputs(lab05.lab_model()) 查一查。"
        return False, f"atc 检查器拒绝了它：{message}"
    return True, "输入名与形状都与 ONNX 模型一致，atc 检查器接受了这条命令。"


ACQUIRED = ("acl.init", "acl.rt.set_device", "acl.rt.create_context", "acl.rt.create_stream", "acl.mdl.load_from_file",
            "acl.mdl.create_desc", "acl.rt.malloc")
RELEASES = {"acl.init": "acl.finalize", "acl.rt.set_device": "acl.rt.reset_device",
            "acl.rt.create_context": "acl.rt.destroy_context", "acl.rt.create_stream": "acl.rt.destroy_stream",
            "acl.mdl.load_from_file": "acl.mdl.unload", "acl.mdl.create_desc": "acl.mdl.destroy_desc",
            "acl.rt.malloc": "acl.rt.free"}


def _check_release(answer) -> tuple[bool, str]:
    if not isinstance(answer, (list, tuple)) or not all(isinstance(a, str) for a in answer):
        return False, "请给出释放调用名的列表，例如 [\"acl.rt.free\", …]。"
    expected = [RELEASES[a] for a in reversed(ACQUIRED)]
    if sorted(answer) != sorted(expected):
        missing = set(expected) - set(answer)
        extra = set(answer) - set(expected)
        parts = ([f"缺少 {', '.join(sorted(missing))}"] if missing else []) + ([f"多了 {', '.join(sorted(extra))}"] if extra else [])
        return False, "；".join(parts) + "（每申请一样资源，就要有一个对应的释放）。"
    if list(answer) == expected:
        return True, "释放顺序与申请顺序相反：先释放最后申请的资源，acl.finalize 最后。"
    if list(answer) == [RELEASES[a] for a in ACQUIRED]:
        return False, "这是申请的顺序；释放要反过来，先释放最后申请的资源。"
    if answer[-1] != "acl.finalize":
        return False, "acl.finalize 对应第一个调用 acl.init，它应当最后执行。"
    return False, "有几项的位置不对：一个资源要在它所依赖的资源（设备、上下文）之前释放。"


# --- profiling and precision (lesson 05/04) -----------------------------------------------------------

@functools.lru_cache(maxsize=1)
def lab_trace():
    """A real torch.profiler trace of three steps of a small inference loop (recorded once per process)."""
    import torch
    from torch import nn

    from npulab.pytorch import profile_trace

    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))
    x = torch.randn(256, 512)

    def step():
        with torch.no_grad():
            net(x).softmax(dim=-1)

    return profile_trace.profile_steps(step, steps=3)


def _check_hot_op(answer) -> tuple[bool, str]:
    from npulab.pytorch import profile_trace

    if not isinstance(answer, str):
        return False, "请给出算子名字符串，例如 \"aten::xxx\"。"
    trace = lab_trace()
    top_self = profile_trace.top_ops(trace, 1)[0].name
    if answer == top_self:
        return True, "按自身耗时排序：它的时间不包含被调用的子算子，这才是真正干活的算子。"
    stats = profile_trace.top_ops(trace, 1000)
    by_total = max(stats, key=lambda s: s.total_us).name
    if answer == by_total:
        return False, "这是总耗时最多的算子：总耗时包含它调用的子算子。题目问的是自身耗时（self time）。"
    if answer not in {s.name for s in stats}:
        return False, "trace 里没有这个算子名：用 profile_trace.top_ops(trace) 看看有哪些。"
    return False, "还有自身耗时更多的算子：用 profile_trace.top_ops 排序。"


def lab_overflow_model():
    """A small model whose float16 run overflows in one known place (the weights are scaled on purpose)."""
    from collections import OrderedDict

    import torch
    from torch import nn

    torch.manual_seed(0)
    block = nn.Sequential(OrderedDict(proj=nn.Linear(32, 32), act=nn.GELU(), out=nn.Linear(32, 32)))
    with torch.no_grad():
        block.proj.weight.mul_(1e5)
    return nn.Sequential(OrderedDict(stem=nn.Linear(8, 32), block=block, head=nn.Linear(32, 4)))


def lab_overflow_input():
    import torch

    return torch.randn(4, 8, generator=torch.Generator().manual_seed(0)) * 10


def _check_overflow(answer) -> tuple[bool, str]:
    import torch

    from npulab.pytorch import precision

    if answer is not None and not isinstance(answer, str):
        return False, "请给出模块的限定名（字符串，写法同 model.named_modules()）。"
    model = lab_overflow_model()
    expected = precision.first_nonfinite(model, lab_overflow_input(), dtype=torch.float16)
    if answer == expected:
        return True, "钩子在模块结束时触发，里层先结束：报告的是问题最先出现的最里层模块。"
    if answer is None:
        return False, "在 float32 下确实没有问题；题目问的是 float16（dtype=torch.float16）。"
    if expected and expected.startswith(answer + ".") or answer == "":
        return False, "这是外层的容器模块：inf 最先出现在它里面的某个子模块。"
    names = [n for n, _ in model.named_modules()]
    if answer not in names:
        return False, "模型里没有这个名字：用 [n for n, _ in model.named_modules()] 看看有哪些。"
    return False, "这个模块的输出确实可能含 inf，但更早执行的模块已经溢出了：找第一个。"


def make_lab() -> Lab:
    """The checker object a lab notebook uses: ``lab.check("cards", count_cards)``."""
    return Lab("实验 05", {"cards": _check_cards, "phy": _check_phy, "pcie": _check_pcie, "om": _check_om,
                          "shape": _check_shape, "release": _check_release, "hot_op": _check_hot_op,
                          "overflow": _check_overflow})
