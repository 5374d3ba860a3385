"""npulab.workshop.container_recipe: images come from stacks.yaml's ``image`` key; docker run uses the course's device list."""

from __future__ import annotations

import pytest

from npulab.env.stack_check import stacks
from npulab.workshop import container_recipe as cr
from npulab.workshop.containers import NPU_CONTROL_DEVICES, NPU_DRIVER_MOUNTS


def test_images_are_read_from_the_stack_data():
    images = cr.stack_images()
    assert set(images) == set(stacks())
    for name, image in images.items():
        assert image == (stacks()[name].get("image") or None)


@pytest.mark.parametrize("image, pinned", [
    ("quay.io/ascend/cann:8.5.0-910b-ubuntu22.04-py3.11", True), ("quay.io/ascend/vllm-ascend:v0.23.0", True),
    ("quay.io/ascend/ms-swift", False), ("quay.io/ascend/cann:latest", False), (None, False),
    ("localhost:5000/cann", False), ("localhost:5000/cann:9.1.0", True), ("quay.io/x/y@sha256:abc", True),
])
def test_pinned_tags(image, pinned):
    assert cr.is_pinned(image) is pinned


def test_docker_run_passes_the_cards_the_management_devices_and_the_driver():
    args = cr.docker_run_args("quay.io/ascend/cann:9.1.0", (4, 5), command=("npu-smi", "info"))
    devices = [args[i + 1] for i, a in enumerate(args) if a == "--device"]
    assert devices == ["/dev/davinci4", "/dev/davinci5", *NPU_CONTROL_DEVICES]
    mounts = [args[i + 1] for i, a in enumerate(args) if a == "-v"]
    assert mounts == [f"{m}:{m}:ro" for m in NPU_DRIVER_MOUNTS]
    assert "/etc/ascend_install.info:/etc/ascend_install.info:ro" in mounts  # as vLLM-Ascend's docker run (review L1)
    assert args[-3:] == ["quay.io/ascend/cann:9.1.0", "npu-smi", "info"]
    text = cr.docker_run_text("quay.io/ascend/cann:9.1.0", (0,))
    assert text.startswith("docker run --rm -it --name npulab \\\n  --device /dev/davinci0") and text.endswith("bash")
    for bad in ("quay.io/ascend/ms-swift", "quay.io/ascend/cann:latest"):
        with pytest.raises(ValueError, match="固定的标签"):
            cr.docker_run_args(bad)
    with pytest.raises(ValueError, match="非负"):
        cr.docker_run_args("quay.io/ascend/cann:9.1.0", (-1,))


def test_the_vllm_image_says_which_hardware_it_is_for():
    """vLLM-Ascend v0.23.0's image table: the plain tag is the Atlas A2 image; A3, 300I Duo and 950 have their own."""
    line, variants = cr.image_hardware("vllm-ascend")
    image = stacks()["vllm-ascend"]["image"]
    assert line == "Atlas A2" and cr.is_pinned(image)
    assert {v.removeprefix(image) for v in variants.values()} == {"-a3", "-310p", "-a5"}
    assert all(cr.is_pinned(v) for v in variants.values())
    for name, stack in stacks().items():  # a stack with an image either says its hardware or says nothing
        assert cr.image_hardware(name)[0] is None or stack.get("image"), name
