"""lint-npu round 12: environment-variable values read from whole documentation pages (the Ascend Extension for
PyTorch pages, MindSpore Transformers' table: scripts/extract_env_value_pages.py), a variable that takes effect only
while another has given values (``requires``), and `vllm serve` choices read from vLLM's Literal type hints
(scripts/extract_cli_flag_values.py). Tested on page text written for the test, then through lint-npu's entry point
on variables and flags no planted set uses."""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

from test_lint_values import lint  # noqa: F401  (the module's fixture: one npu cell through check_notebook)

from npulab.env import env_values, env_vars
from npulab.lint.command_flags import Tables

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, SCRIPTS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


pages = _load("extract_env_value_pages")
flag_values = _load("extract_cli_flag_values")

SWITCH_PAGE = """# TEST\\_SWITCH

## 功能描述

通过此环境变量可配置一个开关。

- 配置为“0”时：关闭。
- 配置为“1”或未配置时：开启。
- 配置为“2”时：开启并记录。

此环境变量默认配置为“1”。

## 使用约束

当[OTHER\\_SWITCH](OTHER_SWITCH.md)配置为“1”/“2”时，此环境变量才能生效。
"""

OPEN_PAGE = """# TEST\\_OPEN

## 功能描述

- 配置为“0”时：关闭。
- 配置大于等于1时：开启，数值为缓冲区大小。
"""

RANGE_PAGE = """# TEST\\_TIMEOUT

## 功能描述

单位为s，取值范围为\\[0, 3600\\]，默认值为60。
"""


def test_a_page_whose_bullets_each_name_a_value_gives_the_set_and_its_pair_relation():
    spec = pages.torch_npu_grammar(SWITCH_PAGE)
    assert spec["enum"] == ["0", "1", "2"] and spec["default"] == "1"
    assert spec["requires"] == {"name": "OTHER_SWITCH", "enum": ["1", "2"]}


def test_a_page_that_admits_other_values_gives_nothing_and_a_range_gives_the_range():
    assert pages.torch_npu_grammar(OPEN_PAGE) is None
    assert pages.torch_npu_grammar(RANGE_PAGE)["int"] == [0, 3600]


def test_mindformers_rows_give_sets_and_ranges_but_not_key_descriptions():
    assert pages.mindformers_grammar("`on`: turn on;<br>`off`: turn off.") == {"enum": ["on", "off"]}
    assert pages.mindformers_grammar("Takes a positive integer, value range 2~16.") == {"int": [2, 16]}
    assert pages.mindformers_grammar("The range is: (0, 600], in s.") == {"int": [1, 600]}
    assert pages.mindformers_grammar("`max_num`: the most;<br>`min_num`: the least.") is None
    assert pages.mindformers_grammar("File path, relative or absolute.") is None


def test_an_unmet_requirement_is_reported_and_the_default_or_an_unset_companion_is_not():
    grammars = {"A_FLAG": {"enum": ["0", "1"], "default": "0", "requires": {"name": "B_MODE", "enum": ["1", "2"]}}}

    def settings(code: str):
        return env_values.python_settings(ast.parse(code))

    unmet = env_values.unmet_requirements(settings('import os\nos.environ["B_MODE"] = "0"\nos.environ["A_FLAG"] = "1"'),
                                          grammars)
    assert [(s.name, o.name) for s, o, _ in unmet] == [("A_FLAG", "B_MODE")]
    assert not env_values.unmet_requirements(settings('import os\nos.environ["B_MODE"] = "2"\nos.environ["A_FLAG"] = "1"'),
                                             grammars)
    assert not env_values.unmet_requirements(settings('import os\nos.environ["B_MODE"] = "0"\nos.environ["A_FLAG"] = "0"'),
                                             grammars)
    assert not env_values.unmet_requirements(settings('import os\nos.environ["A_FLAG"] = "1"'), grammars)


def test_a_variable_off_until_set_is_reported_when_no_cell_up_to_here_enables_it():
    """``requires: {…, enabled: true}`` (DUMP_GRAPH_LEVEL "takes effect only when DUMP_GE_GRAPH is enabled"): an unset
    companion counts only when the notebook's earlier cells are known and none of them sets it either."""
    grammars = {"A_LEVEL": {"default": "2", "requires": {"name": "B_DUMP", "enum": ["1", "2"], "enabled": True}}}
    cell = env_values.python_settings(ast.parse('import os\nos.environ["A_LEVEL"] = "3"'))
    unmet = env_values.unmet_requirements(cell, grammars, set())
    assert [(s.name, o) for s, o, _ in unmet] == [("A_LEVEL", None)]
    assert "B_DUMP" in env_values.requirement_message(unmet[0][0], None, grammars["A_LEVEL"], "page")
    assert not env_values.unmet_requirements(cell, grammars, {"B_DUMP"})  # an earlier cell set it
    assert not env_values.unmet_requirements(cell, grammars)  # earlier cells unknown
    both = env_values.python_settings(ast.parse('import os\nos.environ["B_DUMP"] = "$X"\nos.environ["A_LEVEL"] = "3"'))
    assert not env_values.unmet_requirements(both, grammars, set())  # set here, to a value not known
    default = env_values.python_settings(ast.parse('import os\nos.environ["A_LEVEL"] = "2"'))
    assert not env_values.unmet_requirements(default, grammars, set())


