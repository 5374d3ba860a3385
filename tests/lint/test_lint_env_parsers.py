"""lint-npu round 14: environment-variable values read from how the released code PARSES each variable
(scripts/extract_env_value_parsers.py: Python reads compared with literals, converted with int()/float(), matched
with an anchored pattern or split on a separator and compared with a word set; torch's c10d getCvar readers), and
MindSpore's reference read by its "Type" column where the "Value Range" cell leaves the set open. Tested on sources
and a header written for the test, then through lint-npu's entry point on variables no planted set uses. Round 25v: a
value tested with ``in`` or looked up in a module's dict keyed by literals takes those keys."""

from __future__ import annotations

import ast
import importlib.util
import sys
from pathlib import Path

from test_lint_values import lint  # noqa: F401  (the module's fixture: one npu cell through check_notebook)

from npulab.env import env_vars, value_grammar

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, SCRIPTS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # a dataclass looks its module up there
    spec.loader.exec_module(module)
    return module


parsers = _load("extract_env_value_parsers")
ms_doc = _load("extract_mindspore_env_values")

SOURCE = '''
import os
import re
import warnings

KEY = "PKG_KEYED"
_WORDS = {"alpha", "beta"}


def _env_flag(name, default="0"):
    return os.environ.get(name, default) in ("1", "on")


switch = os.getenv("PKG_SWITCH", "0") == "1"
folded = os.getenv("PKG_FOLDED", "false").lower() == "true"
keyed = os.environ.get(KEY) != "0"
helped = _env_flag("PKG_HELPED")


def workers():
    value = os.getenv("PKG_WORKERS") or 4
    try:
        return int(value)
    except ValueError:
        return 4


def version():
    text = os.getenv("PKG_VERSION")
    if not text:
        return None
    pattern = r"^(\\d+)\\.(\\d+)$"
    found = re.match(pattern, text)
    if not found:
        warnings.warn(f"cannot parse PKG_VERSION={text}")  # quoted in a message: not a use of the value
    return found


words = set(item for item in os.getenv("PKG_WORDS", "").split("+") if item.strip())
for word in words:
    if word not in _WORDS:
        raise RuntimeError(word)

opened = os.getenv("PKG_PATH", "0") == "1"
print(os.getenv("PKG_PATH"))

_LEVELS = {"quiet": 0, "loud": 2}


def level():
    chosen = os.getenv("PKG_LEVEL")
    if chosen and chosen in _LEVELS:
        return _LEVELS[chosen]
    return 1


def mode():
    return _LEVELS[os.environ.get("PKG_MODE", "quiet")]
'''


def _readings() -> dict:
    return parsers.read_sources({"pkg/mod.py": ast.parse(SOURCE)}, "pkg")


def test_each_parser_idiom_gives_its_grammar():
    got = {name: parsers.grammar(reading) for name, reading in _readings().items()}
    assert got["PKG_SWITCH"] == {"enum": ["0", "1"]}  # a == "1" switch: 1, and the default 0
    assert got["PKG_FOLDED"] == {"enum": ["false", "true"], "case_insensitive": True}
    assert got["PKG_KEYED"] == {"enum": ["0", "1"]}  # the name through a module constant
    assert got["PKG_HELPED"] == {"enum": ["0", "1", "off", "on"]}  # through the helper; each spelling's opposite
    assert got["PKG_WORKERS"] == {"integer": True}  # int() after `or`
    assert got["PKG_VERSION"] == {"pattern": r"(\d+)\.(\d+)"}
    assert got["PKG_WORDS"] == {"list": {"enum": ["alpha", "beta"]}, "separator": "+"}
    assert got["PKG_PATH"] is None  # also printed: the value goes somewhere the reading cannot follow
    assert got["PKG_LEVEL"] == {"enum": ["loud", "quiet"]}  # `in` a module's dict keyed by literals (round 25v)
    assert got["PKG_MODE"] == {"enum": ["loud", "quiet"]}  # looked up in it: any other key is a KeyError


