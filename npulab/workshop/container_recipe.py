"""Official matched-stack container images: the image each stack names in npulab/data/stacks.yaml (key ``image``)
and a ``docker run`` command that hands one container its NPUs with the course's device and driver list
(``npulab.workshop.containers``)."""

from __future__ import annotations

import shlex
from collections.abc import Sequence

from npulab.env.stack_check import stacks
from npulab.workshop.containers import NPU_CONTROL_DEVICES, NPU_DRIVER_MOUNTS

IMAGE_KEY = "image"


def stack_images() -> dict[str, str | None]:
    """Stack name → the container image its data names (None where the data has no ``image``)."""
    return {name: stack.get(IMAGE_KEY) or None for name, stack in stacks().items()}


def image_hardware(name: str) -> tuple[str | None, dict[str, str]]:
    """(the product line stack ``name``'s image is built for, {other product line: its image}) from stacks.yaml's
    ``image_hardware`` / ``image_variants``; (None, {}) where the data does not say."""
    stack = stacks()[name]
    return stack.get("image_hardware") or None, dict(stack.get("image_variants") or {})


def is_pinned(image: str | None) -> bool:
    """True for ``repo:tag`` with a tag other than ``latest`` (or a ``@sha256:`` digest)."""
    if not image:
        return False
    if "@sha256:" in image:
        return True
    name, _, tag = image.rpartition("/")[2].partition(":")
    return bool(name and tag and tag != "latest")


def docker_run_args(image: str, devices: Sequence[int] = (0,), *, command: Sequence[str] = ("bash",),
                    name: str = "npulab") -> list[str]:
    """``docker run`` arguments: ``/dev/davinciN`` for each NPU, the management devices and the host driver read-only.
    ValueError for an image without a pinned tag (a moving tag gives another stack tomorrow)."""
    if not is_pinned(image):
        raise ValueError(f"镜像 {image!r} 没有固定的标签（repo:tag，不用 latest）：同一个名字明天可能是另一套栈")
    if not devices or any(int(d) < 0 for d in devices):
        raise ValueError(f"NPU 编号须为非负整数，收到 {list(devices)}")
    args = ["docker", "run", "--rm", "-it", "--name", name]
    for node in [*(f"/dev/davinci{int(d)}" for d in devices), *NPU_CONTROL_DEVICES]:
        args += ["--device", node]
    for mount in NPU_DRIVER_MOUNTS:
        args += ["-v", f"{mount}:{mount}:ro"]
    return [*args, image, *command]


def docker_run_text(image: str, devices: Sequence[int] = (0,), **kw) -> str:
    """The same command as one shell line per option (for a page or a terminal)."""
    args = docker_run_args(image, devices, **kw)
    lines, i = [" ".join(args[:6])], 6
    while i < len(args):
        if args[i].startswith("-"):
            lines.append(f"{args[i]} {shlex.quote(args[i + 1])}")
            i += 2
        else:
            lines.append(" ".join(shlex.quote(a) for a in args[i:]))
            break
    return " \\\n  ".join(lines)
