#!/usr/bin/env python3
"""Regenerate npulab/data/cli_values_packaged.yaml: the closed value sets of vLLM's command-line flags, read from the
pinned release's own argument classes (the version scripts/extract_cli_flags.py reads: stack vllm-ascend).

``vllm serve`` builds its flags from the fields of ``EngineArgs`` (vllm/engine/arg_utils.py) and ``FrontendArgs``
(vllm/entrypoints/openai/cli_args.py); ``vllm.engine.arg_utils._compute_kwargs`` turns a field whose type hint is a
``Literal[...]`` into argparse ``choices``. So each field of those classes whose annotation is a ``Literal``, or a
name bound to one (``ModelDType = Literal[...]`` in vllm/config/*.py, ``ChatTemplateContentFormatOption`` in
vllm/entrypoints/chat_utils.py), optionally ``| None``, gives ``--field-name`` that set. A union with any other type
(``str | LoadFormats``) admits other values and gives nothing. A plain ``int`` or ``float`` field (``| None`` allowed)
gets ``type=int`` / ``type=float`` there, unless ``_compute_kwargs`` names it for a parser of its own
(``max_model_len``: ``human_readable_int_or_auto``); a ``bool`` field becomes a switch that takes no value. Hand-written entries of npulab/data/cli_tools.yaml
``values`` win over these.

Usage: ``python scripts/extract_cli_flag_values.py [--cache DIR]`` (network: PyPI, as scripts/extract_cli_flags.py).
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from npulab.env import pypi, stacks  # noqa: E402

OUT = Path(__file__).resolve().parent.parent / "npulab" / "data" / "cli_values_packaged.yaml"
VLLM = stacks.pinned_version(stacks.get("vllm-ascend"), "vllm")
FILES = re.compile(r"^vllm/(engine/arg_utils|entrypoints/openai/cli_args|entrypoints/chat_utils|config/.*)\.py$")
CLASSES = {"vllm/engine/arg_utils.py": {"EngineArgs"},
           "vllm/entrypoints/openai/cli_args.py": {"BaseFrontendArgs", "FrontendArgs"}}


def literal_values(node: ast.AST, aliases: dict[str, ast.AST], depth: int = 0) -> list | None:
    """The values a ``Literal[...]`` annotation (through aliases, ``| None`` allowed) admits; None when open."""
    if depth > 4:
        return None
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == "Literal":
        items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if all(isinstance(i, ast.Constant) for i in items):
            return [i.value for i in items]
        return None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        parts = []
        for side in (node.left, node.right):
            if isinstance(side, ast.Constant) and side.value is None:
                continue
            got = literal_values(side, aliases, depth + 1)
            if got is None:
                return None
            parts += got
        return parts
    if isinstance(node, ast.Name) and node.id in aliases:
        return literal_values(aliases[node.id], aliases, depth + 1)
    return None


def _names(node: ast.AST, aliases: dict[str, ast.AST], depth: int = 0) -> set[str] | None:
    """The plain type names of an annotation (``int | None`` -> {"int", "None"}); None for anything else."""
    if depth > 4:
        return None
    if isinstance(node, ast.Constant) and node.value is None:
        return {"None"}
    if isinstance(node, ast.Name):
        if node.id in aliases:
            return _names(aliases[node.id], aliases, depth + 1)
        return {node.id}
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        left, right = _names(node.left, aliases, depth + 1), _names(node.right, aliases, depth + 1)
        return None if left is None or right is None else left | right
    return None


def typed_spec(name: str, annotation: ast.AST, aliases: dict[str, ast.AST], special: set[str]) -> dict | None:
    """What vllm/engine/arg_utils.py _compute_kwargs makes of a plain int, float or bool field: ``type=int`` (unless
    the field gets a parser of its own: ``special``), ``type=float``, or a BooleanOptionalAction switch (no value)."""
    names = _names(annotation, aliases)
    if not names or not names <= {"int", "float", "bool", "None"} or name in special:
        return None
    if "bool" in names:
        return None if names - {"bool", "None"} else dict(SWITCH)
    if "int" in names:
        return {"integer": True}
    return {"number": True}


# a BooleanOptionalAction switch takes no value: `--enforce-eager true` gives argparse a stray positional argument
SWITCH = {"pattern": "(?!(?i:true|false|yes|no|on|off|1|0)$).*",
          "hint": "是开关，不带值：打开写这个旗标本身，关闭写 --no- 加旗标名",
          "hint_en": "is a switch that takes no value: give the flag alone to turn it on, --no-<flag> to turn it off"}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "npulab" / "sources")
    args = parser.parse_args(argv)
    sources = pypi.read_members("vllm", VLLM, FILES, args.cache, "sdist")
    trees = {path: ast.parse(text) for path, text in sources.items()}
    aliases: dict[str, ast.AST] = {}
    for tree in trees.values():
        for node in tree.body:
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                aliases.setdefault(node.targets[0].id, node.value)
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
                aliases.setdefault(node.target.id, node.value)  # ModelDType: TypeAlias = Literal[...]
    flags: dict[str, dict] = {}
    # fields _compute_kwargs gives a parser of its own (human_readable_int …): named in `name == "…"` / `name in (…)`
    compute = next(n for n in ast.walk(trees["vllm/engine/arg_utils.py"])
                   if isinstance(n, ast.FunctionDef) and n.name == "_compute_kwargs")
    special = {c.value for n in ast.walk(compute) if isinstance(n, ast.Compare)
               and isinstance(n.left, ast.Name) and n.left.id == "name"
               for c in ast.walk(n) if isinstance(c, ast.Constant) and isinstance(c.value, str)}
    for path, names in CLASSES.items():
        for node in ast.walk(trees[path]):
            if not (isinstance(node, ast.ClassDef) and node.name in names):
                continue
            for item in node.body:
                if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                    values = literal_values(item.annotation, aliases)
                    flag = "--" + item.target.id.replace("_", "-")
                    if values and all(isinstance(v, str) for v in values):
                        flags[flag] = {"enum": values}
                    elif (spec := typed_spec(item.target.id, item.annotation, aliases, special)) is not None:
                        flags[flag] = spec
    source = (f"vllm {VLLM} (PyPI sdist): the Literal, int, float and bool type hints of EngineArgs (vllm/engine/arg_utils.py) and "
              "FrontendArgs (vllm/entrypoints/openai/cli_args.py), through their aliases in vllm/config/*.py and "
              "vllm/entrypoints/chat_utils.py; vllm/engine/arg_utils.py _compute_kwargs makes them argparse choices, "
              "type=int, type=float and BooleanOptionalAction switches")
    out = {"vllm": {"source": source, "source_en": source, "flags": dict(sorted(flags.items()))}}
    header = ("# Generated by scripts/extract_cli_flag_values.py: the closed value sets of `vllm serve` flags read from\n"
              f"# the pinned vllm {VLLM} release (choices, int and float types, switches). Do not edit by hand: cli_tools.yaml `values` win over these.\n")
    OUT.write_text(header + yaml.safe_dump(out, allow_unicode=True, sort_keys=False, width=200), encoding="utf-8")
    print(f"{len(flags)} flags -> {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