def test_grammars_judge_values_as_the_parser_does():
    got = {name: parsers.grammar(reading) for name, reading in _readings().items()}
    assert value_grammar.problem("true", got["PKG_SWITCH"]) and value_grammar.problem("1", got["PKG_SWITCH"]) is None
    assert value_grammar.problem("TRUE", got["PKG_FOLDED"]) is None
    assert value_grammar.problem("8 ", got["PKG_WORKERS"]) and value_grammar.problem("8", got["PKG_WORKERS"]) is None
    assert value_grammar.problem("sm_80", got["PKG_VERSION"]) and value_grammar.problem("9.1", got["PKG_VERSION"]) is None
    assert value_grammar.problem("alpha,beta", got["PKG_WORDS"]) and value_grammar.problem("alpha+beta", got["PKG_WORDS"]) is None


HEADER = '''
inline int getCvarInt(const std::vector<std::string>& env, int def) {
  int ret = def;
  for (ssize_t i = 0; i < 1; i++) {
    try {
      ret = std::stoi(val.value());
    } catch (std::exception&) {
      TORCH_CHECK(false, "Invalid value");
    }
  }
  return ret;
}

inline bool getCvarBool(const std::vector<std::string>& env, bool def) {
  bool ret = def;
  for (auto& x : val.value()) {
    x = std::tolower(x);
  }
  if (val == "1" || val == "on") {
    ret = true;
  } else if (val == "0") {
    ret = false;
  } else {
    TORCH_CHECK(false, "Invalid value for environment variable: " + env[i]);
  }
  return ret;
}
'''


def test_cvar_readers_are_read_from_the_header():
    got = parsers.cvar_parsers(HEADER)
    assert got["getCvarBool"] == {"enum": ["1", "on", "0"], "case_insensitive": True}
    assert got["getCvarInt"] == {"integer": True}


def test_an_integer_row_left_open_takes_an_integer():
    cell = "1: Turn the feature on.\n\n  No setting or other value: off."
    assert ms_doc.grammar("Integer", cell) == {"integer": True}
    assert ms_doc.grammar("String", cell) is None


def test_generated_tables_reach_lint_npu(lint):  # noqa: F811
    values = env_vars.table()["values"]
    assert values["TORCH_HCCL_TRACE_CPP_STACK"]["case_insensitive"]  # a getCvarBool reader: any case
    planted = ('import os\nos.environ["TORCH_COMPILE_DISABLE"] = "true"\n'
               'os.environ["TORCH_HCCL_TRACE_CPP_STACK"] = "on"\nos.environ["MS_DEV_DISABLE_AUTO_H2D"] = "yes"\n')
    twin = ('import os\nos.environ["TORCH_COMPILE_DISABLE"] = "1"\n'
            'os.environ["TORCH_HCCL_TRACE_CPP_STACK"] = "True"\nos.environ["MS_DEV_DISABLE_AUTO_H2D"] = "1"\n')
    got = {f.name: f for f in lint(planted)}
    assert {name: f.kind for name, f in got.items()} == {
        "TORCH_COMPILE_DISABLE": "env-value", "TORCH_HCCL_TRACE_CPP_STACK": "env-value", "MS_DEV_DISABLE_AUTO_H2D": "env-value"}
    assert "getCvarBool" in got["TORCH_HCCL_TRACE_CPP_STACK"].message  # the source is named
    assert lint(twin) == []


