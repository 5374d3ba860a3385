"""lint-npu round 13: `vllm serve` flags typed by the config dataclasses ``EngineArgs.add_cli_args`` reads (their
aliases, pydantic ranges and validators), msprof-analyze's click options (scripts/extract_cli_flag_values.py), and the
sizes torch_npu's operator texts state for named axes (npulab.lint.op_axes). Tested on source and operator text
written for the test, then through lint-npu's entry point on flags and operators."""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import torch
from test_lint_values import lint  # noqa: F401  (the module's fixture: one npu cell through check_notebook)

from npulab.env import value_grammar
from npulab.lint import op_axes, op_ranks

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "extract_cli_flag_values.py"
_spec = importlib.util.spec_from_file_location("extract_cli_flag_values", SCRIPT)
extract = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(extract)

CONFIG = '''
Ranks = Literal[1, 8, 16]
DType = Literal["auto", "float16"]

class LoRAConfig:
    max_rank: Ranks = 16
    max_loras: int = Field(default=1, ge=1)
    max_cpu_loras: int | None = None
    dtype: torch.dtype | DType = "auto"
    share: float = Field(default=0.5, gt=0, le=1)
    name: str | None = None
    modules: list[str] | None = None

    def _validate(self):
        if self.max_cpu_loras is None:
            self.max_cpu_loras = self.max_loras
        elif self.max_cpu_loras < self.max_loras:
            raise ValueError("max_cpu_loras must be >= max_loras")
'''
ARGS = '''
def _compute_kwargs(cls):
    if name == "max_model_len":
        pass

class EngineArgs:
    max_rank: int = 16
    dtype: str | None = None

    def add_cli_args(parser):
        lora_kwargs = get_kwargs(LoRAConfig)
        group.add_argument("--max-rank", **lora_kwargs["max_rank"])
        group.add_argument("--max-loras", **lora_kwargs["max_loras"])
        group.add_argument("--max-cpu-loras", **lora_kwargs["max_cpu_loras"])
        group.add_argument("--dtype", **lora_kwargs["dtype"])
        group.add_argument("--share", **lora_kwargs["share"])
        group.add_argument("--name", type=int, **lora_kwargs["name"])
        group.add_argument("--modules", **lora_kwargs["modules"])
'''


def test_flags_take_the_config_fields_hints_ranges_and_validator_relations():
    trees = {"vllm/config/lora.py": ast.parse(CONFIG), "vllm/engine/arg_utils.py": ast.parse(ARGS),
             "vllm/entrypoints/openai/cli_args.py": ast.parse("class FrontendArgs:\n    port: int = 8000\n")}
    flags, relations = extract.read_flags(trees)
    assert flags["--max-rank"] == {"choices": [1, 8, 16], "convert": "int"}  # the config's alias, not EngineArgs' int
    assert flags["--dtype"] == {"enum": ["auto", "float16"]}  # a Literal beside a non-builtin type: still choices
    assert flags["--max-loras"] == {"int": [1, None]}
    assert flags["--share"] == {"float": [0, 1], "open": [True, False]}
    assert "--name" not in flags and "--modules" not in flags  # its own type=, a list
    assert flags["--port"] == {"integer": True}
    assert [(r["flags"], r["relation"]) for r in relations] == [(["--max-cpu-loras", "--max-loras"], ">=")]
    assert value_grammar.problem("1", flags["--share"]) is None and value_grammar.problem("0", flags["--share"])


CLICK = {
    "pkg/cli/cluster_cli.py": '''
from pkg.analysis import ALL_MODES
@click.option("--mode", "-m", type=MyChoice(ALL_MODES), default="all")
@click.option("--export_type", type=click.Choice(["db", "text"], case_sensitive=False))
@click.option("--step_id", type=int)
@click.option("--level", type=click.IntRange(0, 3))
@click.option("--output", "-o", type=str)
def cluster_cli(**kwargs): ...
''',
    "pkg/cli/other_cli.py": '''
@click.option("--output", "-o", type=int)
def other(**kwargs): ...
''',
    "pkg/cli/unified.py": "class MyChoice(click.Choice):\n    pass\n",
    "pkg/analysis.py": '''
def get_all_recipes():
    recipes_path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "recipes")
    return [d for d in os.listdir(recipes_path) if os.path.isdir(os.path.join(recipes_path, d))]
COMM = ["all", "communication_time"]
ALL_MODES = COMM + get_all_recipes()
''',
    "pkg/recipes/__init__.py": "",
    "pkg/recipes/slow_rank/__init__.py": "",
    "pkg/recipes/hccl_sum/stats.py": "",
}


