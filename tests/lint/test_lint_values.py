"""lint-npu's value and type checks on the developer's own cases (tests/data/lint_values_dev/cases.yaml): each
planted error is reported with its finding kind, and its correct twin gets no finding at all."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from npulab.core.paths import REPO_ROOT, load_yaml
from npulab.env import env_values, value_grammar
from npulab.lint import command_flags, signatures
from npulab.lint.context import Context
from npulab.lint.notebook import check_notebook
from npulab.pytorch.torch_npu_names import pinned_index, pinned_version

CASES = load_yaml(Path(__file__).parents[1] / "data" / "lint_values_dev" / "cases.yaml")["cases"]
CAUGHT = [c for c in CASES if "known_miss" not in c]
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


@pytest.mark.parametrize("case", CAUGHT, ids=[c["id"] for c in CAUGHT])
def test_planted_value_error_is_caught(lint, case):
    findings = lint(case["code"])
    assert case["kind"] in [f.kind for f in findings], [f.message for f in findings]
    assert all(re.search(r"[\u4e00-\u9fff]", f.message) for f in findings)


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_correct_twin_is_clean(lint, case):
    findings = lint(case["twin"])
    assert findings == [], [f.message for f in findings]


def test_dev_rates(lint):
    """The development set's numbers: at least 66 of 70 planted errors caught in every area, no twin flagged."""
    caught = {area: [0, 0] for area in ("env", "cli", "call")}
    for case in CASES:
        caught[case["area"]][0] += 1
        caught[case["area"]][1] += case["kind"] in [f.kind for f in lint(case["code"])]
    assert sum(v[1] for v in caught.values()) >= 66 and len(CASES) - len(CAUGHT) <= 4, caught
    assert not any(lint(case["twin"]) for case in CASES)


def test_executed_cells_pass_the_value_checks():
    """The cells that run in CI use real devices and variables: the device and variable checks find nothing in them."""
    from notebook_trees import parsed_cells

    from npulab.core.notebook_cells import cell_source
    from npulab.lint import devices

    grammars = load_yaml(REPO_ROOT / "npulab" / "data" / "env_vars.yaml")["values"]
    found, devices_seen = [], 0
    for name, number, cell, tree, aliases in parsed_cells():
        devices_seen += sum(isinstance(n, ast.keyword) and n.arg == "device" for n in ast.walk(tree))
        found += [f"{name} {number}: {m}" for _, _, m in devices.findings(tree, aliases)]
        for s in env_values.python_settings(tree) + env_values.magic_settings(cell_source(cell)):
            if s.python_type != "str" or s.name in grammars and env_values.checkable(s.value) \
                    and value_grammar.problem(s.value, grammars[s.name]):
                found.append(f"{name} {number}: {s}")
    assert devices_seen > 50 and found == [], found


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
    assert [s.python_type for s in env_values.python_settings(ast.parse("os.environ['A_B'] = True"))] == ["bool"]
    copies = ast.parse("env = os.environ.copy()\nenv['A_B'] = '1'\nrun(cmd, env=dict(os.environ, C_D='2'))\n"
                       "e2 = {**os.environ}\ne2.update({'E_F': '3'})\nother = {}\nother['G_H'] = '4'")
    assert [(s.name, s.value) for s in sorted(env_values.python_settings(copies), key=lambda s: s.line)] == [
        ("A_B", "1"), ("C_D", "2"), ("E_F", "3")]
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
                                                   "--j": {"choices": [True, False], "convert": "str"}}
    joined = {"choices": [True, False], "convert": "ast.literal_eval"}  # msrun --join
    assert value_grammar.problem("True", joined) is None and value_grammar.problem("1", joined) is None
    assert value_grammar.problem("true", joined)
    known = {"--n": None, "-i": None}
    assert command_flags.flag_values(["--n=3", "-i", "0", "--n", "-1", "--n"], known) == [
        ("--n", "3"), ("-i", "0"), ("--n", "-1")]


