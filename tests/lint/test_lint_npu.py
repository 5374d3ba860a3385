"""lint-npu: the torch_npu symbol index, cell parsing, leaf checks and the command line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import nbformat
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from npulab.__main__ import main as npulab_main
from npulab.core.cli import UsageError
from npulab.core.notebook_cells import python_source
from npulab.lint import command
from npulab.lint.notebook import check_leaves, defined_names, used_names
from npulab.pytorch import torch_npu_names
from npulab.pytorch.torch_npu_names import (
    SymbolIndex,
    build_index,
    load_index,
    pinned_index,
    pinned_version,
    torch_npu_path,
)

FAKE_VERSION = "9.9.9"
FAKE_WHEEL = f"torch_npu-{FAKE_VERSION}-cp311-cp311-manylinux_2_28_x86_64.whl"
FAKE_FILES = {
    "torch_npu/__init__.py": (
        '__all__ = ["lazy_thing"]\nimport torch\nfrom torch_npu.version import __version__\n'
        "from . import npu\nfrom .utils import helper as _helper\n"
    ),
    "torch_npu/version.py": '__version__ = "9.9.9"\n',
    "torch_npu/npu/__init__.py": (
        "from .utils import synchronize, current_device\nfrom .streams import Stream, Event, Local\n"
        "from .config_mod import *\nfrom . import amp\n\n"
        "class _Config:\n    def __setattr__(self, name, value):\n        pass\n\n"
        "config = _Config()\n\ndef is_available():\n    return False\n"
        "try:\n    from ._maybe import maybe_fn\nexcept ImportError:\n    maybe_fn = None\n"
    ),
    "torch_npu/npu/utils.py": "def synchronize():\n    pass\n\ndef current_device():\n    return 0\n\n"
    "def get_cann_version():\n    return ''\n",
    "torch_npu/npu/streams.py": (
        "import torch_npu\n\nclass Stream(torch_npu._C._StreamBase):\n    def query(self):\n        pass\n\n"
        "class Event:\n    def record(self):\n        pass\n\nclass Local(Event):\n    def wait(self):\n        pass\n"
    ),
    "torch_npu/npu/config_mod.py": '__all__ = ["set_option"]\n\ndef set_option():\n    pass\n\ndef hidden():\n    pass\n',
    "torch_npu/npu/amp/__init__.py": "from .grad_scaler import GradScaler\nfrom torch.amp import autocast\n",
    "torch_npu/npu/amp/grad_scaler.py": "class GradScaler:\n    def scale(self, x):\n        return x\n",
    "torch_npu/utils/__init__.py": "",
    "torch_npu/utils/helper.py": "def help_me():\n    pass\n",
    "torch_npu/utils/custom_ops.py": (
        "import torch\nimport torch_npu\n\ntorch_npu.npu_fast_gelu = torch.ops.npu.npu_fast_gelu\n"
        '_NAMES = ["npu_a", "npu_b"]\nfor name in _NAMES:\n    setattr(torch_npu, name, getattr(torch.ops.npu, name))\n'
        "x = torch_npu.hifloat8\n"
    ),
    "torch_npu/contrib/__init__.py": "",
    "torch_npu/contrib/transfer_to_npu.py": "import torch\n",
    "torch_npu/profiler/__init__.py": (
        "from torch_npu._C._profiler import ProfilerActivity\nfrom .profiler import profile, tensorboard_trace_handler\n"
    ),
    "torch_npu/profiler/profiler.py": "def profile():\n    pass\n\ndef tensorboard_trace_handler(d):\n    pass\n",
    "torch_npu/broken.py": "def (:\n",
    "torch_npu/lazy.py": "def __getattr__(name):\n    return name\n",
    "torch_npu/csrc/aten/npu_native_functions_by_codegen.yaml": (
        "backend: NPU\ncustom:\n- func: npu_format_cast(Tensor self, int acl_format) -> Tensor\n"
        "- exposed: true\n  func: npu_rms_norm(Tensor self, Tensor gamma) -> (Tensor, Tensor)\n"
        "- func: get_npu_format(Tensor self) -> int\nsupported:\n- func: add.Tensor(Tensor self, Tensor other) -> Tensor\n"
    ),
    "torch_npu/_C.cpython-311-x86_64-linux-gnu.so": "\x7fELF",
    f"torch_npu-{FAKE_VERSION}.dist-info/METADATA": f"Name: torch_npu\nVersion: {FAKE_VERSION}\n",
}


def make_wheel(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    wheel = folder / FAKE_WHEEL
    with zipfile.ZipFile(wheel, "w") as zf:
        for name, text in FAKE_FILES.items():
            zf.writestr(name, text)
    return wheel


@pytest.fixture(scope="module")
def fake_index(tmp_path_factory) -> SymbolIndex:
    return build_index(make_wheel(tmp_path_factory.mktemp("wheel")))


# --- the index -------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", [
    "torch_npu.npu", "torch_npu.npu.synchronize", "torch_npu.npu.is_available", "torch_npu.npu.current_device",
    "torch_npu.npu.utils.get_cann_version", "torch_npu.npu.Stream", "torch_npu.npu.Stream.query",
    "torch_npu.npu.Stream.anything_from_the_c_base", "torch_npu.npu.Local.wait", "torch_npu.npu.Local.record",
    "torch_npu.npu.set_option", "torch_npu.npu.config.allow_internal_format", "torch_npu.npu.maybe_fn",
    "torch_npu.npu.amp.GradScaler.scale", "torch_npu.npu_format_cast", "torch_npu.npu_rms_norm",
    "torch_npu.get_npu_format", "torch_npu.npu_fast_gelu", "torch_npu.npu_a", "torch_npu.npu_b",
    "torch_npu.hifloat8", "torch_npu.lazy_thing", "torch_npu.__version__", "torch_npu.__file__",
    "torch_npu._C._anything", "torch_npu.contrib.transfer_to_npu", "torch_npu.profiler.ProfilerActivity.NPU",
    "torch_npu.profiler.tensorboard_trace_handler", "torch_npu.broken.whatever", "torch_npu.lazy.whatever",
    "torch_npu.utils.helper.help_me",
])
def test_index_resolves_real_names(fake_index, name):
    assert fake_index.resolve(name) == name and fake_index.missing(name) is None


@pytest.mark.parametrize("name, prefix, missing, suggestion", [
    ("torch_npu.npu.synchronise", "torch_npu.npu", "synchronise", "synchronize"),
    ("torch_npu.npu_fromat_cast", "torch_npu", "npu_fromat_cast", "npu_format_cast"),
    ("torch_npu.npu.amp.GradScalar", "torch_npu.npu.amp", "GradScalar", "GradScaler"),
    ("torch_npu.npu.Local.wiat", "torch_npu.npu.Local", "wiat", "wait"),
    ("torch_npu.npu.hidden", "torch_npu.npu", "hidden", None),  # not in config_mod.__all__
    ("torch_npu.profilr.profile", "torch_npu", "profilr", "profiler"),
])
def test_index_reports_missing_names(fake_index, name, prefix, missing, suggestion):
    assert fake_index.resolve(name) is None
    found = fake_index.missing(name)
    assert found is not None and (found.prefix, found.name) == (prefix, missing)
    assert suggestion is None or found.suggestions[0] == suggestion


def test_index_contents_and_json_round_trip(fake_index):
    assert fake_index.version == FAKE_VERSION
    assert fake_index.ops == ["get_npu_format", "npu_fast_gelu", "npu_format_cast", "npu_rms_norm"]
    assert fake_index.stats["unparsed_files"] == 1 and fake_index.stats["extension_modules"] == 1
    again = SymbolIndex.from_json(json.loads(json.dumps(fake_index.to_json())))
    assert again.resolve("torch_npu.npu.amp.GradScaler.scale")
    assert again.missing("torch_npu.npu.synchronise").suggestions == ["synchronize"]


def test_torch_npu_is_torch_npu_npu(fake_index):
    assert torch_npu_path("torch.npu.amp.GradScaler") == "torch_npu.npu.amp.GradScaler"
    assert torch_npu_path("torch.nn.Linear") is None and torch_npu_path("torch_npux.a") is None
    assert fake_index.resolve("torch.npu.synchronize") == "torch_npu.npu.synchronize"
    assert fake_index.resolve("torch.npu.synchronise") is None and fake_index.resolve("torch.cuda.synchronize") is None


def test_load_index_caches_next_to_the_wheel(tmp_path, monkeypatch):
    make_wheel(tmp_path)

    def no_download(*args):
        raise AssertionError("the cached wheel must be used")

    monkeypatch.setattr(torch_npu_names, "download_wheel", no_download)
    assert load_index(FAKE_VERSION, tmp_path).resolve("torch_npu.npu.synchronize")
    assert (tmp_path / f"torch_npu-{FAKE_VERSION}.symbols.json").is_file()
    (tmp_path / FAKE_WHEEL).unlink()  # the JSON alone is enough now
    assert load_index(FAKE_VERSION, tmp_path).missing("torch_npu.npu.synchronise") is not None


def test_download_failure_says_what_to_do(tmp_path, monkeypatch):
    def offline(cmd, **kwargs):
        return subprocess.CompletedProcess(cmd, 1, "", "ERROR: Could not install: network is unreachable\n")

    monkeypatch.setattr(torch_npu_names.subprocess, "run", offline)
    with pytest.raises(UsageError, match="无法下载 torch-npu==2.12.0") as err:
        torch_npu_names.download_wheel("2.12.0", tmp_path)
    assert "--cache-dir" in str(err.value) and "pip download" in str(err.value)


def test_pinned_version(tmp_path):
    req = tmp_path / "requirements-npu.txt"
    req.write_text("# torch-npu==0.0.1 in a comment\n--extra-index-url https://x/whl/cpu   # cpu\n"
                   "torch==2.12.0\ntorch_npu == 2.12.0.post1  # pin\nattrs\n")
    assert pinned_version(req) == "2.12.0.post1"
    req.write_text("torch==2.12.0\n")
    with pytest.raises(UsageError, match="torch-npu==X"):
        pinned_version(req)
    with pytest.raises(UsageError, match="--torch-npu-version"):
        pinned_version(tmp_path / "missing.txt")
    assert pinned_version(command.REPO_ROOT / "requirements-npu.txt")  # the course's own pin parses


# --- cells -----------------------------------------------------------------------------------------


def test_magics_are_stripped_keeping_line_numbers():
    code = python_source("%%npu\n\n!npu-smi info\nx = 1\n%env X=1\n%time y = torch.npu.synchronize()\n")
    lines = code.splitlines()
    assert lines[0] == "" and lines[3] == "x = 1" and lines[5] == "y = torch.npu.synchronize()"
    assert "get_ipython().system" in lines[2]
    assert python_source("%%bash\nnpu-smi info | grep (") is None
    assert python_source("\n%%writefile a.py\nprint(1)") is None


@settings(deadline=None)  # the first example imports IPython
@given(st.lists(st.sampled_from(["x = 1", "!npu-smi info", "%env A=1", "", "   ", "y = x + 1",
                                 "%matplotlib inline", "z = !ls", "if x:", "    !echo hi"]), max_size=12))
def test_magic_lines_keep_their_line_numbers(lines):
    code = python_source("\n".join(lines)).splitlines()
    for i, line in enumerate(lines):
        if line.strip().startswith(("!", "%")) or "!" in line:
            assert "get_ipython()" in code[i]
        elif line.strip():
            assert code[i] == line


def test_defined_names():
    source = ("import os, a.b\nfrom m import n as k\nx, (y, *z) = 1, (2, 3)\ndef f():\n    global g\n    g = 1\n"
              "class K:\n    attr = 1\nfor i in range(3):\n    pass\nwith open('f') as fh:\n    pass\n"
              "[(w := 1) for _ in range(2)]\n")
    assert defined_names(source) == {"os", "a", "k", "x", "y", "z", "f", "g", "K", "i", "fh", "w"}
    assert defined_names("%%npu\n!npu-smi info\nt = 1") == {"t"}
    assert defined_names("%%bash\nt=1") == set()


def test_used_names():
    source = "print(a)\ndef f(q):\n    return b + q\nclass C:\n    v = c\nn += 1\n"
    assert used_names(source) >= {"print", "a", "b", "c", "n"}
    assert "q" not in used_names(source) and "v" not in used_names(source)
    assert used_names("%%npu\ny = torch.npu.synchronize()\n!ls") == {"torch"}  # no get_ipython
    with pytest.raises(SyntaxError):
        used_names("def f(:")


def nb_of(*cells) -> nbformat.NotebookNode:
    """A notebook from (source, is_npu) pairs or plain sources."""
    nb = nbformat.v4.new_notebook()
    for i, cell in enumerate(cells):
        if isinstance(cell, dict):  # a ready-made (markdown) cell
            nb.cells.append(cell)
            continue
        source, npu = cell if isinstance(cell, tuple) else (cell, False)
        tags = {"tags": ["npu", "skip-execution"]} if npu else {}
        nb.cells.append(nbformat.v4.new_code_cell(source, metadata=tags, id=f"cell-{i}"))
    return nb


def test_leaf_violation():
    nb = nb_of("import torch\nshared = 1", ("%%npu\nout = torch.ones(2).npu()\nshared = 2", True),
               nbformat.v4.new_markdown_cell("text"), "print(out, shared)")
    (finding,) = check_leaves(nb, "x.ipynb")
    assert (finding.cell, finding.cell_id, finding.kind, finding.name) == (3, "cell-3", "leaf", "out")
    assert "第 2 个代码单元" in finding.message


def test_leaf_rules_allow_names_defined_outside_npu_cells():
    nb = nb_of(("out = 1", True), "print(out)", "out = 2")  # also defined by a plain cell (later): fine
    assert check_leaves(nb) == []
    assert check_leaves(nb_of("print(out)", ("out = 1", True))) == []  # the read is before the npu cell
    assert check_leaves(nb_of(("out = 1", True), ("print(out)", True))) == []  # npu cells may share


# --- the command line -------------------------------------------------------------------------------


def _cli_prefix() -> list[str]:
    return [sys.executable, "-m", "npulab", "lint-npu"]


@pytest.fixture(scope="module")
def fake_cache(tmp_path_factory) -> Path:
    cache = tmp_path_factory.mktemp("cache")
    make_wheel(cache)
    return cache


def lint(tmp_path: Path, *args: str, cache: Path | None = None, env: dict | None = None):
    cmd = [*_cli_prefix(), *args, "--torch-npu-version", FAKE_VERSION]
    if cache is not None:
        cmd += ["--cache-dir", str(cache)]
    return subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path, env={**os.environ, **(env or {})})


def write_nb(tmp_path: Path, *cells, name: str = "lesson.ipynb") -> Path:
    path = tmp_path / name
    nbformat.write(nb_of(*cells), path)
    return path


CLEAN_NPU = ("%%npu 预期打印 NPU 的信息\nimport torch\nimport torch_npu\n!npu-smi info\n%env ASCEND_RT_VISIBLE_DEVICES=0\n"
             "x = torch_npu.npu_format_cast(torch.ones(2).npu(), 29)\ntorch.npu.synchronize()\n"
             "torch.npu.config.allow_internal_format = False\nwith torch.npu.amp.autocast():\n    pass\n")


def test_cli_clean_notebook(tmp_path, fake_cache):
    write_nb(tmp_path, "import torch", (CLEAN_NPU, True), ("%%bash\nnpu-smi info | head -n (", True))
    r = lint(tmp_path, "lesson.ipynb", cache=fake_cache)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "未发现问题" in r.stdout


def test_cli_unknown_name(tmp_path, fake_cache):
    write_nb(tmp_path, "import torch", ("%%npu\nimport torch_npu as tnp\ntorch.npu.synchronise()\n"
                                        "tnp.npu_fromat_cast(x, 2)\n", True))
    r = lint(tmp_path, "lesson.ipynb", cache=fake_cache)
    assert r.returncode == 1, r.stdout + r.stderr
    line = next(x for x in r.stdout.splitlines() if "synchronise" in x)
    assert "lesson.ipynb" in line and "第 2 个代码单元" in line and "cell-1" in line and "第 3 行" in line
    assert "`torch.npu.synchronize`" in line
    assert "`tnp.npu_format_cast`" in r.stdout


def test_cli_imports_are_checked(tmp_path, fake_cache):
    write_nb(tmp_path, ("from torch_npu.npu import amp, synchronise\nimport torch_npu.profilr\n"
                        "from torch_npu.contrib import transfer_to_npu\namp.GradScalar()\n", True))
    r = lint(tmp_path, "--json", "lesson.ipynb", cache=fake_cache)
    assert r.returncode == 1
    names = {f["name"] for f in json.loads(r.stdout)["findings"]}
    assert names == {"torch_npu.npu.synchronise", "torch_npu.profilr", "amp.GradScalar"}


def test_cli_syntax_error(tmp_path, fake_cache):
    write_nb(tmp_path, ("%%npu 预期打印一行\nx = 1\ndef f(:\n    pass\n", True))
    r = lint(tmp_path, "--json", str(tmp_path), cache=fake_cache)
    assert r.returncode == 1
    report = json.loads(r.stdout)
    (finding,) = report["findings"]
    assert finding["kind"] == "syntax-error" and finding["cell"] == 1 and "第 3 行" in finding["message"]


def test_cli_leaf_violation_json(tmp_path, fake_cache):
    write_nb(tmp_path, ("y = 1", True), "print(y)")
    r = lint(tmp_path, "--json", "lesson.ipynb", cache=fake_cache)
    assert r.returncode == 1
    report = json.loads(r.stdout)
    assert report["torch_npu_version"] == FAKE_VERSION
    assert (report["files_scanned"], report["cells_checked"], report["errors"]) == (1, 1, [])
    (finding,) = report["findings"]
    assert finding == {"path": "lesson.ipynb", "cell": 2, "cell_id": "cell-1", "kind": "leaf", "name": "y",
                       "message": finding["message"]}


def test_cli_folders_skip_build_and_checkpoints(tmp_path, fake_cache):
    for folder in ("_build", ".ipynb_checkpoints", ".hidden"):
        (tmp_path / "book" / folder).mkdir(parents=True)
        write_nb(tmp_path / "book" / folder, ("def f(:", True))
    write_nb(tmp_path / "book", ("torch.npu.synchronize()", True), name="ok.ipynb")
    r = lint(tmp_path, "--json", "book", cache=fake_cache)
    assert r.returncode == 0, r.stdout
    assert json.loads(r.stdout)["files_scanned"] == 1


def test_cli_usage_errors(tmp_path, fake_cache):
    (tmp_path / "garbage.ipynb").write_text("{not json")
    (tmp_path / "list.ipynb").write_text("[1, 2]")
    (tmp_path / "notes.txt").write_text("hello")
    (tmp_path / "cells.ipynb").write_text('{"nbformat": 4, "cells": [{"cell_type": "code", "source": 5}]}')
    (tmp_path / "old.ipynb").write_text('{"nbformat": "3", "cells": []}')
    r = lint(tmp_path, "no/such.ipynb", "garbage.ipynb", "list.ipynb", "notes.txt", "cells.ipynb", "old.ipynb",
             cache=fake_cache)
    assert r.returncode == 2 and "Traceback" not in r.stderr + r.stdout
    for path, expected in [("no/such.ipynb", "路径不存在"), ("garbage.ipynb", "不是有效的 JSON"),
                           ("list.ipynb", "不是 Jupyter 笔记本"), ("notes.txt", "不是 .ipynb"),
                           ("cells.ipynb", "第 1 个单元格式不对"), ("old.ipynb", "nbformat '3' 不受支持")]:
        assert f"{path}：{expected}" in r.stderr
    r = lint(tmp_path, "--json", "garbage.ipynb", cache=fake_cache)
    assert r.returncode == 2 and json.loads(r.stdout)["errors"][0]["path"] == "garbage.ipynb"
    r = lint(tmp_path, "--no-such-flag", cache=fake_cache)
    assert r.returncode == 2 and "参数错误" in r.stderr


def test_cli_needs_no_wheel_without_torch_npu_names(tmp_path):
    write_nb(tmp_path, ("%%npu 预期打印一行\nprint(1)", True))
    r = lint(tmp_path, "lesson.ipynb", cache=tmp_path / "empty-cache", env={"PIP_NO_INDEX": "1"})
    assert r.returncode == 0, r.stderr


def test_cli_download_failure_is_a_usage_error(tmp_path):
    write_nb(tmp_path, ("torch.npu.synchronize()", True))
    r = lint(tmp_path, "lesson.ipynb", cache=tmp_path / "empty-cache", env={"PIP_NO_INDEX": "1"})
    assert r.returncode == 2 and "无法下载" in r.stderr and "Traceback" not in r.stderr


def test_missing_pin_is_a_usage_error(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(command, "REPO_ROOT", tmp_path)
    write_nb(tmp_path, "print(1)")
    assert npulab_main(["lint-npu", str(tmp_path / "lesson.ipynb")]) == 2
    assert "requirements-npu.txt" in capsys.readouterr().err


# --- the real wheel of the pinned version (downloaded once into the user's cache) ----------------------------

REAL_NAMES = [
    "torch_npu.npu_format_cast", "torch_npu.get_npu_format", "torch_npu.npu_rms_norm", "torch.npu.is_available",
    "torch.npu.device_count", "torch.npu.get_device_name", "torch.npu.synchronize", "torch.npu.memory_allocated",
    "torch.npu.max_memory_allocated", "torch.npu.empty_cache", "torch.npu.set_device", "torch.npu.current_device",
    "torch.npu.Stream", "torch.npu.Event", "torch.npu.amp.GradScaler", "torch.npu.amp.autocast",
    "torch.npu.config.allow_internal_format", "torch_npu.npu.set_compile_mode", "torch_npu.contrib.transfer_to_npu",
    "torch_npu.profiler.profile", "torch_npu.profiler.ProfilerActivity", "torch_npu.profiler.ProfilerActivity.NPU",
    "torch_npu.profiler.tensorboard_trace_handler", "torch_npu.profiler.schedule", "torch_npu.profiler.ProfilerLevel",
    "torch_npu.npu.utils.get_cann_version", "torch_npu.hifloat8", "torch.npu.mem_get_info", "torch.npu.manual_seed",
    "torch.npu.memory_reserved", "torch.npu.matmul.allow_hf32", "torch.npu.conv.allow_hf32", "torch_npu.npu.mstx.mark",
]


@pytest.fixture(scope="module")
def real_index() -> SymbolIndex:
    return pinned_index()  # downloads the pinned wheel once into ~/.cache/npulab/torch_npu (or $NPULAB_CACHE)


@pytest.mark.parametrize("name", REAL_NAMES)
def test_real_wheel_knows_real_names(real_index, name):
    assert real_index.resolve(name)


@pytest.mark.parametrize("name, suggestion", [
    ("torch.npu.synchronise", "synchronize"), ("torch_npu.npu_fromat_cast", "npu_format_cast"),
    ("torch.npu.amp.GradScalar", "GradScaler"), ("torch_npu.profiler.tensorboard_handler", "tensorboard_trace_handler"),
])
def test_real_wheel_reports_misspellings(real_index, name, suggestion):
    assert real_index.resolve(name) is None
    assert suggestion in real_index.missing(name).suggestions


def test_real_wheel_cli(tmp_path, real_index):
    imports = ("import torch\nimport torch_npu\nimport torch_npu.profiler\nfrom torch_npu.contrib import transfer_to_npu\n"
               "from torch_npu.npu import amp\nfrom torch_npu.npu.utils import get_cann_version\n")
    body = "\n".join(f"_ = {name}" for name in REAL_NAMES)
    write_nb(tmp_path, "import torch", ("%%npu 预期打印一行\n" + imports + body, True))
    r = subprocess.run([*_cli_prefix(), "lesson.ipynb"], capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    write_nb(tmp_path, ("%%npu 预期打印一行\ntorch.npu.synchronise()\n", True))
    r = subprocess.run([*_cli_prefix(), "lesson.ipynb"], capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 1 and "torch.npu.synchronize" in r.stdout
