"""lint-npu beyond names: call signatures, environment variables, command-line flags and features by release.

The fixture notebooks in tests/lint/lint_npu_fixtures/ hold one planted-error kind each; every cell whose metadata has
``lint_expect`` must be reported with exactly those finding kinds, every other cell must stay silent.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

from npulab.core.paths import REPO_ROOT
from npulab.env import env_vars
from npulab.lint import command_flags, features
from npulab.lint.context import Context, requirement_pin
from npulab.lint.notebook import check_notebook
from npulab.lint.signatures import Signature, from_def, from_schema
from npulab.pytorch.torch_npu_names import pinned_index, pinned_version

FIXTURES = sorted((Path(__file__).parent / "lint_npu_fixtures").glob("*.ipynb"))
KINDS = {"wrong_keyword_torch_npu", "env_unknown_to_release", "misspelt_cann_variable", "tool_flag_unknown",
         "npu_smi_query_type", "feature_newer_than_pin"}


@pytest.fixture(scope="module")
def context():
    index = pinned_index()  # the pinned wheel, downloaded once into the user's cache (as make lint does)
    return Context(pinned_version(REPO_ROOT / "requirements-npu.txt")), index


def test_one_fixture_per_kind():
    assert {p.stem for p in FIXTURES} == KINDS


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_fixture_findings(path, context):
    ctx, index = context
    nb = json.loads(path.read_text(encoding="utf-8"))
    findings, _ = check_notebook(nb, lambda: index, path.name, ctx)
    got: dict[str, list[str]] = {}
    for f in findings:
        got.setdefault(f.cell_id, []).append(f.kind)
    expected = {c["id"]: c["metadata"]["lint_expect"] for c in nb["cells"] if "lint_expect" in c["metadata"]}
    assert got == expected, [f.message for f in findings]
    assert all(re.search(r"[\u4e00-\u9fff]", f.message) for f in findings)  # messages are Chinese


# --- signatures -------------------------------------------------------------------------------------------


def test_signature_problems():
    sig = from_def(ast.parse("def f(a, b=1, *, c=2):\n    pass").body[0])
    assert sig.problem(1, ["c"]) is None and sig.problem(2, []) is None
    assert "最多接受 2 个位置参数" in sig.problem(3, [])
    assert "`d`" in sig.problem(1, ["d"])
    assert "既按位置又按关键字" in sig.problem(1, ["a"])
    assert from_def(ast.parse("def f(*args, **kw):\n    pass").body[0]).problem(9, ["any"]) is None
    assert from_def(ast.parse("@some_wrapper\ndef f(a):\n    pass").body[0]) is None  # may change the signature


def test_operator_schema():
    name, sig = from_schema("- func: npu_x.Tensor(Tensor self, int[2] size=[1,1], *, int? dtype=None) -> Tensor")
    assert name == "npu_x" and sig.positional == ["self", "size"] and sig.required == 1
    assert sig.keyword_only == ["dtype"] and sig.problem(2, ["dtype"]) is None and sig.problem(1, ["size2"])
    assert isinstance(sig, Signature) and from_schema("supported:") is None


def test_requirement_pins():
    assert requirement_pin("mindstudio-probe") == "26.2.0" and requirement_pin("mindspore") == "2.10.0"
    assert requirement_pin("torch-npu", "requirements-npu.txt") == pinned_version(REPO_ROOT / "requirements-npu.txt")


# --- command lines ----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def tables():
    return command_flags.Tables()


@pytest.mark.parametrize("line, problems", [
    ("ASCEND_RT_VISIBLE_DEVICES=0 nohup vllm serve M --max-model-len 4096 > log 2>&1 &", 0),
    ("vllm serve M --max_model_len 4096 --no-enforce-eager", 0),  # vLLM accepts _ for - and --no- for booleans
    ("vllm bench serve --model M --dataset-name random --num-prompt 64 | tail -n 20", 1),
    ("cd MindSpeed-LLM && python convert_ckpt_v2.py --load-model-type hf --save-model-type mg --model-type-hf qwen3", 0),
    ("python convert_ckpt_v2.py --model-type GPT", 1),
    ("bash examples/mcore/qwen3/tune_qwen3_32b_4K_lora_ptd.sh", 0),
    ("bash tests/0day/qwen3/qwen3-32b/tune_qwen3_32b_lora_ptd.sh", 1),
    ("msrun --worker_num=8 --local_worker_num=8 --master_port=8118 script.py --anything", 0),
    ("msprof --output=/tmp/p PYVAR /tmp/demo.py --whatever", 0),
    ("msprof --outputs=/tmp/p python3 demo.py", 1),
    ("ascend-dmi --bw -t d2d -d 0 -q", 0),
    ("ascend-dmi --bandwith -t d2d", 1),
    ("npu-smi info -t board -i 0", 0),
    ("npu-smi info -t boards -i 0", 1),
    ("atc --framework=5 --model=m.onnx --output=m --soc_version=Ascend910B3", 0),
    ("atc --frame=5", 1),
    ("msprof-analyze compare -d npu_prof -bp gpu_trace.json --enable_api_compare -o out", 0),
    ("msprof-analyze compare -d npu_prof --bp gpu_trace.json", 1),  # --bp is another sub-command's flag
    ("msprof-analyze advisor all -d npu_prof", 0),
    # cluster hands options it does not know on to its recipes (communication_bottleneck reads --rank_id)
    ("msprof-analyze cluster -d cluster_prof -m communication_bottleneck --rank_id 3", 0),
    ("msprof-analyze cluster -d cluster_prof -m communication_bottleneck --rank-id 3", 1),
    ("ls -la /tmp", 0),  # no table: not checked
])
def test_command_lines(tables, line, problems):
    found = command_flags.check_text([(1, line)], tables)
    assert len(found) == problems, [p.message for p in found]


def test_markdown_shell_blocks():
    text = "说明\n```bash\n$ npu-smi info -t topo\n# 注释\nmsprobe compare -tp a -gp b -o c\n```\n`inline`\n```python\nx=1\n```\n"
    assert command_flags.markdown_shell_blocks(text) == [(3, "npu-smi info -t topo"), (5, "msprobe compare -tp a -gp b -o c")]


def _flag_extractor():
    """scripts/extract_cli_flags.py, loaded as a module (scripts/ is no package)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("extract", REPO_ROOT / "scripts" / "extract_cli_flags.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_flag_table_matches_the_extraction_script():
    module = _flag_extractor()
    table = json.loads(command_flags.FLAGS_FILE.read_text(encoding="utf-8"))["tools"]
    assert set(table) == set(module.TOOLS)
    for tool, entry in module.TOOLS.items():
        assert (table[tool]["package"], table[tool]["version"]) == (entry["package"], entry["version"])
        assert len(table[tool]["flags"]) > 5


# --- environment variables and features ----------------------------------------------------------------------


def test_env_uses_in_python_and_text():
    tree = ast.parse('import os\nos.environ["A_B"] = "1"\nos.environ.setdefault("C_D", "2")\nos.getenv("E_F")\n'
                     'subprocess.run(["x"], env={"G_H": "1"})\nos.environ.get("I_J")\n')
    assert sorted(u.name for u in env_vars.python_uses(tree)) == ["A_B", "C_D", "E_F", "G_H", "I_J"]
    uses = env_vars.text_uses("先 `export HCCL_IF_IP=1.2.3.4`，再 `ASCEND_RT_VISIBLE_DEVICES=0,1 torchrun x.py`", "md")
    assert [u.name for u in uses] == ["ASCEND_RT_VISIBLE_DEVICES", "HCCL_IF_IP"]


def test_documented_version_ranges():
    data = {"variables": [{"name": "NEW_VAR", "since": "9.0.0", "source": "doc"},
                          {"name": "OLD_VAR", "since": "8.0.0", "until": "8.3.RC1", "source": "doc"}]}
    assert env_vars.documented("NEW_VAR", "9.1.0", data) == (True, "")
    assert "9.0.0 起才有" in env_vars.documented("NEW_VAR", "8.5.0", data)[1]
    assert "不再有" in env_vars.documented("OLD_VAR", "9.1.0", data)[1]


def test_features_and_stacks():
    feature = {"name": "x", "package": "torch", "since": "2.7.0", "since_text": "2.7", "source": "s"}
    assert features.outside(feature, "2.6.0") and not features.outside(feature, "2.12.0")
    assert features.outside({**feature, "since": None}, "9.9.9")  # master only
    assert features.cell_stack("%%npu\n# stack: vllm-ascend\n!vllm serve m") == "vllm-ascend"
    assert features.targets("vllm-ascend")["torch-npu"] == "2.10.0.post4"
    md = "设置 `TORCH_NPU_FALLBACK_CPU_DISABLE=1` 就能关掉回退。"
    course = {"torch-npu": "2.12.0"}
    assert [f["name"] for f in features.unstated_since(md, course)] == ["TORCH_NPU_FALLBACK_CPU_DISABLE"]
    assert features.unstated_since(md + "（torch-npu 2.12.0.post3 起才有）", course) == []
    assert features.unstated_since(md, {"torch-npu": "2.12.0.post3"}) == []


def test_triton_ascend_calls_from_committed_stubs(context):
    """triton-ascend's signatures come from committed stubs (its wheel is 50 MB); its patched tl.load is accepted."""
    ctx, index = context
    kernel = ("%%npu 预期：打印核函数的结果（依据：本测试）\n# stack: triton-ascend\nimport triton\nimport triton.language as tl\n\n@triton.jit\n"
              "def k(x_ptr, n, BLOCK: tl.constexpr):\n    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
              "    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0, care_padding=False)\n{bad}")
    good = {"cells": [{"cell_type": "code", "id": "g", "metadata": {"tags": ["npu"]}, "source": kernel.format(bad="")}]}
    assert check_notebook(good, lambda: index, "t.ipynb", ctx)[0] == []
    bad = {"cells": [{"cell_type": "code", "id": "b", "metadata": {"tags": ["npu"]},
                      "source": kernel.format(bad="    tl.store(x_ptr + offs, x, msk=offs < n)\n")}]}
    findings = check_notebook(bad, lambda: index, "t.ipynb", ctx)[0]
    assert [f.kind for f in findings] == ["call-signature"] and "`msk`" in findings[0].message


def test_cli_json_lists_findings_and_what_could_not_be_checked(context):
    import subprocess
    import sys

    fixture = str(Path(__file__).parent / "lint_npu_fixtures" / "wrong_keyword_torch_npu.ipynb")
    r = subprocess.run([sys.executable, "-m", "npulab", "lint-npu", "--json", fixture], capture_output=True, text=True,
                       cwd=REPO_ROOT, timeout=300)
    assert r.returncode == 1, r.stderr
    data = json.loads(r.stdout)
    assert {f["kind"] for f in data["findings"]} == {"call-signature"} and len(data["findings"]) == 3
    assert isinstance(data["not_checkable"], list) and isinstance(data["stack_not_named"], list)


def test_click_sub_commands_keep_their_own_flags():
    module = _flag_extractor()
    sources = {
        "cli/entrance.py": "import click\n@click.group()\ndef main(): pass\n"
                           "main.add_command(compare_cli, name='compare')\nmain.add_command(other)\n",
        "cli/compare_cli.py": "import click\n@click.command()\n@click.option('-bp', '--benchmark_profiling_path')\n"
                              "def compare_cli(**kw): pass\n",
        "cli/other.py": "import click\n@click.command()\n@click.option('--bp')\ndef other(**kw): pass\n",
    }
    assert module.click_subcommands(sources) == {"compare": ["--benchmark_profiling_path", "-bp"], "other": ["--bp"]}


def test_a_click_sub_command_that_hands_unknown_options_on_accepts_the_package_argparse_options():
    module = _flag_extractor()
    sources = {
        "cli/entrance.py": "import click\n@click.group()\ndef main(): pass\n"
                           "main.add_command(cluster_cli, name='cluster')\nmain.add_command(compare_cli, name='compare')\n",
        "cli/cluster_cli.py": "import click\nsettings = dict(help_option_names=['-h'])\n"
                              "settings['ignore_unknown_options'] = True\n@click.command(context_settings=settings)\n"
                              "@click.option('-d', '--profiling_path')\n@click.argument('args', nargs=-1)\n"
                              "def cluster_cli(**kw): pass\n",
        "cli/compare_cli.py": "import click\n@click.command()\n@click.option('-d')\ndef compare_cli(**kw): pass\n",
        "recipes/top.py": "class Top:\n    @classmethod\n    def add_parser_argument(cls, parser):\n"
                          "        parser.add_argument('--top_num', type=int)\n",
    }
    assert module.click_subcommands(sources) == {"cluster": ["--profiling_path", "--top_num", "-d"], "compare": ["-d"]}


def _feature(name: str) -> dict:
    return next(f for f in features.features() if f["name"] == name)


@pytest.mark.parametrize("name", ["TORCHINDUCTOR_NPU_BACKEND", "TORCH_NPU_FALLBACK_CPU_DISABLE"])
def test_torch_npu_features_are_known_from_the_first_pypi_build_that_has_them(name):
    """Per the PyPI wheels: dvm/ascendc (_BACKEND_LOADERS) and the fallback switch (a string in libtorch_npu.so) are in
    torch-npu 2.12.0.post3, 2.13.0 and 2.14.0, not in 2.12.0 or 2.12.0.post2 (PyPI has no 2.12.0.post1)."""
    feature = _feature(name)
    for version in ("2.12.0", "2.12.0.post2"):
        assert features.outside(feature, version), version
    for version in ("2.12.0.post3", "2.13.0", "2.14.0"):
        assert not features.outside(feature, version), version


def test_a_deprecated_mindspore_method_that_is_still_there_is_not_called_absent():
    """Tensor.move_to is deprecated ("removed after 2.9.0") but MindSpore 2.10.0 still defines it."""
    feature = _feature("move_to")
    for version in ("2.9.0", "2.10.0"):
        assert not features.outside(feature, version), version
    mindspore = pytest.importorskip("mindspore")
    if features.outside(feature, mindspore.__version__):
        assert not hasattr(mindspore.Tensor, "move_to"), mindspore.__version__
    else:
        assert hasattr(mindspore.Tensor, "move_to"), mindspore.__version__