def test_click_options_give_types_choices_followed_to_their_source_and_ranges():
    flags = extract.click_values({p: ast.parse(s) for p, s in CLICK.items()}, "pkg/cli/")
    assert flags["--mode"] == flags["-m"] == {"enum": ["all", "communication_time", "hccl_sum", "slow_rank"]}
    assert flags["--export_type"] == {"enum": ["db", "text"], "case_insensitive": True}
    assert flags["--step_id"] == {"integer": True} and flags["--level"] == {"int": [0, 3]}
    assert "-o" not in flags  # two sub-commands type it differently


OPERATOR = """
torch_npu.npu_axes_op(x, weight, *, eps=1e-6) -> Tensor
参数说明
x: Tensor类型, shape是3维(T, n, n)或者4维(B, S, n, n), 其中n仅支持4, 6, 8.
weight：Tensor类型，shape为2维[W, H]，W为卷积核宽度；H为特征维度，H须为64的倍数。

约束说明
weight的W维度目前只支持3。
输入shape大小需满足约束：$T \\le 16$。
若x为4维时，B仅支持1。

调用示例
>>> x = torch.randn(2, 6, 6).npu()
>>> w = torch.randn(3, 64).npu()
>>> y = torch_npu.npu_axes_op(x, w)
"""


def test_named_axes_are_limited_by_sets_multiples_and_bounds_but_not_under_a_condition():
    rules = op_axes.axes_of_text(OPERATOR, "npu_axes_op")
    got = {(p, axis, kind) for p, found in rules.items() for _f, axis, kind, _v, _s in found}
    assert got == {("x", "n", "set"), ("x", "T", "at_most"), ("weight", "H", "multiple"), ("weight", "W", "set")}
    assert op_axes.broken(torch.empty(1, 2, 6, 6), rules["x"]) is None
    assert op_axes.broken(torch.empty(2, 5, 5), rules["x"])[:2] == ("n", 5)
    assert op_axes.broken(torch.empty(32, 6, 6), rules["x"])[:3] == ("T", 32, "at_most")
    assert op_axes.broken(torch.empty(4, 64), rules["weight"])[:2] == ("W", 4)
    assert not op_ranks._example_refused(OPERATOR, "npu_axes_op", ({}, rules))
    assert op_ranks._example_refused(OPERATOR.replace("randn(3, 64)", "randn(3, 48)"), "npu_axes_op", ({}, rules))


def test_round_13_flags_reach_lint_npu(lint):  # noqa: F811
    planted = "!vllm serve m --enable-lora --max-lora-rank 24 --max-loras 4 --max-cpu-loras 2\n"
    twin = "!vllm serve m --enable-lora --max-lora-rank 32 --max-loras 4 --max-cpu-loras 8\n"
    assert [f.kind for f in lint(planted)] == ["cli-flag"] * 2
    assert lint(twin) == []


ZERO_COPY_PAGE = """# \\\\(beta\\\\) TEST\\\\_ZERO\\\\_COPY

## 功能描述

- 0：关闭。
- 1：开启。

默认值为0。

## 使用约束

- 该环境变量依赖虚拟内存管理功能，要求配置满足：

    ```bash
    export TEST_ALLOC_CONF=expandable_segments:True
    ```
"""


def test_a_required_setting_of_another_variables_items_is_read_and_checked():
    from npulab.env import env_values

    pages = importlib.util.module_from_spec(spec := importlib.util.spec_from_file_location(
        "extract_env_value_pages", SCRIPT.parent / "extract_env_value_pages.py"))
    spec.loader.exec_module(pages)
    assert pages.page_name("docs/x/（beta）TEST_ZERO_COPY.md") == "TEST_ZERO_COPY"
    grammar = pages.torch_npu_grammar(ZERO_COPY_PAGE)
    assert grammar["requires"] == {"name": "TEST_ALLOC_CONF", "items": ["expandable_segments:True"]}
    grammars = {"TEST_ZERO_COPY": grammar}

    def unmet(alloc: str) -> bool:
        cell = f'import os\nos.environ["TEST_ALLOC_CONF"] = "{alloc}"\nos.environ["TEST_ZERO_COPY"] = "1"\n'
        return bool(env_values.unmet_requirements(env_values.python_settings(ast.parse(cell)), grammars))

    assert unmet("expandable_segments:False") and not unmet("expandable_segments:True")


def test_bare_comparisons_between_scalar_parameters_are_relations_but_formulas_and_refused_cases_are_not():
    from npulab.lint import op_docs

    text = ("参数说明\nblock(int)：必选参数。\nstride(int)：必选参数。\nx(Tensor)：输入。\n\n约束说明\n"
            "block、stride 必须是16的整数倍，且block>=stride，block <= 64。\n"
            "需要满足x / block <= 4096。\nsparse=3, 每个batch stride-block<0, 满足拦截条件。\nstride <= 0.\n")
    rules = op_docs._relation_rules(text, ["block", "stride", "x"], {"block", "stride"})
    assert sorted(fields["test"] for _r, _t, _w, fields, _s in rules) == ["block <= 64", "block >= stride"]