def test_device_strings():
    from npulab.lint import devices

    assert devices.problem("npu") is None and devices.problem("npu:0") is None and devices.problem("cpu") is None
    assert "不合法" in devices.problem("npu:a") and "不合法" in devices.problem("npu:01")
    assert "`npu:0`" in devices.problem("npu0") and "`npu`" in devices.problem("nup")
    tree = ast.parse("import torch\nx = torch.ones(2, device='npu:0').to('npu:1')\ny = torch.device('npu: 0')\n"
                     "z = other.thing(device='whatever')\nw = t.to('cuda:x')")
    found = devices.findings(tree, {"torch": "torch"})
    assert [line for line, _, _ in found] == [3, 5]


def test_device_types_are_torchs_own():
    """The device types of api_values.yaml are those the installed torch's parser lists in its error message."""
    from npulab.lint import devices

    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError) as err:
        torch.device("no_such_type")
    listed = re.search(r"Expected one of (.*?) device type", str(err.value)).group(1).split(", ")
    assert set(devices.table()["types"]) == set(listed) | {"npu"}


def test_validation_code_is_read(lint):
    """Values, patterns, types and warned keywords come from the functions' own code (here: a small source tree)."""
    from npulab.lint import annotations, api_values

    code = ("import re\nfrom .consts import Level\nPATTERN = r'[0-9]+GB'\n"
            "class Constant:\n    LOW = 'low'\n"
            "def f(mode='a', size='1GB', flag=False, use_old=None):\n"
            "    if use_old is not None:\n        warn('`use_old` is deprecated')\n"
            "    if mode not in ('a', Constant.LOW, Level.HIGH):\n        raise ValueError(mode)\n"
            "    if not isinstance(flag, bool):\n        print_warn_msg('flag')\n"
            "    _check(size)\n"
            "def _check(value):\n    if not Validator.check_str_by_regular(value, PATTERN):\n        raise ValueError(value)\n")
    tree = signatures.SourceTree("pkg", "1.0", {"pkg": code, "pkg.consts": "class Level:\n    HIGH = 'high'\n"}, {"pkg"})
    checked = api_values.checked_by_definition(tree, "pkg.f")
    assert checked["mode"].values == ("a", "low", "high") and checked["mode"].labels == ("'a'", "Constant.LOW", "Level.HIGH")
    assert checked["size"].pattern == "[0-9]+GB" and checked["flag"].types == (bool,)
    assert api_values.problems(ast.parse("'2MB'").body[0].value, "size", checked["size"])
    assert api_values.problems(ast.parse("'True'").body[0].value, "flag", checked["flag"])
    assert not api_values.problems(ast.parse("'high'").body[0].value, "mode", checked["mode"])
    assert annotations.warned_keywords(tree.function("pkg.f")) == {"use_old": "`use_old` is deprecated"}


def test_annotation_types():
    from npulab.lint import annotations

    def types(text):
        return annotations.annotation_types(ast.parse(text, mode="eval").body)

    assert types("Optional[timedelta]") == {"timedelta", "None"} and types("int | None") == {"int", "None"}
    assert types("Union[str, Backend]") is None and types("'float'") == {"float"} and types("List[int]") == {"list"}
    func = ast.parse("def f(a: float, b: Optional[timedelta] = None, c: str = ''):\n    pass").body[0]
    call = ast.parse("f(1, b=1800, c=2)").body[0].value
    sig = signatures.from_def(func)
    assert [p for p, _ in annotations.annotation_problems(call, sig, func, "x")] == ["b", "c"]
    func = ast.parse("def f(s: Optional[list[float]] = None):\n    pass").body[0]  # F.interpolate takes 2 too
    assert annotations.annotation_problems(ast.parse("f(s=2)").body[0].value, None, func, "x") == []


def test_a_list_the_function_extends_is_not_a_closed_set():
    from npulab.lint import api_values

    code = ("def f(use_device=None):\n    VALID = ['cuda', 'xpu']\n    VALID.append(backend())\n"
            "    if use_device not in VALID:\n        raise ValueError(use_device)\n")
    tree = signatures.SourceTree("pkg", "1.0", {"pkg": code}, {"pkg"})
    assert api_values.checked_by_definition(tree, "pkg.f") == {}


def test_host_is_not_an_interface_name():
    assert "网卡名" in value_grammar.problem("eth0", {"host": True})
    assert value_grammar.problem("127.0.0.1", {"host": True}) is None
    assert value_grammar.problem("node-1.cluster", {"host": True}) is None


