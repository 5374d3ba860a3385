"""Every command a learner can copy that installs torch or torch-npu — in the lessons, README, docs, the site, the
workshop, the data files and the tools' output — is one npulab.env.torch_install writes: torch (and torchvision /
torchaudio) from the PyTorch CPU index alone, torch-npu after it. PyPI's torch is a CUDA build on x86_64 and, from
2.11, on aarch64, and torch_npu refuses to load beside one (tests/test_stack_resolution.py resolves the commands)."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import nbformat
import pytest

from npulab.core.paths import REPO_ROOT
from npulab.env import compatibility as compat
from npulab.env import doctor, stack_check, stacks, torch_install, versions_cli
from npulab.env.explain import catalog

TEXT_SUFFIXES = {".md", ".yaml", ".yml", ".txt", ".sh", ".py", ".toml", ".cfg", ".j2", ""}
SCANNED = ["README.md", "intro.md", "chapters", "notebooks", "about", "docs", "workshop", "npulab/data", "npulab"]
# the writer itself; the reported-cases index, whose token lists (words of real logs, split and joined) are no commands
SKIPPED = {"npulab/env/torch_install.py", "npulab/data/explain_cases.yaml"}
COMMAND = re.compile(r"(?:\buv\s+)?(?:\bpython3?\s+-m\s+)?\bpip3?\s+install\b[^\n`'\"|，。；、（）()]*")
TORCH = re.compile(r"^(torch|torchvision|torchaudio)(?:[=<>!~\[;]|$)")
TORCH_NPU = re.compile(r"^torch[-_]npu(?:[=<>!~\[;]|$)", re.IGNORECASE)


def commands(text: str) -> list[str]:
    """The ``pip install`` commands in a text, in order (``&&`` / ``;`` chains split, comments dropped)."""
    found = []
    for match in COMMAND.finditer(text):
        for part in re.split(r"&&|;", match.group(0)):
            part = re.sub(r"\s+#.*", "", part).strip()
            if re.match(r"(uv\s+)?(python3?\s+-m\s+)?pip3?\s+install\b", part):
                found.append(" ".join(re.sub(r"^python3?\s+-m\s+", "", part).replace("pip3 ", "pip ").split()))
    return found


def problems(where: str, text: str) -> list[str]:
    """Commands of one text that install torch not as torch_install writes it, or torch-npu with no such torch
    command before it in the same text."""
    found, torch_seen = [], False
    for command in commands(text):
        words = command.split()[3 if command.startswith("uv ") else 2:]
        if any(TORCH.match(w) for w in words):
            if torch_install.rendered(command):
                torch_seen = True
            else:
                found.append(f"{where}: {command}（应为 {torch_install.torch_command('<版本>')} 的形式）")
        elif any(TORCH_NPU.match(w) for w in words) and not torch_seen:
            found.append(f"{where}: {command}（前面没有从 CPU 索引装 torch 的命令：PyPI 会装 CUDA 版 torch）")
    return found


def _texts():
    """(where, text) for every scanned file; a notebook cell by cell."""
    seen = set()
    for top in SCANNED:
        root = REPO_ROOT / top
        paths = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file())
        for path in paths:
            rel = path.relative_to(REPO_ROOT).as_posix()
            if rel in seen or rel in SKIPPED or "__pycache__" in rel or "/_build/" in rel:
                continue
            seen.add(rel)
            if path.suffix == ".ipynb":
                for i, cell in enumerate(nbformat.read(path, as_version=4).cells):
                    yield f"{rel} 单元 {i}", cell.source
            elif path.suffix in TEXT_SUFFIXES:
                try:
                    yield rel, path.read_text(encoding="utf-8")
                except UnicodeDecodeError:
                    continue


def _tool_outputs():
    """(where, text) for what the tools print: versions for every CANN, doctor --stack fixes, explain, doctor."""
    for cann in sorted({row["cann"] for row in compat.table("torch_npu")}) + [None]:
        for section in versions_cli.resolve(cann):
            yield f"versions --cann {cann}", "\n".join(section.commands)
    for name in stacks.load():
        yield f"doctor --stack {name}", "\n".join(c.fix for c in stack_check.check_stack(name, lambda _p: None))
        yield f"stacks.table({name})", stacks.table(name).text()
    for lang in ("zh", "en"):
        for entry in catalog.load_catalog(lang=lang):
            yield f"explain {entry.id} ({lang})", f"{entry.cause}\n{entry.fix}"
    yield "doctor torch_npu", doctor._probe_fix("Two accelerators cannot be used at the same time", None)
    yield "doctor torch", doctor._check_torch(doctor._Context({}, None, [], [], lambda _n: None, 0)).fix
    yield "version_alignment", compat.check_alignment("2.12.0", "2.10.0.post4", "9.1.0").fix


def test_the_writer():
    assert torch_install.torch_command("2.12.0") == "pip install torch==2.12.0 --index-url https://download.pytorch.org/whl/cpu"
    assert torch_install.commands("2.7.1", "2.7.1.post8") == [
        "pip install torch==2.7.1 --index-url https://download.pytorch.org/whl/cpu", "pip install torch-npu==2.7.1.post8"]
    assert torch_install.torch_command("2.10.0", "0.25.0", "2.10.0").startswith(
        "pip install torch==2.10.0 torchvision==0.25.0 torchaudio==2.10.0 --index-url")
    for good in (torch_install.torch_command("2.12.0"), "uv " + torch_install.torch_command("<配套版本>")):
        assert torch_install.rendered(good), good
    for bad in ("pip install torch==2.12.0", "pip install torch==2.12.0 torch-npu==2.12.0",
                "pip install torch==2.12.0 --extra-index-url https://download.pytorch.org/whl/cpu",
                "pip install torch --index-url https://download.pytorch.org/whl/cpu",
                "pip install torch==2.12.0 --index-url https://download.pytorch.org/whl/cu130"):
        assert not torch_install.rendered(bad), bad


def test_the_scan_finds_what_it_must():
    """The scan's own teeth: the commands the review found (versions, stacks, casebook) would be reported."""
    assert problems("x", "$ pip install torch==2.12.0 torch-npu==2.12.0")
    assert problems("x", "- pip install ms-swift==4.6.0\n- pip install torch==2.10.0 torchvision==0.25.0 torchaudio==2.10.0")
    assert problems("x", "`pip install torch` 在 x86 Linux 上默认装的是带 CUDA 的版本")
    assert problems("x", "pip install torch-npu==2.12.0")  # alone: PyPI brings CUDA torch with it
    assert problems("x", "uv pip install torch==2.12.0")
    ok = "pip install torch==2.12.0 --index-url https://download.pytorch.org/whl/cpu && pip install torch-npu==2.12.0"
    assert not problems("x", ok) and commands(ok) == ok.split(" && ")


