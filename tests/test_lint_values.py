"""lint-npu's value and type checks on the developer's own cases (tests/data/lint_values_dev/cases.yaml): each
planted error is reported with its finding kind, and its correct twin gets no finding at all."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from npulab.core.paths import REPO_ROOT, load_yaml
from npulab.course.lint import command_flags, env_values, signatures, value_grammar
from npulab.course.lint.context import Context
from npulab.course.lint.notebook import check_notebook
from npulab.pytorch.torch_npu_names import pinned_index, pinned_version

CASES = [c for c in load_yaml(Path(__file__).parent / "data" / "lint_values_dev" / "cases.yaml")["cases"]
         if c["area"] in ("env", "cli")]
PLACEHOLDERS = "a b x q k v g net gen model"


def _notebook(code: str) -> dict:
    setup = " = ".join(PLACEHOLDERS.split()) + " = None"
    first = "" if code.startswith("%%bash") else "%%npu 预期：打印结果（依据：本测试）\n"
    return {"cells": [{"cell_type": "code", "id": "setup", "metadata": {}, "source": setup},
                      {"cell_type": "code", "id": "c", "metadata": {"tags": ["npu", "skip-execution"]},
                       "source": first + code}]}


@pytest.fixture(scope="module")
def lint():
    from npulab.core.cli import UsageError

    try:
        index = pinned_index()
    except UsageError as err:
        pytest.skip(f"torch_npu wheel neither cached nor downloadable here: {err}")
    context = Context(pinned_version(REPO_ROOT / "requirements-npu.txt"))
    if not isinstance(context.sources("mindspore"), signatures.SourceTree):
        pytest.skip(f"MindSpore 源码不可用：{context.sources('mindspore')}")
    return lambda code: check_notebook(_notebook(code), lambda: index, "t.ipynb", context)[0]


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_planted_value_error_is_caught(lint, case):
    findings = lint(case["code"])
    assert case["kind"] in [f.kind for f in findings], [f.message for f in findings]
    assert all(re.search(r"[\u4e00-\u9fff]", f.message) for f in findings)


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_correct_twin_is_clean(lint, case):
    findings = lint(case["twin"])
    assert findings == [], [f.message for f in findings]


# --- the machinery ----------------------------------------------------------------------------------------


def test_value_grammar():
    assert value_grammar.problem("1", {"enum": ["0", "1"]}) is None
    assert "只接受 0、1" in value_grammar.problem("true", {"enum": ["0", "1"]})
    assert value_grammar.problem("TRUE", {"enum": ["true"], "case_insensitive": True}) is None
    assert "整数" in value_grammar.problem("1800s", {"int": [0, None], "unit": "秒"})
    assert "[120, 7200]" in value_grammar.problem("30", {"int": [120, 7200]})
    assert value_grammar.problem("0.8", {"float": [0, 1], "open": True}) is None
    assert value_grammar.problem("1.0", {"float": [0, 1], "open": True})
    assert "网卡名" in value_grammar.problem("eth0", {"ip": True})
    assert value_grammar.problem("fe80::1", {"ip": True}) is None
    assert "IP" in value_grammar.problem("10.0.0.1", {"ifname": True})
    assert value_grammar.problem("^=eth0", {"ifname": True}) is None
    assert "空格" in value_grammar.problem("0, 1", {"list": {"int": [0, None]}})
    conf = {"kv": {"a": {"enum": ["True", "False"]}, "r": {"any": True}}, "head": {"enum": ["1"]},
            "key_patterns": {"npu[0-9]+": {"any": True}}}
    assert value_grammar.problem("1,a:True,npu0:0-3,r:[1:2,>:4]", conf) is None
    assert "`b`" in value_grammar.problem("1,b:True", conf)
    assert value_grammar.problem("x", {"any_of": [{"int": [1, None]}, {"enum": ["auto"]}], "hint": "h"}) == "h"


def test_settings_are_found_in_every_form():
    tree = ast.parse("import os, subprocess\nos.environ['A_B'] = '1'\nos.environ.setdefault('C_D', 2)\n"
                     "os.putenv('E_F', 'x')\nos.environ.update({'G_H': 'y'}, I_J='z')\n"
                     "subprocess.run(cmd, env={**os.environ, 'K_L': '0,1'})\nos.environ['M_N'] = value")
    got = {(s.name, s.value) for s in env_values.python_settings(tree)}
    assert got == {("A_B", "1"), ("C_D", "2"), ("E_F", "x"), ("G_H", "y"), ("I_J", "z"), ("K_L", "0,1")}
    assert env_values.magic_settings("%env A_B=1\n%set_env C_D 'x y'") == [
        env_values.Setting(1, "A_B", "1"), env_values.Setting(2, "C_D", "x y")]
    shell = env_values.shell_settings([(3, "export A_B=\"0,1\" && C_D=2 torchrun x.py; E_F={x} g")])
    assert [(s.line, s.name, s.value) for s in shell] == [(3, "A_B", "0,1"), (3, "C_D", "2"), (3, "E_F", "{x}")]
    assert not env_values.checkable("{x}") and not env_values.checkable("$HCCL_IF_IP") and env_values.checkable("1")


def test_argparse_values_and_flag_values():
    tree = ast.parse("p.add_argument('--n', '--n_x', type=int)\np.add_argument('--j', choices=[True, False])\n"
                     "p.add_argument('--s', type=str)")
    assert command_flags.argparse_values(tree) == {"--n": {"integer": True}, "--n_x": {"integer": True},
                                                   "--j": {"enum": ["True", "False"]}}
    known = {"--n": None, "-i": None}
    assert command_flags.flag_values(["--n=3", "-i", "0", "--n", "-1", "--n"], known) == [
        ("--n", "3"), ("-i", "0"), ("--n", "-1")]
