"""npulab.env.stacks without the network: how a stack's documented install becomes requirements, what resolution
does with the installer's answers (a stand-in uv), the venv a lesson cell runs a stack's tools from, and the table."""

from __future__ import annotations

import os
import re
import stat

import pytest

from npulab.core.cli import UsageError
from npulab.env import stacks


def test_every_stack_documents_an_install_a_python_and_its_sources():
    for name, stack in stacks.load().items():
        assert stack["install"] and stack["sources"] and stack["environment"], name
        assert stack["resolve_python"] and stack.get("label") in ("stable", "release candidate"), name
        assert all(command.startswith("pip install ") for command in stack["install"]), name
    with pytest.raises(UsageError, match="没有名为"):
        stacks.get("no-such-stack")


def test_later_pins_replace_earlier_ones_and_ranges_add():
    requirements, indexes = stacks.install_requirements("course")
    assert "torch==2.12.0" in requirements and "torch==2.13.0" not in requirements  # requirements-npu.txt wins
    assert "numpy>=1.26.4,<2" in requirements  # npulab's plain "numpy" does not lift requirements.txt's cap
    assert "attrs" in requirements  # -r requirements-cann.txt is followed
    assert stacks.CPU_INDEX in indexes
    triton, indexes = stacks.install_requirements("triton-ascend")
    assert {"triton-ascend==3.2.2", "ipykernel>=6.29", "matplotlib>=3.9", "protobuf"} <= set(triton)  # 06/02's kernel
    assert "https://mirrors.huaweicloud.com/ascend/repos/pypi" in indexes  # 3.2.2 is on the Ascend mirror only
    pypi, _ = stacks.install_requirements("triton-ascend-pypi")
    assert {"triton-ascend==3.2.0", "protobuf==3.20.3", "ipykernel>=6.29"} <= set(pypi)  # the PyPI-only alternative
    mindspeed, _ = stacks.install_requirements("mindspeed-llm")  # a git checkout's file, copied into the data
    assert "transformers==5.2.0" in mindspeed and "pyarrow<=24.0.0" in mindspeed


def test_pyproject_declares_what_npulab_imports():
    assert {"numpy", "pyyaml>=6", "packaging", "matplotlib>=3.9"} <= set(stacks.course_dependencies())


def _stand_in_uv(tmp_path, stdout: str = "", stderr: str = "", code: int = 0):
    uv = tmp_path / "uv"
    uv.write_text(f"#!/bin/sh\ncat <<'EOF'\n{stdout}\nEOF\ncat >&2 <<'EOF'\n{stderr}\nEOF\n"
                  f"for a in \"$@\"; do echo \"$a\"; done > {tmp_path}/args\nexit {code}\n")
    uv.chmod(uv.stat().st_mode | stat.S_IEXEC)
    return str(uv)


def test_resolve_reads_the_pins_and_excludes_what_is_outside_pypi(tmp_path):
    uv = _stand_in_uv(tmp_path, "vllm-ascend==0.23.0\ntorch==2.10.0+cpu\ntorch-npu==2.10.0.post4\n")
    result = stacks.resolve("vllm-ascend", "x86_64", uv=uv, cpu_index_up=True)
    assert result.pins == {"vllm-ascend": "0.23.0", "torch": "2.10.0+cpu", "torch-npu": "2.10.0.post4"}
    assert {e["name"] for e in result.outside_pypi} >= {"triton-ascend", "vllm", "CANN"}
    args = (tmp_path / "args").read_text().split("\n")
    assert args[args.index("--python-platform") + 1] == "x86_64-unknown-linux-gnu"
    assert args[args.index("--python-version") + 1] == "3.12"
    assert args[args.index("--extra-index-url") + 1] == stacks.CPU_INDEX  # the printed command names it


def test_resolve_adds_no_index_the_commands_do_not_name(tmp_path):
    """The resolution is of the commands as shown: without the CPU index in them it is not used on any platform, and
    a stack that names it is not resolved when it does not answer (no PyPI torch in its place)."""
    uv = _stand_in_uv(tmp_path, "mindspore==2.10.0\n")
    stacks.resolve("mindspore", "x86_64", uv=uv, cpu_index_up=True)
    assert "--extra-index-url" not in (tmp_path / "args").read_text().split("\n")
    (tmp_path / "args").unlink()
    with pytest.raises(stacks.CpuIndexUnreachable, match="download.pytorch.org"):
        stacks.resolve("vllm-ascend", "aarch64", uv=uv, cpu_index_up=False)
    assert not (tmp_path / "args").exists()  # uv never ran
    torch_only = ["pip install torch==2.10.0"]
    stacks.resolve("vllm-ascend", "x86_64", uv=uv, cpu_index_up=False, install=torch_only)
    assert "--extra-index-url" not in (tmp_path / "args").read_text().split("\n")