def test_setters_of_kwargs_functions_and_switches(lint):
    """set_context hands each keyword to a setter (its checks apply); device_type takes a bare type; a string is
    not a boolean switch."""
    def kinds(code):
        return [f.kind for f in lint(code)]

    assert kinds("import mindspore as ms\nms.set_context(memory_optimize_level='O3')") == ["argument-value"]
    assert kinds("import mindspore as ms\nms.set_context(memory_optimize_level='O1', deterministic='ON')") == []
    assert kinds("import mindspore as ms\nms.set_auto_parallel_context(parallel_mode='semi_auto')") == ["argument-value"]
    assert kinds("import torch\nwith torch.autocast(device_type='npu:0'):\n    pass") == ["argument-value"]
    assert kinds("import torch\nwith torch.autocast('npu', dtype=torch.bfloat16):\n    pass") == []
    assert kinds("import torch\nimport torch_npu\ntorch.npu.matmul.allow_hf32 = 'False'") == ["argument-value"]
    assert kinds("import torch\nimport torch_npu\ntorch.npu.matmul.allow_hf32 = False") == []


def test_a_name_imported_from_the_wrong_path_says_where_it_lives(lint):
    message = lint("from mindspore.ops import mint")[0].message
    assert "`mindspore.mint`" in message
    message = lint("import torch\nimport torch_npu\nfrom torch_npu.contrib import npu_rms_norm")[0].message
    assert "`torch_npu.npu_rms_norm`" in message


def test_torchair_config_options(lint):
    """torchair's OptionValue lists, read from the wheel: a value outside the list or an unknown option is reported."""
    head = "import torch\nimport torch_npu\nimport torchair\nconfig = torchair.CompilerConfig()\n"
    assert [f.kind for f in lint(head + "config.mode = 'reduce_overhead'")] == ["argument-value"]
    assert [f.kind for f in lint(head + "config.experimental_config.frozen_paramter = True")] == ["unknown-name"]
    assert lint(head + "config.mode = 'reduce-overhead'\nconfig.experimental_config.frozen_parameter = True\n"
                       "backend = torchair.get_npu_backend(compiler_config=config)") == []


def test_lessons_shell_blocks_are_checked_too():
    """A lesson's ```bash block tells the learner what to type: its values are checked like a cell's."""
    index = pinned_index()
    context = Context(pinned_version(REPO_ROOT / "requirements-npu.txt"))
    md = "先设置：\n\n```bash\nexport HCCL_IF_IP=eth0\natc --framework=onnx --model=m.onnx --output=m --soc_version=Ascend310P3\n```\n"
    nb = {"cells": [{"cell_type": "markdown", "id": "m", "metadata": {}, "source": md}]}
    findings, _ = check_notebook(nb, lambda: index, "t.ipynb", context)
    assert sorted(f.kind for f in findings) == ["cli-flag", "env-value"], [f.message for f in findings]


def test_number_tests_and_switches_are_read_from_code():
    """value_tests: an ``if`` made of number comparisons (and isinstance) is evaluated on a literal; a bool-default
    parameter used only as a truth value is a switch."""
    from npulab.lint import value_tests

    func = ast.parse("def f(p, n=1, on=False, mode=False):\n"
                     "    if not isinstance(n, int) or n <= 0:\n        raise ValueError(n)\n"
                     "    if p < 0 or p > 1:\n        raise ValueError(p)\n"
                     "    x = 'a' if on else 'b'\n    if mode == 'max':\n        pass\n").body[0]
    tests = [n.test for n in ast.walk(func) if isinstance(n, ast.If) and value_tests.numeric_test(n.test, {"p": "p", "n": "n"})]
    assert [value_tests.numeric_test(t, {"p": "p", "n": "n"}) for t in tests] == [("n", "n"), ("p", "p")]
    assert value_tests.refuses(tests[1], "p", 1.5) and not value_tests.refuses(tests[1], "p", 0.5)
    assert value_tests.refuses(tests[0], "n", 2.0) and not value_tests.refuses(tests[0], "n", 2)
    assert value_tests.truth_tested(func) == {"on"}  # mode is compared with a string: not a pure switch


