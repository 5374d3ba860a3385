"""Checks of lab 03 (migrating CUDA code, mixed precision, measuring training, torch.compile and memory)."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable

from npulab.course.labs import Lab

# the lines of question 1; the truth comes from the analyzer itself
SEVERITY_LINES = {
    "a": "torch.cuda.synchronize()",
    "b": "torch.backends.cudnn.benchmark = True",
    "c": "from flash_attn import flash_attn_func",
    "d": 'device = torch.device("cuda:1")',
    "e": 'os.environ["NCCL_DEBUG"] = "INFO"',
    "f": "import bitsandbytes as bnb",
}
SEVERITIES = ("auto", "manual", "blocker")


def expected_severity(line: str) -> str:
    """The most severe finding of one line, as ``npulab.migrate`` reports it (``import torch_npu`` aside)."""
    from npulab.migrate import scan_source

    order = {s: i for i, s in enumerate(SEVERITIES)}
    found = [f.severity for f in scan_source(f"import os\nimport torch\n{line}\n").findings if f.rule != "import-torch-npu"]
    return max(found, key=order.__getitem__)


def _check_severity(answer) -> tuple[bool | None, str]:
    if not isinstance(answer, dict) or set(answer) != set(SEVERITY_LINES):
        return False, f"请给出一个字典，键为 {'、'.join(SEVERITY_LINES)}，值为 auto、manual 或 blocker。"
    todo = [k for k, v in answer.items() if v is Ellipsis]
    if todo:
        return None, f"{'、'.join(todo)} 还是 ...，把它们换成 auto、manual 或 blocker。"
    bad = [k for k, v in answer.items() if v not in SEVERITIES]
    if bad:
        return False, f"{'、'.join(bad)} 的值不是 auto、manual、blocker 之一。"
    wrong = [k for k in SEVERITY_LINES if answer[k] != expected_severity(SEVERITY_LINES[k])]
    if not wrong:
        return True, ("与分析器的判断一致：机械替换是 auto；要人改写、但有现成替代（如 flash_attn → torch_npu 的融合注意力）"
                      "的是 manual；没有昇腾版本的是 blocker。")
    hints = {"a": "torch.npu 下有没有同名接口？", "b": "这行在 NPU 上会报错，还是只是不起作用？",
             "c": "这个包在昇腾上有没有现成的替代接口？", "d": "设备字符串能不能机械地替换？",
             "e": "HCCL 有没有同名的变量？", "f": "这个包有没有昇腾版本或现成的替代？"}
    return False, f"{len(wrong)} 行判断不对。提示：" + "；".join(f"{k}：{hints[k]}" for k in wrong)


def _check_backend(pick_backend) -> tuple[bool | None, str]:
    if not callable(pick_backend):
        return False, "请给出一个函数。"
    expected = {"cuda": "nccl", "npu": "hccl", "cpu": "gloo"}
    got = {kind: pick_backend(kind) for kind in expected}
    if all(v is Ellipsis for v in got.values()):
        return None, "函数还没有实现（仍然返回 ...）。"
    wrong = [kind for kind in expected if got[kind] != expected[kind]]
    if not wrong:
        return True, "每种设备都选对了集合通信后端。"
    if got.get("npu") == "nccl":
        return False, "NPU 上没有 NCCL：昇腾的集合通信库叫什么？"
    return False, f"设备类型 {'、'.join(wrong)} 的后端不对。"


def _real_scales(overflows: list[bool], init_scale: float, growth_interval: int) -> list[float]:
    from npulab.core.device import Device
    from npulab.pytorch.train import gradscaler_demo

    rows = gradscaler_demo(Device("cpu", "lab"), steps=len(overflows),
                           overflow_at=tuple(i for i, o in enumerate(overflows) if o),
                           init_scale=init_scale, growth_interval=growth_interval)
    return [r.scale_after for r in rows]


SCALER_CASES = [([False, True, True, True, False, False, False, False], 65536.0, 3),
                ([True, False, False, True, False, False, False], 1024.0, 2),
                ([False] * 7, 8.0, 3)]


def _check_scales(predict_scales: Callable) -> tuple[bool | None, str]:
    if not callable(predict_scales):
        return False, "请给出一个函数。"
    for overflows, init, interval in SCALER_CASES:
        got = predict_scales(overflows, init, interval)
        if got is Ellipsis:
            return None, "函数还没有实现（仍然返回 ...）。"
        real = _real_scales(overflows, init, interval)
        if not isinstance(got, (list, tuple)) or len(got) != len(real):
            return False, f"应返回与 overflows 等长的列表（{len(real)} 个数），每步更新后的缩放因子。"
        if [float(g) for g in got] != real:
            first = next(i for i, (g, r) in enumerate(zip(got, real, strict=True)) if float(g) != r)
            why = "溢出的那一步" if overflows[first] else "没有溢出的那一步"
            return False, f"第 {first} 步（{why}）之后的缩放因子与真实的 GradScaler 不同。想想计数器什么时候清零、什么时候翻倍。"
    return True, "与 torch.amp.GradScaler 的真实行为一致：溢出减半并清零计数，连续 growth_interval 步正常则翻倍。"


@functools.lru_cache(maxsize=1)
def _expected_mfu() -> float:
    from npulab.hw.roofline import peak_910b3
    from npulab.pytorch.resnet import forward_flop_per_image

    return 100 * 1254 * 3 * forward_flop_per_image(224) / (peak_910b3().value * 1e12)


def _check_mfu(answer) -> tuple[bool, str]:
    try:
        value = float(answer)
    except (TypeError, ValueError):
        return False, "请给出一个数字（百分比，例如 12.3 表示 12.3%）。"
    expected = _expected_mfu()
    if math.isclose(value, expected, rel_tol=0.02):
        return True, "吞吐 × 每张图的训练 FLOP ÷ 峰值：AMP 训练只用到了 Cube 峰值的一成左右。"
    if math.isclose(value, expected / 100, rel_tol=0.02):
        return False, "这是比例，题目要的是百分数。"
    if math.isclose(value, expected / 3, rel_tol=0.02):
        return False, "只算了前向。训练还要反向传播，它的运算量约是前向的几倍？"
    if math.isclose(value, expected / 2, rel_tol=0.02) or math.isclose(value, expected * 2, rel_tol=0.02):
        return False, "差了一个因子 2：检查乘加与 FLOP 的换算（峰值与运算量要用同一种计数）。"
    return False, "用 forward_flop_per_image(224) 得到前向 FLOP，训练按前向的 3 倍计；峰值用 20 核 × 4096 MAC × 2 × 1.8 GHz。"


def _check_bn(answer) -> tuple[bool, str]:
    if not isinstance(answer, bool):
        return False, f"请给出 True 或 False（收到的是 {type(answer).__name__}）。"
    if answer:
        return True, "训练模式下 BatchNorm 每次前向都会更新滑动统计量，no_grad 只关掉梯度，不关掉这一点。"
    return False, "再看一次：比较前向前后的 running_mean。no_grad 关掉的是什么？"


RECOMPILE_SIZES = (4, 4, 6, 10, 6)  # batch sizes of question 6, in call order


@functools.lru_cache(maxsize=1)
def expected_recompiles() -> dict[str, tuple[int, ...]]:
    """Cumulative compilations after each call, counted live by ``npulab.pytorch.compile.count_compilations``."""
    import torch

    from npulab.pytorch.compile import MLPBlock, count_compilations

    block = MLPBlock(16, 32)
    return {"default": count_compilations(block, [torch.randn(n, 16) for n in RECOMPILE_SIZES]).graphs_after,
            "static": count_compilations(block, [torch.randn(n, 16) for n in RECOMPILE_SIZES], dynamic=False).graphs_after}


def _check_recompiles(answer) -> tuple[bool | None, str]:
    if not isinstance(answer, dict) or set(answer) != {"default", "static"}:
        return False, "请给出一个字典，键为 default 和 static，值为 5 个整数的元组。"
    if any(v is Ellipsis for v in answer.values()):
        return None, "还有 ...：把它换成 5 个整数的元组（每次调用之后的累计编译次数）。"
    got = {k: tuple(v) if isinstance(v, (list, tuple)) else v for k, v in answer.items()}
    if any(not isinstance(v, tuple) or len(v) != len(RECOMPILE_SIZES) for v in got.values()):
        return False, f"每个值应有 {len(RECOMPILE_SIZES)} 个数：每次调用之后累计编译了几张图。"
    truth = expected_recompiles()
    if got == truth:
        return True, "与 Dynamo 的真实行为一致：默认设置下第二种形状触发一次动态形状的重编译；dynamic=False 每种新形状编译一次。"
    hints = []
    if got["default"] != truth["default"]:
        hints.append("default：第二次遇到不同的 batch 大小时，Dynamo 编译的是什么样的图？之后还需要再编译吗？"
                     if got["default"] != truth["static"] else "default 与 dynamic=False 的行为不一样：想想自动动态形状")
    if got["static"] != truth["static"]:
        hints.append("static：已经见过的形状会再编译吗？")
    return False, "；".join(hints)


MEMORY_CASE = {"dim": 512, "hidden": 2048, "depth": 3, "batch": 32}  # question 7: fp32, Adam


def _check_memory(answer) -> tuple[bool | None, str]:
    from npulab.pytorch.compile import mlp_step_memory

    if answer is Ellipsis:
        return None, "把 ... 换成字节数。"
    try:
        value = float(answer)
    except (TypeError, ValueError):
        return False, "请给出一个数字（字节数）。"
    m = mlp_step_memory(**MEMORY_CASE, optimizer="adam")
    close = lambda target: math.isclose(value, target, rel_tol=0.005)  # noqa: E731  (the Adam step counters may be left out)
    if close(m.total):
        return True, "权重 + 梯度 + Adam 的两份状态 + 激活：静态部分是权重的 4 倍，激活随 batch 增长。"
    if close(m.total / 2**20) or close(m.total / 1e6):
        return False, "这是 MiB 或 MB，题目要的是字节数。"
    if close(m.total - m.optimizer_state):
        return False, "少了优化器状态：Adam 为每个参数保存什么？"
    if close(m.total - m.optimizer_state / 2):
        return False, "Adam 每个参数保存几份状态？"
    if close(m.total - m.gradients):
        return False, "少了梯度。"
    if close(m.total - m.activations):
        return False, "少了激活：前向为反向保存的张量也占内存。"
    return False, "逐项算：权重 P·4、梯度 P·4、Adam 状态 2·P·4、激活 (L·B·(2d + 2h + 2) + 2·B·d)·4。"


HOST_CASE = {"per_op_us": 25.0, "ops": 1200, "device_ms": 12.0}  # question 8's (made-up) measurements


def _check_host_bound(answer) -> tuple[bool | None, str]:
    if not isinstance(answer, dict) or set(answer) != {"host_ms", "host_bound"}:
        return False, "请给出 {\"host_ms\": 数字, \"host_bound\": True 或 False}。"
    if answer["host_ms"] is Ellipsis or answer["host_bound"] is Ellipsis:
        return None, "还有一项是 ...。"
    host = HOST_CASE["per_op_us"] * HOST_CASE["ops"] / 1e3
    try:
        value = float(answer["host_ms"])
    except (TypeError, ValueError):
        return False, "host_ms 应是一个数字（毫秒）。"
    if math.isclose(value, host * 1e3, rel_tol=1e-6) or math.isclose(value, host / 1e3, rel_tol=1e-6):
        return False, "单位：每个算子的开销是微秒，答案要毫秒。"
    if not math.isclose(value, host, rel_tol=1e-6):
        return False, "主机每步的下发时间 = 算子数 × 每个算子的下发开销。"
    if answer["host_bound"] is not (host > HOST_CASE["device_ms"]):
        return False, "比较主机下发一步的时间与设备算一步的时间：哪个更长，步时就由谁决定。"
    return True, "下发 30 ms 比设备计算的 12 ms 长：设备一大半时间在等主机，先试 TASK_QUEUE_ENABLE=2、绑核，再考虑图模式。"


def make_lab() -> Lab:
    """The checker object of lab 03: ``lab.check("severity", answer)``."""
    return Lab("实验 03", {"severity": _check_severity, "backend": _check_backend, "scales": _check_scales,
                          "mfu": _check_mfu, "bn": _check_bn, "recompiles": _check_recompiles,
                          "memory": _check_memory, "host_bound": _check_host_bound})