def test_vllm_literal_hints_are_read_through_aliases_and_open_unions_give_nothing():
    tree = ast.parse('Mode = Literal["a", "b"]\nclass E:\n    x: Mode | None = None\n    y: str | Mode = "a"\n')
    aliases = {"Mode": tree.body[0].value}
    x, y = tree.body[1].body
    assert flag_values.literal_values(x.annotation, aliases) == ["a", "b"]
    assert flag_values.literal_values(y.annotation, aliases) is None


def test_generated_tables_reach_lint_npu(lint):  # noqa: F811
    # a torch_npu page (TORCH_NPU_COMPACT_ERROR_OUTPUT: 0 or 1), a MindSpore Transformers row (MS_ENABLE_FA_FLATTEN:
    # on or off) and a vLLM Literal (--mm-processor-cache-type: shm or lru); TORCH_NPU_LAZY_FUSION's relation is read
    grammars = env_vars.table()["values"]
    assert grammars["TORCH_NPU_LAZY_FUSION"]["requires"] == {"name": "TASK_QUEUE_ENABLE", "enum": ["1", "2"]}
    planted = ('import os\nos.environ["TORCH_NPU_COMPACT_ERROR_OUTPUT"] = "2"\n'
               'os.environ["MS_ENABLE_FA_FLATTEN"] = "1"\n!vllm serve m --mm-processor-cache-type disk\n')
    twin = ('import os\nos.environ["TORCH_NPU_COMPACT_ERROR_OUTPUT"] = "1"\n'
            'os.environ["MS_ENABLE_FA_FLATTEN"] = "on"\n!vllm serve m --mm-processor-cache-type lru\n')
    got = {f.name: f.kind for f in lint(planted)}
    assert {"TORCH_NPU_COMPACT_ERROR_OUTPUT", "MS_ENABLE_FA_FLATTEN"} <= set(got) and "cli-flag" in got.values(), got
    assert lint(twin) == []
    assert "--mm-processor-cache-type" in Tables().values("vllm")


# --- torch_npu operator ranks (npulab.lint.op_ranks), on operator texts written for the test -----------------------

OPERATOR = """
torch_npu.npu_test_op(input, weight, scale=None, *, mode=0) -> Tensor
功能描述
测试用的算子。

参数说明
input (Tensor) - 必选参数，一个3D的Device侧Tensor输入，数据类型支持float16。
weight (Tensor) - shape为(k, n)，数据类型支持float16。
scale (Tensor) - 可选参数，shape支持1维(n,)或者2维(1, n)。
mode (Int，默认值为0) - 0表示普通模式，1表示快速模式。

调用示例
>>> import torch, torch_npu
>>> x = torch.randn(2, 4, 8).npu()
>>> w = torch.randn(8, 16).npu()
>>> y = torch_npu.npu_test_op(x, w)
tensor([[0.1, 0.2]], device='npu:0')
"""


def test_ranks_are_read_from_words_axes_and_alternatives():
    from npulab.lint import op_ranks

    ranks = {p: sorted(r) for p, (r, _) in op_ranks.ranks_of_text(OPERATOR, "npu_test_op").items()}
    assert ranks == {"input": [3], "weight": [2], "scale": [1, 2]}


def test_a_layout_written_without_separators_has_one_axis_per_letter():
    """"输入shape支持[BHMND]" (npu_fused_floyd_attention's page in the torch_npu 2.12.0 wheel) is a 5-D tensor."""
    from npulab.lint import op_ranks

    text = OPERATOR.replace("shape为(k, n)", "输入shape支持[BHMND]").replace("一个3D的Device侧Tensor输入", "shape为(numTokens)")
    ranks = {p: sorted(r) for p, (r, _) in op_ranks.ranks_of_text(text, "npu_test_op").items()}
    assert ranks["weight"] == [5] and ranks["input"] == [1]


def test_a_rank_under_a_condition_or_a_mode_closes_nothing():
    from npulab.lint import op_ranks

    text = OPERATOR.replace("shape支持1维(n,)或者2维(1, n)", "per_channel模式: shape为(1, n)")
    text = text.replace("一个3D的Device侧Tensor输入", "训练场景时为3D的Tensor")
    assert set(op_ranks.ranks_of_text(text, "npu_test_op")) == {"weight"}


def test_rules_the_operators_own_example_breaks_are_dropped():
    from npulab.lint import op_ranks

    example = op_ranks._example(OPERATOR)
    assert "y = torch_npu.npu_test_op(x, w)" in example and ">>>" not in example
    found = op_ranks.ranks_of_text(OPERATOR, "npu_test_op")
    assert not op_ranks._example_refused(OPERATOR, "npu_test_op", (found, {}))
    flat = OPERATOR.replace("torch.randn(2, 4, 8)", "torch.randn(4, 8)")  # the example itself passes a 2-D input
    assert op_ranks._example_refused(flat, "npu_test_op", (found, {}))
