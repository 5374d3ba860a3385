"""lint-npu, ``torch.compile(options={…})``: each key must be a name of Inductor's configuration and each value of the
type torch checks it against, as ``_TorchCompileInductorWrapper.apply_options`` (torch/__init__.py) refuses them when
the call runs ("Unexpected optimization option", "Unexpected type of attr"). The names and types are read from the
pinned torch into npulab/data/inductor_options.json (scripts/extract_inductor_options.py): importing
``torch._inductor.config`` itself takes seconds. Only a literal dict with string keys is read; a value that is not a
literal, or whose type torch does not check (a generic), is not judged.
"""

from __future__ import annotations

import ast
import builtins
import difflib
import json
from functools import cache

from npulab.core.i18n import t
from npulab.core.paths import DATA_DIR
from npulab.core.words import guess_end
from npulab.lint.api_values import argument
from npulab.lint.compile_backends import compile_calls


@cache
def _options() -> tuple[dict[str, str | None], str]:
    data = json.loads((DATA_DIR / "inductor_options.json").read_text(encoding="utf-8"))
    return data["options"], f"torch {data['torch']} torch._inductor.config"


def _problem(key: str, value_node: ast.expr) -> tuple[str, str | None] | None:
    """The sentence for one option torch would refuse and a guess at the name meant, or None."""
    known, where = _options()
    name = key.replace("-", "_")
    if name not in known:
        guess = difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.8)
        return t("lint.compile.option", name=repr(key), source=where), guess[0] if guess else None
    try:
        value = ast.literal_eval(value_node)
    except (ValueError, TypeError, SyntaxError, RecursionError):  # not a literal: not judged
        return None
    expected = known[name]
    if expected is not None and not isinstance(value, getattr(builtins, expected)):
        return t("lint.compile.option_type", name=repr(key), got=type(value).__name__, expected=expected,
                 source=where), None
    return None


def findings(tree: ast.Module, aliases: dict[str, str], sources) -> list[tuple[int, str, str]]:
    """(line, written call, sentence) for each key or value of ``torch.compile(options={…})`` torch refuses."""
    out = []
    for _torch, line, written, call in compile_calls(tree, aliases, sources):
        node = argument(call, None, "options")
        if not isinstance(node, ast.Dict):
            continue
        for key, value in zip(node.keys, node.values, strict=True):
            if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
                continue
            said = _problem(key.value, value)
            if said:
                out.append((line, written, t("lint.line_call", line=line, written=written, problem=said[0])
                            + guess_end(f"`{said[1]}`" if said[1] else None)))
    return out
