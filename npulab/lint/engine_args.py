"""lint-npu, vLLM's ``LLM(…)`` keywords judged as the ``vllm serve`` flags they are: ``LLM(model, …, **kwargs)`` hands
its keywords to ``EngineArgs`` (vllm/entrypoints/llm.py), and ``EngineArgs``' fields are the flags ``vllm serve``
builds (vllm/engine/arg_utils.py ``add_cli_args``). A call's literal keywords are written as those flags and checked
with the tables read from the same release (cli_values_packaged.yaml: choices, ranges, JSON configs, the tests of
the config classes' validators), so one reading of vLLM's code judges both spellings."""

from __future__ import annotations

import ast
import json

from npulab.core.i18n import t
from npulab.lint import command_flags
from npulab.lint.calls import calls

# the callables whose keywords are EngineArgs' fields
ENGINES = frozenset({"vllm.LLM", "vllm.entrypoints.llm.LLM", "vllm.EngineArgs", "vllm.engine.arg_utils.EngineArgs",
                     "vllm.AsyncEngineArgs", "vllm.engine.arg_utils.AsyncEngineArgs"})
_UNREAD = "$UNREAD"  # a keyword whose value is not a literal: a test that reads it decides nothing


def _flag(keyword: str, value) -> list[str]:
    """The flag a keyword stands for: a switch for a bool, JSON for a dict or a list, the text of any other literal."""
    name = "--" + keyword.replace("_", "-")
    if value is True:
        return [name]
    if value is False:
        return ["--no-" + name[2:]]
    if value is None:
        return []  # the field's own default
    return [f"{name}={json.dumps(value) if isinstance(value, (dict, list)) else value}"]


def argv(node: ast.Call) -> list[str]:
    """``vllm serve``'s spelling of a call's keywords (a positional ``model`` is the command's own argument)."""
    out = []
    for keyword in node.keywords:
        if keyword.arg is None:
            continue
        try:
            value = ast.literal_eval(keyword.value)
        except (ValueError, TypeError, SyntaxError, RecursionError):
            out.append(f"--{keyword.arg.replace('_', '-')}={_UNREAD}")
            continue
        out += _flag(keyword.arg, value)
    return out


def findings(tree: ast.Module, imported: dict[str, str], tables) -> list[tuple[int, str, str]]:
    """(line, written, sentence) for each engine call whose keywords, as flags, the release's tables refuse."""
    out = []
    for line, written, full, node in calls(tree, imported):
        if full in ENGINES:
            out += [(line, written, t("lint.vllm.engine_args", line=line, written=written, problem=problem))
                    for problem in command_flags.value_problems("vllm", argv(node), tables)]
    return out