def test_cuda_packages_are_named():
    pins = {"torch": "2.12.0", "nvidia-cudnn-cu13": "9.20.0.48", "cuda-toolkit": "13.0.2", "numpy": "1.26.4"}
    assert stacks.cuda_packages(pins) == ["cuda-toolkit", "nvidia-cudnn-cu13"]
    assert stacks.cuda_packages({"torch": "2.12.0+cu130"}) == ["torch"]
    assert stacks.cuda_packages({"torch": "2.12.0+cpu", "torchaudio": "2.10.0+cpu"}) == []


def test_resolve_tells_offline_from_unsolvable(tmp_path):
    offline = _stand_in_uv(tmp_path, stderr="error: Failed to fetch: `https://pypi.org/simple/torch/`", code=2)
    with pytest.raises(stacks.IndexUnreachable):
        stacks.resolve("mindspore", "aarch64", uv=offline)
    stuck = _stand_in_uv(tmp_path, stderr="error: No solution found when resolving dependencies", code=1)
    with pytest.raises(stacks.Unresolvable, match="No solution"):
        stacks.resolve("mindspore", "aarch64", uv=stuck)


def test_tool_path_puts_the_stacks_venv_first(tmp_path, monkeypatch):
    monkeypatch.setenv("NPULAB_VENV_MS_SWIFT", str(tmp_path / "missing"))
    assert stacks.tool_path("ms-swift") == os.environ["PATH"]  # no venv there: the container's PATH
    (tmp_path / "swift" / "bin").mkdir(parents=True)
    monkeypatch.setenv("NPULAB_VENV_MS_SWIFT", str(tmp_path / "swift"))
    assert stacks.tool_path("ms-swift").startswith(str(tmp_path / "swift" / "bin") + os.pathsep)


def test_modules_map_to_distributions():
    assert "triton-ascend" in stacks.distributions_for("triton") and "pyyaml" in stacks.distributions_for("yaml")
    assert stacks.distributions_for("torchair") == {"torch-npu"} | stacks.distributions_for("torchair")
    assert stacks.notebook_stack({}) == "course" and stacks.notebook_stack({"course": {"stack": "x"}}) == "x"


def test_the_table_a_lesson_shows():
    text = stacks.table("vllm-ascend").text()
    assert "vllm-ascend" in text and "quay.io/ascend/vllm-ascend:v0.23.0" in text
    assert "PyPI 之外：triton-ascend 3.2.2" in text and "mirrors.huaweicloud.com/ascend/repos/pypi" in text
    assert "source /usr/local/Ascend/nnal/atb/set_env.sh" in text and "Atlas A2 的镜像" in text and "v0.23.0-a3" in text
    assert "不能这样装" in text  # the recorded conflict


def test_a_cell_of_another_stack_runs_that_stacks_tools():
    """An npu cell whose `# stack:` differs from its lesson's kernel runs its command lines with the stack's own
    tools (stacks.tool_path), since its Python lines run in the lesson's kernel."""
    import nbformat

    from npulab.core.paths import REPO_ROOT
    from npulab.lint.features import cell_stack

    checked = 0
    for path in sorted([*REPO_ROOT.glob("chapters/*/*.ipynb"), *REPO_ROOT.glob("notebooks/*.ipynb")]):
        nb = nbformat.read(path, as_version=4)
        lesson = stacks.notebook_stack(nb.metadata)
        for cell in nb.cells:
            name = cell_stack(cell.source) if cell.cell_type == "code" else None
            if name and name != lesson and re.search(r"^\s*!", cell.source, re.MULTILINE):
                checked += 1
                assert f'stacks.tool_path("{name}")' in cell.source, (path.name, cell.get("id"))
    assert checked >= 4  # 06/05: ms-swift, MindSpeed-LLM, two vLLM-Ascend cells
