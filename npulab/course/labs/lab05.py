"""Checks of lab 05 (the Ascend toolchain: npu-smi, ascend-dmi figures, ATC, AscendCL)."""

from __future__ import annotations

import functools
import math
import tempfile
from collections.abc import Callable
from pathlib import Path

from npulab.core.i18n import t
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
        return False, t("lab05.cards.type")
    from npulab.ascend_tools.smi import samples

    cases = [(samples.text("list_200ia2.txt"), 1), (_listing(_CARD_IDS), 8), (_listing((1, 3, 4, 6), chips=4), 4)]
    for text, expected in cases:
        got = count_cards(text)
        if got is Ellipsis:
            return None, t("lab05.stub")
        if not isinstance(got, int) or isinstance(got, bool):
            return False, t("lab05.cards.not_int", type=type(got).__name__)
        if got == 2 * expected or got == 2 * expected + 1:
            return False, t("lab05.cards.double")
        if got != expected:
            return False, t("lab05.cards.wrong", expected=expected, got=got)
    return True, t("lab05.cards.right")


def _expected_phy() -> tuple[int, int, int]:
    from npulab.ascend_tools.smi import parse_info, samples

    chip = min(parse_info(samples.text("info_a3_8npu_16die_25.2.1.txt")).chips, key=lambda c: c.hbm_used_mb)
    return chip.phy_id, chip.npu_id, chip.chip_id


def _check_phy(answer) -> tuple[bool, str]:
    if not isinstance(answer, int) or isinstance(answer, bool):
        return False, t("lab05.phy.type", type=type(answer).__name__)
    phy, npu, chip = _expected_phy()
    if answer == phy:
        return True, t("lab05.phy.right")
    if answer == npu:
        return False, t("lab05.phy.npu_id")
    if answer == chip:
        return False, t("lab05.phy.chip_id")
    return False, t("lab05.phy.other")


def _check_pcie(answer) -> tuple[bool, str]:
    try:
        value = float(answer)
    except (TypeError, ValueError):
        return False, t("lab05.pcie.type")
    expected = 16 * 16 * 128 / 130 / 8
    if math.isclose(value, expected, rel_tol=0.01):
        return True, t("lab05.pcie.right")
    if math.isclose(value, 25.2, rel_tol=0.01):
        return False, t("lab05.pcie.seed")
    if math.isclose(value, expected * 8, rel_tol=0.01):
        return False, t("lab05.pcie.bits")
    if math.isclose(value, 16 * 16 / 8, rel_tol=0.01):
        return False, t("lab05.pcie.encoding")
    return False, t("lab05.pcie.other")


def _check_om(answer) -> tuple[bool, str]:
    try:
        value = float(answer)
    except (TypeError, ValueError):
        return False, t("lab05.om.type")
    params = 25_557_032
    if math.isclose(value, params * 2 / 1e6, rel_tol=0.02):
        return True, t("lab05.om.right")
    if math.isclose(value, params * 4 / 1e6, rel_tol=0.02):
        return False, t("lab05.om.fp32")
    if math.isclose(value, params * 2 / 2**20, rel_tol=0.02):
        return False, t("lab05.om.mib")
    return False, t("lab05.om.other")


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


def _unknown_input(answer: str) -> bool:
    """Whether ``answer`` (an --input_shape value) names an input that the lab's model does not have."""
    from npulab.ascend_tools import atc, onnx_export
    try:
        given = atc.parse_input_shape(answer)
    except atc.AtcError:
        return False
    return bool(set(given) - {spec.name for spec in onnx_export.inputs(lab_model())})


def _check_shape(answer) -> tuple[bool, str]:
    from npulab.ascend_tools import atc
    if not isinstance(answer, str):
        return False, t("lab05.shape.type")
    try:
        atc.command(lab_model(), soc_version="Ascend910B3", input_shape=answer, precision_mode="force_fp16")
    except atc.AtcError as err:
        message = str(err)
        if _unknown_input(answer):
            return False, t("lab05.shape.name")
        return False, t("lab05.shape.rejected", message=message)
    return True, t("lab05.shape.right")


ACQUIRED = ("acl.init", "acl.rt.set_device", "acl.rt.create_context", "acl.rt.create_stream", "acl.mdl.load_from_file",
            "acl.mdl.create_desc", "acl.rt.malloc")
RELEASES = {"acl.init": "acl.finalize", "acl.rt.set_device": "acl.rt.reset_device",
            "acl.rt.create_context": "acl.rt.destroy_context", "acl.rt.create_stream": "acl.rt.destroy_stream",
            "acl.mdl.load_from_file": "acl.mdl.unload", "acl.mdl.create_desc": "acl.mdl.destroy_desc",
            "acl.rt.malloc": "acl.rt.free"}


def _check_release(answer) -> tuple[bool, str]:
    if not isinstance(answer, (list, tuple)) or not all(isinstance(a, str) for a in answer):
        return False, t("lab05.release.type")
    expected = [RELEASES[a] for a in reversed(ACQUIRED)]
    if sorted(answer) != sorted(expected):
        missing = set(expected) - set(answer)
        extra = set(answer) - set(expected)
        parts = ([t("lab05.release.missing", calls=", ".join(sorted(missing)))] if missing else []) + (
            [t("lab05.release.extra", calls=", ".join(sorted(extra)))] if extra else [])
        return False, t("lab05.release.unpaired", problems=t("lab05.sep").join(parts))
    if list(answer) == expected:
        return True, t("lab05.release.right")
    if list(answer) == [RELEASES[a] for a in ACQUIRED]:
        return False, t("lab05.release.acquire_order")
    if answer[-1] != "acl.finalize":
        return False, t("lab05.release.finalize")
    return False, t("lab05.release.other")


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
        return False, t("lab05.hot_op.type")
    trace = lab_trace()
    top_self = profile_trace.top_ops(trace, 1)[0].name
    if answer == top_self:
        return True, t("lab05.hot_op.right")
    stats = profile_trace.top_ops(trace, 1000)
    by_total = max(stats, key=lambda s: s.total_us).name
    if answer == by_total:
        return False, t("lab05.hot_op.total")
    if answer not in {s.name for s in stats}:
        return False, t("lab05.hot_op.unknown")
    return False, t("lab05.hot_op.other")


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
        return False, t("lab05.overflow.type")
    model = lab_overflow_model()
    expected = precision.first_nonfinite(model, lab_overflow_input(), dtype=torch.float16)
    if answer == expected:
        return True, t("lab05.overflow.right")
    if answer is None:
        return False, t("lab05.overflow.none")
    if expected and expected.startswith(answer + ".") or answer == "":
        return False, t("lab05.overflow.container")
    names = [n for n, _ in model.named_modules()]
    if answer not in names:
        return False, t("lab05.overflow.unknown")
    return False, t("lab05.overflow.later")


def make_lab() -> Lab:
    """The checker object a lab notebook uses: ``lab.check("cards", count_cards)``."""
    return Lab(t("lab05.title"), {"cards": _check_cards, "phy": _check_phy, "pcie": _check_pcie, "om": _check_om,
                          "shape": _check_shape, "release": _check_release, "hot_op": _check_hot_op,
                          "overflow": _check_overflow})
