"""requirements-cann.txt and doctor's CANN_DEPS_REQUIRED name the same packages (CANN 9.1.0 instg_0045): every venv
that loads CANN installs what doctor's cann_python_deps check expects, with at least its minimum versions."""

from __future__ import annotations

import re

from packaging.requirements import Requirement
from packaging.version import Version

from npulab.core.paths import REPO_ROOT
from npulab.env import stacks
from npulab.env.doctor import CANN_DEPS_REQUIRED


def _requirements(path) -> dict[str, Requirement]:
    lines = (re.sub(r"(^|\s)#.*", "", raw).strip() for raw in path.read_text(encoding="utf-8").splitlines())
    found = [Requirement(line) for line in lines if line and not line.startswith("-")]
    return {stacks.canonical(r.name): r for r in found}


def test_the_file_installs_what_doctor_requires():
    listed = _requirements(REPO_ROOT / "requirements-cann.txt")
    course = {stacks.canonical(Requirement(d).name): Requirement(d) for d in stacks.course_dependencies()}
    for name, minimum in CANN_DEPS_REQUIRED.items():
        key = stacks.canonical(name)
        requirement = listed.get(key) or course.get(key)  # numpy comes with `pip install -e .`
        assert requirement is not None, f"requirements-cann.txt 缺 {name}（doctor 的 CANN_DEPS_REQUIRED 要它）"
        if minimum:
            assert not requirement.specifier or requirement.specifier.contains(Version(minimum)), (name, minimum)
            if key in listed:
                assert f">={minimum}" in str(requirement.specifier), (name, str(requirement.specifier))
    assert "protobuf" in listed  # review 2026-12c L4


def test_every_venv_that_loads_cann_includes_the_file():
    for path in ("requirements-npu.txt", "requirements-npu-triton.txt"):
        text = (REPO_ROOT / path).read_text(encoding="utf-8")
        assert re.search(r"^-r requirements-cann\.txt", text, re.M), path
