"""The one place that writes a command installing PyTorch for torch_npu (stacks, ``versions``, ``doctor``, ``explain``,
the lessons; tests/test_install_commands.py checks that every such command a learner can copy is one written here).

PyPI's torch wheel is a CUDA build on linux x86_64 (every release: torch 2.10.0 requires ``nvidia-cudnn-cu12`` and
``triton``) and, from torch 2.11, on linux aarch64 too (2.12.0 is ``2.12.0+cu130`` and requires ``cuda-toolkit`` and
``nvidia-*-cu13``); pip shows such a wheel as plain ``2.12.0``. torch_npu refuses to load beside a CUDA build ("Two
accelerators cannot be used at the same time in PyTorch: npu and cuda", ``_check_device_conflict`` in
torch_npu/__init__.py), and torch_npu's x86_64 wheels of 2.7.1 and 2.10.0 pin ``torch==X+cpu``, which only the PyTorch CPU
index has. So, as the Ascend/pytorch README does (tag v26.1.0-pytorch2.12.0, both architectures): torch (and
torchvision / torchaudio where a stack needs them) from the CPU index alone, then torch-npu from PyPI, which keeps the
installed torch because it already satisfies torch-npu's pin. ``--index-url`` makes the CPU index the only index of
that command, so pip (highest version over all indexes) and uv (first index that has the package) pick the same
wheel, and the same command serves linux aarch64 and x86_64.
"""

from __future__ import annotations

import re

CPU_INDEX = "https://download.pytorch.org/whl/cpu"
TORCH_FAMILY = ("torch", "torchvision", "torchaudio")  # built together; each has CUDA builds on PyPI
SOURCE = "https://github.com/Ascend/pytorch/blob/v26.1.0-pytorch2.12.0/README.md"
PLACEHOLDER = "<配套版本>"  # a version the text leaves to the learner (one word: a command stays one token per argument)


def torch_command(torch: str, torchvision: str | None = None, torchaudio: str | None = None) -> str:
    """``pip install torch==X [torchvision==Y torchaudio==Z] --index-url <CPU index>`` (a version may be a placeholder
    such as ``<配套版本>``)."""
    pins = [f"torch=={torch}"] + [f"{name}=={version}" for name, version in
                                  (("torchvision", torchvision), ("torchaudio", torchaudio)) if version]
    return f"pip install {' '.join(pins)} --index-url {CPU_INDEX}"


def torch_npu_command(torch_npu: str) -> str:
    """``pip install torch-npu==X``: run after :func:`torch_command`, whose torch it keeps."""
    return f"pip install torch-npu=={torch_npu}"


def commands(torch: str, torch_npu: str | None = None) -> list[str]:
    """The install of a torch / torch_npu pair, in order: torch from the CPU index, then torch-npu."""
    return [torch_command(torch)] + ([torch_npu_command(torch_npu)] if torch_npu else [])


def pair_text(torch: str, torch_npu: str) -> str:
    """The pair's commands on one line, joined by ``&&`` (for a fix column)."""
    return " && ".join(commands(torch, torch_npu))


_PIN = re.compile(r"^(torch|torchvision|torchaudio)==(\S+)$")


def rendered(command: str) -> bool:
    """Whether a ``pip install`` command that names torch (or its family) is exactly one :func:`torch_command`
    writes (``uv pip install`` is judged the same way)."""
    words = command.split()
    if words[:2] == ["uv", "pip"]:
        words = words[1:]
    pins = dict(m.groups() for w in words[2:] if (m := _PIN.match(w)))
    if "torch" not in pins:
        return False
    return " ".join(words) == torch_command(pins["torch"], pins.get("torchvision"), pins.get("torchaudio"))