def test_grammar_order_and_exclusions():
    spec = {"list": {"int": [0, None]}, "ascending": True}
    assert value_grammar.problem("0,2,5", spec) is None and value_grammar.problem("2,0", spec)
    kv = {"kv": {"a": {"any": True}, "b": {"enum": ["True", "False"]}}, "excludes": [{"when": {"b": "True"}, "keys": ["a"]}]}
    assert value_grammar.problem("a:1,b:False", kv) is None and value_grammar.problem("b:True,a:1", kv)


def test_schema_types_and_backends():
    from npulab.lint import distributed, schema_types

    _, sig = signatures.from_schema("- func: npu_cast(Tensor self, int acl_format, *, str? mode=None) -> Tensor")
    call = ast.parse("f(x, 'NZ')").body[0].value
    assert [p for p, _ in schema_types.problems(call, [sig], "x")] == ["acl_format"]
    assert schema_types.problems(ast.parse("f(x, 29, mode='a')").body[0].value, [sig], "x") == []
    known = {"gloo": ["cpu", "cuda"], "nccl": ["cuda"], "hccl": ["npu"]}
    assert distributed.backend_problem("nccl", known, "w") and distributed.backend_problem("hcl", known, "w")
    assert distributed.backend_problem("cpu:gloo,npu:hccl", known, "w") is None
    assert distributed.init_method_problem("tcp://10.0.0.1", {"tcp": True, "env": False}, "w")
    assert distributed.init_method_problem("env://", {"tcp": True, "env": False}, "w") is None


def test_cuda_is_allowed_after_transfer_to_npu_in_an_earlier_cell():
    """transfer_to_npu imported by dotted name in one cell rewrites cuda in the next; an empty pin_memory_device is
    DataLoader's own default. Without the import, the cuda device is reported."""
    from npulab.core.cli import UsageError

    try:
        index = pinned_index()
    except UsageError as err:
        pytest.skip(f"torch_npu wheel neither cached nor downloadable here: {err}")
    context = Context(pinned_version(REPO_ROOT / "requirements-npu.txt"))
    header = "%%npu 预期：打印结果（依据：本测试）\n"

    def run(first: str) -> list:
        cells = [header + first, header + "x = torch.ones(2).to('cuda')\n"
                 "loader = torch.utils.data.DataLoader(ds, pin_memory=True, pin_memory_device='')"]
        nb = {"cells": [{"cell_type": "code", "id": f"c{i}", "metadata": {"tags": ["npu", "skip-execution"]},
                         "source": c} for i, c in enumerate(cells)]}
        return check_notebook(nb, lambda: index, "t.ipynb", context)[0]

    assert run("import torch\nimport torch_npu\nimport torch_npu.contrib.transfer_to_npu\nds = None") == []
    assert [f.kind for f in run("import torch\nimport torch_npu\nds = None")] == ["argument-value"]


def test_hccl_retry_variables_and_atc_deterministic_are_data(lint):
    """HCCL_OP_RETRY_ENABLE/_PARAMS (hcclug_000105/_000106) and atc --deterministic (atlasatcparam_16_0090) are known
    with their documented values: a level other than 0/1, a number outside its range, a word for 0/1 are refused."""
    assert lint('import os\nos.environ["HCCL_OP_RETRY_ENABLE"] = "L0:0, L1:1, L2:0"\n'
                'os.environ["HCCL_OP_RETRY_PARAMS"] = "MaxCnt:5,HoldTime:0,IntervalTime:60000"') == []
    assert [f.kind for f in lint('%env HCCL_OP_RETRY_ENABLE=L0:1,L1:on')] == ["env-value"]
    assert [f.kind for f in lint('%env HCCL_OP_RETRY_PARAMS=MaxCnt:3,HoldTime:70000')] == ["env-value"]
    assert [f.kind for f in lint('%env HCCL_OP_RETRY_PARAMS=MaxCnt:0')] == ["env-value"]
    atc = "!atc --model=m.onnx --framework=5 --output=m --soc_version=Ascend910B1 "
    assert lint(atc + "--deterministic=1 --deterministic_level=2") == []
    assert [f.kind for f in lint(atc + "--deterministic=on")] == ["cli-flag"]
    assert [f.kind for f in lint(atc + "--deterministic_level=3")] == ["cli-flag"]