def test_every_copyable_torch_install_in_the_repository_is_written_by_torch_install():
    found, scanned = [], 0
    for where, text in _texts():
        scanned += 1
        found += problems(where, text)
    assert scanned > 200, scanned
    assert not found, "\n".join(found)


def test_every_torch_install_the_tools_print_is_written_by_torch_install():
    found, named = [], 0
    for where, text in _tool_outputs():
        named += sum(1 for c in commands(text) if "torch" in c)
        found += problems(where, text)
    assert named > 20, named
    assert not found, "\n".join(found)


def test_each_stack_installs_torch_first_from_the_cpu_index():
    """A stack that installs torch does so in its first command that brings torch (ms-swift 4.6.0 first would pull
    PyPI's newest CUDA torch and community triton, and a later downgrade leaves them behind)."""
    for name, stack in stacks.load().items():
        torch = stacks.pinned_version(stack, "torch")
        first = stack["install"][0]
        if not torch or first.startswith("pip install -r "):
            continue  # a requirements file with the CPU index: tests/test_stack_resolution.py resolves it
        assert torch_install.rendered(first) and f"torch=={torch} " in first, (name, first)


@pytest.mark.parametrize("args", [(), ("--cann", "9.1.0"), ("--cann", "8.0.0", "--chip", "910B3")])
def test_versions_json_prints_the_cpu_index_command(args):
    run = subprocess.run([sys.executable, "-m", "npulab", "versions", *args, "--json"], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    printed = [c for s in json.loads(run.stdout)["sections"] for c in s["commands"] if "torch" in c]
    assert printed and all(f"--index-url {torch_install.CPU_INDEX} && pip install torch-npu==" in c for c in printed)
    assert not problems("versions", "\n".join(printed))


def test_doctor_stack_json_fix_lines_use_the_cpu_index(tmp_path):
    run = subprocess.run([sys.executable, "-m", "npulab", "doctor", "--stack", "mindspeed-llm", "--json"],
                         capture_output=True, text=True, cwd=tmp_path)
    assert run.returncode in (0, 1), run.stderr
    checks = {c["id"]: c for c in json.loads(run.stdout)["checks"]}
    for package in ("torch", "torch-npu"):
        if checks[package]["status"] == "fail" and "未安装" in checks[package]["message"]:
            assert torch_install.torch_command("2.7.1") in checks[package]["fix"], checks[package]
    fixes = {c.id: c.fix for c in stack_check.check_stack("mindspeed-llm", lambda _p: None)}
    assert fixes["torch"].startswith(torch_install.torch_command("2.7.1"))
    assert fixes["torch-npu"].startswith(torch_install.pair_text("2.7.1", "2.7.1.post8"))


def _fake_torch(folder, version: str, requires: list[str]) -> None:
    info = folder / f"torch-{version}.dist-info"
    info.mkdir(parents=True)
    info.joinpath("METADATA").write_text("Metadata-Version: 2.1\nName: torch\nVersion: " + version + "\n"
                                         + "".join(f"Requires-Dist: {r}\n" for r in requires), encoding="utf-8")


def test_doctor_tells_pypis_cuda_torch_by_its_requirements_not_its_version(tmp_path, monkeypatch):
    """PyPI's torch 2.12.0 wheel (abridged Requires-Dist) reads as plain 2.12.0; doctor names it a CUDA build, and
    beside torch_npu a failure whose fix is the CPU-index command."""
    _fake_torch(tmp_path, "2.12.0", ["filelock", 'cuda-toolkit[cublas,cudart]==13.0.2; platform_system == "Linux"',
                                     'nvidia-cudnn-cu13==9.20.0.48; platform_system == "Linux"',
                                     'opt-einsum>=3.3; extra == "opt-einsum"'])
    monkeypatch.syspath_prepend(str(tmp_path))
    assert doctor.torch_cuda_requirements() == (["cuda-toolkit", "nvidia-cudnn-cu13"] if sys.platform == "linux" else [])
    if sys.platform != "linux":
        return
    installed = {"torch": "2.12.0", "torch-npu": "2.12.0"}
    check = doctor._check_torch(doctor._Context({}, None, [], [], installed.get, 0))
    assert check.status == "fail" and "CUDA 构建" in check.message
    assert check.fix == "pip uninstall -y torch && " + torch_install.torch_command("2.12.0")
    alone = doctor._check_torch(doctor._Context({}, None, [], [], {"torch": "2.12.0"}.get, 0))
    assert alone.status == "ok" and "CUDA 构建" in alone.message  # no torch_npu: nothing to fix


def test_doctor_takes_the_cpu_build_as_it_is(tmp_path, monkeypatch):
    _fake_torch(tmp_path, "2.12.0+cpu", ["filelock", "sympy>=1.13.3"])
    monkeypatch.syspath_prepend(str(tmp_path))
    assert doctor.torch_cuda_requirements() == []
    check = doctor._check_torch(doctor._Context({}, None, [], [], {"torch": "2.12.0+cpu", "torch-npu": "2.12.0"}.get, 0))
    assert check.status == "ok" and "CPU 构建" in check.message
