"""lint-npu round 23c: CANN's documented value spaces read whole — HCCL's own variable reference (cann/hccl
docs/zh/user_guide/hccl_env at v9.1.0), GE's variable reference and the atc parameter pages (cann/ge), the tables of
`msprof op` and `msprof op simulator` (MindStudio 8.3.0). The grammar's port spans and the pair rules of flags are
tested on values written for the test; the data through lint-npu's entry point, each planted cell with its correct twin,
on variables and flags no planted set uses."""

from __future__ import annotations

import pytest
from test_lint_values import lint  # noqa: F401  (the module's fixture: one npu cell through check_notebook)

from npulab.env import value_grammar
from npulab.lint.command_flags import Tables, check_command

PORTS = {"any_of": [{"enum": ["auto"]}, {"list": {"span": [1, 65535]}, "disjoint": True}], "hint": "ports"}


@pytest.mark.parametrize("value", ["auto", "60000", "60000-60050", "56000,56005,56007", "60000,60050-60100,60150-60160",
                                   "60000-60050,60051-60100"])
def test_port_spans_the_pages_show_are_accepted(value):
    assert value_grammar.problem(value, PORTS) is None


@pytest.mark.parametrize("value", ["61000-70000", "0", "60050-60000", "60000-60050,60040-60100", "60000,60000",
                                   "60000, 60050", "6000a", "AUTO"])
def test_port_spans_out_of_range_reversed_or_overlapping_are_refused(value):
    assert value_grammar.problem(value, PORTS) == "ports"


def test_a_span_says_why_and_so_does_an_any_of_without_a_hint():
    assert value_grammar.problem("60050-60000", {"span": [1, 65535]})
    assert value_grammar.problem("61000-70000", {"span": [1, 65535]})
    overlap = value_grammar.problem("1-5,3", {"list": {"span": [1, 9]}, "disjoint": True})
    assert "`3`" in overlap and "`1-5`" in overlap
    unhinted = {"any_of": PORTS["any_of"]}
    assert value_grammar.problem("auto", unhinted) is None
    assert value_grammar.problem("60000-60050,60040-60100", unhinted) == \
        value_grammar.problem("60000-60050,60040-60100", PORTS["any_of"][1])


def _problems(command: str) -> list[str]:
    return check_command(command.split(), Tables())


def test_pair_rules_of_flags():
    # exclusive pairs, narrowed by a value where the page names one; needs, with the other flag's default
    assert _problems("atc --model=m.onnx --framework=5 --output=o --soc_version=Ascend910B1 --enable_single_stream=true "
                     "--multi_stream_parallel_mode=cv")
    assert not _problems("atc --model=m.onnx --framework=5 --output=o --soc_version=Ascend910B1 "
                         "--enable_single_stream=false --multi_stream_parallel_mode=cv")
    assert _problems("atc --singleop=op.json --output=o --soc_version=Ascend910B1 --display_model_info=1")
    assert not _problems("atc --singleop=op.json --output=o --soc_version=Ascend910B1 --display_model_info=0")
    assert _problems("atc --model=m.onnx --framework=5 --output=o --soc_version=Ascend910B1 --optypelist_for_implmode=Pow")
    assert not _problems("atc --model=m.onnx --framework=5 --output=o --soc_version=Ascend910B1 "
                         "--op_select_implmode=high_precision --optypelist_for_implmode=Pow")
    assert _problems("msprof op --replay-mode=range ./app")
    assert _problems("msprof op --replay-mode=range --mstx=off ./app")
    assert not _problems("msprof op --replay-mode=range --mstx=on ./app")
    assert not _problems("msprof op --replay-mode=kernel ./app")
    assert not _problems("msprof op --replay-mode=range --mstx=$MSTX ./app")  # a placeholder decides nothing


def test_a_subcommand_is_checked_against_its_own_table():
    assert _problems("msprof op simulator --soc-version=Ascend910B1 --timeout=3000 ./app")
    assert not _problems("msprof op simulator --soc-version=Ascend910B1 --timeout=60 ./app")
    assert _problems("msprof op --soc-version=Ascend910B1 ./app")  # a simulator flag is not msprof op's
    assert not _problems("msprof --output=./out --aic-metrics=PipeUtilization python train.py")


PLANTED = """import os
os.environ["HCCL_DIAGNOSE_ENABLE"] = "true"
os.environ["HCCL_DEBUG_CONFIG"] = "alg, task"
os.environ["HCCL_LOGIC_SUPERPOD_ID"] = "%s"
os.environ["MULTI_THREAD_COMPILE"] = "2"
os.environ["HCCL_DFS_CONFIG"] = "inconsistent_check:always"
!atc --model=m.onnx --framework=5 --output=o --soc_version=Ascend910B1 --topo_sorting_mode=4 --oo_level=O2
!atc --model=m.onnx --framework=5 --output=o --soc_version=Ascend910B1 --deterministic_level=3
!atc --model=m.onnx --framework=5 --output=o --soc_version=Ascend910B1 --modify_mixlist=mix.json --precision_mode=force_fp16
!atc --model=m.onnx --framework=5 --output=o --soc_version=Ascend910B1 --static_model_ops_lower_limit=-2 --is_weight_clip=2
!msprof op --launch-skip-before-match=2000 --core-id="0|50" ./app
""" % ("s" * 128)

TWIN = """import os
os.environ["HCCL_DIAGNOSE_ENABLE"] = "1"
os.environ["HCCL_DEBUG_CONFIG"] = "^task,alg"
os.environ["HCCL_LOGIC_SUPERPOD_ID"] = "superpod_0"
os.environ["MULTI_THREAD_COMPILE"] = "0"
os.environ["HCCL_DFS_CONFIG"] = "inconsistent_check:first,task_exception:on"
os.environ["HCCL_OP_EXPANSION_MODE"] = "AICPU_TS"
os.environ["HCCL_EXEC_TIMEOUT"] = "0.05"
os.environ["ASCEND_MAX_OP_CACHE_SIZE"] = "-1"
!atc --model=m.onnx --framework=5 --output=o --soc_version=Ascend910B1 --topo_sorting_mode=3 --oo_level=O1
!atc --model=m.onnx --framework=5 --output=o --soc_version=Ascend910B1 --deterministic=1 --deterministic_level=3
!atc --model=m.onnx --framework=5 --output=o --soc_version=Ascend910B1 --modify_mixlist=mix.json --precision_mode_v2=mixed_float16
!atc --model=m.onnx --framework=5 --output=o --soc_version=Ascend910B1 --static_model_ops_lower_limit=-1 --is_weight_clip=0
!msprof op --launch-skip-before-match=1000 --core-id="0|31" ./app
"""


def test_cann_value_spaces_reach_lint_npu(lint):  # noqa: F811
    found = lint(PLANTED)
    variables = {f.name for f in found if f.kind == "env-value"}
    assert variables == {"HCCL_DIAGNOSE_ENABLE", "HCCL_DEBUG_CONFIG", "HCCL_LOGIC_SUPERPOD_ID", "MULTI_THREAD_COMPILE",
                         "HCCL_DFS_CONFIG"}, [f.message for f in found]
    flags = " ".join(f.message for f in found if f.kind == "cli-flag")
    for flag in ("--topo_sorting_mode", "--oo_level", "--deterministic_level", "--modify_mixlist",
                 "--static_model_ops_lower_limit", "--is_weight_clip", "--launch-skip-before-match", "--core-id"):
        assert flag in flags, flags
    # values the older tables refused although the pages document them (AICPU_TS, a decimal AIV timeout, -1)
    assert lint(TWIN) == [], [f.message for f in lint(TWIN)]
