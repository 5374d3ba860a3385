"""lint-npu round 19 (issue 36): the tests of vLLM's config validators that read two flags or more, extracted from
the pinned vllm 0.23.0 release (scripts/extract_cli_flag_values.py: ``if`` tests, nested ones joined, that compare
fields with each other or with constants and raise), evaluated on a ``vllm serve`` command's flags and EngineArgs'
defaults for those it does not give (npulab.lint.command_flags.refused_problems). Planted commands and correct
twins on flags no case set uses."""

from __future__ import annotations

import pytest
from test_lint_values import lint  # noqa: F401  (the module's fixture: one npu cell through check_notebook)

from npulab.lint.command_flags import refused_problems

SERVE = "!vllm serve Qwen/Qwen3-30B-A3B "
RULE = {"refused": "enable_eplb and (not enable_expert_parallel)",
        "fields": {"enable_eplb": ["--enable-eplb"], "enable_expert_parallel": ["--enable-expert-parallel", "-ep"]},
        "switches": ["enable_eplb", "enable_expert_parallel"],
        "defaults": {"enable_eplb": False, "enable_expert_parallel": False}, "source": "s", "source_en": "s"}


def test_a_switch_given_alone_meets_the_default_of_the_other():
    assert refused_problems("vllm", ["serve", "m", "--enable-eplb"], RULE) != []
    assert refused_problems("vllm", ["serve", "m", "--enable-eplb", "-ep"], RULE) == []
    assert refused_problems("vllm", ["serve", "m", "--no-enable-eplb"], RULE) == []
    assert refused_problems("vllm", ["serve", "m"], RULE) == []  # the defaults alone are vLLM's business


def test_a_field_neither_given_nor_defaulted_or_a_placeholder_decides_nothing():
    rule = {**RULE, "refused": "a < b", "fields": {"a": ["--a"], "b": ["--b"]}, "switches": [], "defaults": {}}
    assert refused_problems("vllm", ["--a", "3"], rule) == []
    assert refused_problems("vllm", ["--a", "3", "--b", "$B"], rule) == []
    assert refused_problems("vllm", ["--a", "3", "--b", "2"], rule) == []
    assert refused_problems("vllm", ["--a=1", "--b", "2"], rule) != []


@pytest.mark.parametrize("code", [
    SERVE + "--enable-eplb",  # EPLB needs expert parallelism
    SERVE + "-ep --enable-eplb -pp 2 --enable-elastic-ep",  # elastic EP and pipeline parallelism exclude each other
    SERVE + "--data-parallel-size 2 --data-parallel-size-local 4",  # local ranks above the data-parallel size
])
def test_vllm_serve_refusals(lint, code):  # noqa: F811
    assert [f.kind for f in lint(code)] == ["cli-flag"]


@pytest.mark.parametrize("code", [
    SERVE + "--enable-expert-parallel --enable-eplb",
    SERVE + "-ep --enable-eplb --enable-elastic-ep",
    SERVE + "--data-parallel-size 4 --data-parallel-size-local 2",
])
def test_their_correct_twins_are_clean(lint, code):  # noqa: F811
    assert lint(code) == []


# Round 23: a flag vLLM parses as JSON into a config dataclass (its keys, their Literal values and pydantic bounds,
# its validators' tests with the class's defaults), and LLM(...)'s keywords as the flags they are
JSON_CASES = [
    (SERVE + """--ec-transfer-config '{"ec_connector": "ECExampleConnector"}'""",  # a connector needs its role
     SERVE + """--ec-transfer-config '{"ec_connector": "ECExampleConnector", "ec_role": "ec_both"}'"""),
    (SERVE + """--ec-transfer-config '{"ec_connector": "ECExampleConnector", "ec_role": "ec_sender"}'""",
     SERVE + """--ec-transfer-config '{"ec_connector": "ECExampleConnector", "ec_role": "ec_producer"}'"""),
    (SERVE + """--profiler-config '{"profiler": "torch", "active_iterations": 0}'""",  # Field(ge=1)
     SERVE + """--profiler-config '{"profiler": "torch", "active_iterations": 5}'"""),
    (SERVE + """--profiler-config '{"profiler": "torch", "activ_iterations": 5}'""",  # the class forbids extra keys
     SERVE + """--profiler-config '{"profiler": "torch", "active_iterations": 5}'"""),
    ("from vllm import LLM\nllm = LLM(model=\"Qwen/Qwen3-8B\", numa_bind_nodes=[0, 1])",  # numa binding not on
     "from vllm import LLM\nllm = LLM(model=\"Qwen/Qwen3-8B\", numa_bind=True, numa_bind_nodes=[0, 1])"),
]


@pytest.mark.parametrize(("planted", "twin"), JSON_CASES)
def test_json_configs_and_engine_keywords(lint, planted, twin):  # noqa: F811
    assert [f.kind for f in lint(planted)] in (["cli-flag"], ["argument-value"])
    assert lint(twin) == []


def test_a_keyword_that_is_not_a_literal_decides_nothing(lint):  # noqa: F811
    assert lint("from vllm import LLM\nbind = False\nllm = LLM(model=\"m\", numa_bind=bind, numa_bind_nodes=[0])") == []