def test_installed_packages_names_reach_lint_npu(lint):  # noqa: F811
    """Round 22: torch's compiler names and transformers' and accelerate's own (``INSTALLED``), read the same way."""
    planted = ('import os\nos.environ["TORCHINDUCTOR_FREEZING"] = "yes"\n'
               'os.environ["TRANSFORMERS_SDPA_FORCE_GQA"] = "on"\nos.environ["ACCELERATE_USE_DEEPSPEED"] = "1"\n')
    twin = ('import os\nos.environ["TORCHINDUCTOR_FREEZING"] = "1"\n'
            'os.environ["TRANSFORMERS_SDPA_FORCE_GQA"] = "1"\nos.environ["ACCELERATE_USE_DEEPSPEED"] = "TRUE"\n')
    got = {f.name: f for f in lint(planted)}
    assert {name: f.kind for name, f in got.items()} == {
        "TORCHINDUCTOR_FREEZING": "env-value", "TRANSFORMERS_SDPA_FORCE_GQA": "env-value",
        "ACCELERATE_USE_DEEPSPEED": "env-value"}
    assert "torch/_inductor/config.py" in got["TORCHINDUCTOR_FREEZING"].message
    assert lint(twin) == []
    assert all(name.startswith(parsers.INSTALLED["accelerate"]) for name, spec in env_vars.table()["values"].items()
               if "accelerate 1." in str(spec.get("source", "")))


_CHOICES_SOURCE = '''
import os
def env_with_choices(env_name, default, choices, case_sensitive=True):
    def _get():
        value = os.getenv(env_name)
        if value is None:
            return default
        check = value if case_sensitive else value.lower()
        if check not in choices:
            raise ValueError(value)
        return value
    return _get
def env_list_with_choices(env_name, default, choices, case_sensitive=True):
    def _get():
        value = os.getenv(env_name)
        for val in value.split(","):
            if val not in choices:
                raise ValueError(val)
    return _get
def env_set_with_choices(env_name, default, choices, case_sensitive=True):
    return lambda: set(env_list_with_choices(env_name, default, choices, case_sensitive)())
environment_variables = {
    "APP_MODE": env_with_choices("APP_MODE", "a", ["a", "b"], case_sensitive=False),
    "APP_TAGS": env_set_with_choices("APP_TAGS", default=[], choices=["x", "y"]),
    "APP_LAZY": env_with_choices("APP_LAZY", None, lambda: ["p"]),
}
'''


def test_choice_validators_give_closed_sets():
    """Round 23: vLLM's ``env_with_choices`` and its list forms, recognised by what they do (read the variable their
    parameter names, raise when the value is not in their ``choices`` parameter), read at each call with literal
    choices; choices a callable computes stay open."""
    got = parsers.validated_choices("envs.py", ast.parse(_CHOICES_SOURCE))
    assert {name: spec for name, (spec, _where) in got.items()} == {
        "APP_MODE": {"enforced": True, "enum": ["a", "b"], "case_insensitive": True},
        "APP_TAGS": {"enforced": True, "list": {"enum": ["x", "y"]}, "separator": ","}}


def test_vllm_variables_reach_lint_npu(lint):  # noqa: F811
    """Round 23: vLLM 0.23.0's vllm/envs.py, its int() readers and its choice validators."""
    planted = ('import os\nos.environ["VLLM_DEEP_GEMM_WARMUP"] = "lazy"\n'
               'os.environ["VLLM_ENGINE_READY_TIMEOUT_S"] = "10m"\n'
               'os.environ["VLLM_GPT_OSS_SYSTEM_TOOL_MCP_LABELS"] = "container,browser"\n')
    twin = ('import os\nos.environ["VLLM_DEEP_GEMM_WARMUP"] = "skip"\n'
            'os.environ["VLLM_ENGINE_READY_TIMEOUT_S"] = "600"\n'
            'os.environ["VLLM_GPT_OSS_SYSTEM_TOOL_MCP_LABELS"] = "container,web_search_preview"\n')
    got = {f.name: f for f in lint(planted)}
    assert {name: f.kind for name, f in got.items()} == dict.fromkeys(
        ("VLLM_DEEP_GEMM_WARMUP", "VLLM_ENGINE_READY_TIMEOUT_S", "VLLM_GPT_OSS_SYSTEM_TOOL_MCP_LABELS"), "env-value")
    assert "env_with_choices" in got["VLLM_DEEP_GEMM_WARMUP"].message
    assert lint(twin) == []
