#!/usr/bin/env python3
"""Regenerate npulab/data/cli_flags.json: the command-line flags of the Python-packaged tools the course runs.

For each tool below, the named files of the named release are read from PyPI without building or installing
anything (a wheel by HTTP range requests: only its zip directory and the listed members travel; an sdist is
downloaded once into the cache), and parsed with ``ast``:

- every option string of an ``add_argument(...)`` call, every ``add_parser("name")`` sub-command;
- for click tools, the options of each sub-command: ``group.add_command(func, name="compare")`` names the
  sub-command, and the options of the file that defines ``func`` are its own (a nested group's file holds all of
  its commands), so ``msprof-analyze compare --bp`` is refused even though another sub-command has ``--bp``; a
  sub-command that ignores unknown options and gathers the rest in a variadic argument (``ignore_unknown_options``
  with ``click.argument(..., nargs=-1)``: msprof-analyze's ``cluster``, whose recipes read ``--top_num``, ``--bp`` …
  with argparse in their ``add_parser_argument``, ignoring what they do not know) hands them on, so every argparse
  option of the package counts as its own too (a superset: which recipe reads the rest is chosen at run time);
- every field of a ``@dataclass`` class in the listed files (tools that build flags from dataclasses: vLLM's
  ``EngineArgs``/``FrontendArgs``, ms-swift's argument classes and the transformers ``TrainingArguments`` they extend).

Usage: ``python scripts/extract_cli_flags.py [--cache DIR]`` (network: PyPI; default cache ~/.cache/npulab/sources).
CI never runs this script: it checks against the committed JSON (a few hundred KB instead of hundreds of MB of
wheels). Re-run it when a version below changes, and commit the result.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from npulab.env import pypi, stacks  # noqa: E402

OUT = Path(__file__).resolve().parent.parent / "npulab" / "data" / "cli_flags.json"

# tool -> where its arguments are defined; "dataclass_files" are read for dataclass fields, "files" for add_argument
TOOLS = {
    "vllm": {"package": "vllm", "version": stacks.pinned_version(stacks.get("vllm-ascend"), "vllm"), "prefer": "sdist",
             "underscore_equals_dash": True,
             "bool_negation": True,
             "files": r"^vllm/(entrypoints/.*|benchmarks/.*|engine/arg_utils)\.py$",
             "dataclass_files": r"^vllm/(engine/arg_utils|entrypoints/openai/cli_args|entrypoints/openai/.*args|"
                                r"benchmarks/.*|config/.*)\.py$",
             "why": "stack vllm-ascend (npulab/data/stacks.yaml): vllm-ascend 0.23.0 builds on vLLM v0.23.0 "
                    "(its Dockerfile: ARG VLLM_TAG=v0.23.0)"},
    "swift": {"package": "ms-swift", "version": stacks.pinned_version(stacks.get("ms-swift"), "ms-swift"),
              "prefer": "sdist", "underscore_equals_dash": True,
              "files": r"^swift/.*\.py$", "dataclass_files": r"^swift/(arguments/.*|.*/arguments/.*)\.py$",
              "extends": [{"package": "transformers", "version": "5.19.0",
                           "dataclass_files": r"^transformers/(training_args|training_args_seq2seq)\.py$"}],
              "why": "newest ms-swift on PyPI (2026-12-01); its SftArguments extend transformers' Seq2SeqTrainingArguments "
                     "(ms-swift 4.6.0 requires transformers>=4.33,<5.20.0: the newest allowed, 5.19.0, is read)"},
    "msprobe": {"package": "mindstudio-probe", "version": "26.2.0", "prefer": "wheel",
                "files": r"^msprobe/.*\.py$", "why": "requirements.txt pins mindstudio-probe==26.2.0"},
    "msprof-analyze": {"package": "msprof-analyze", "version": "26.2.0", "prefer": "wheel",
                       "files": r"^msprof_analyze/.*\.py$", "click": True, "why": "newest msprof-analyze on PyPI"},
    "torchrun": {"package": "torch", "version": stacks.pinned_version(stacks.get("course"), "torch"), "prefer": "wheel",
                 "files": r"^torch/distributed/(run|argparse_util)\.py$", "why": "requirements-npu.txt pins torch==2.12.0"},
    "msrun": {"package": "mindspore", "version": stacks.pinned_version(stacks.get("mindspore"), "mindspore"),
              "prefer": "wheel",
              "files": r"^mindspore/parallel/cluster/run\.py$", "why": "requirements.txt pins mindspore==2.10.0"},
}


def _parse(text: str) -> ast.Module | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(text)
    except SyntaxError:
        return None


def _strings(node: ast.AST) -> list[str]:
    return [node.value] if isinstance(node, ast.Constant) and isinstance(node.value, str) else []


def argparse_flags(sources: dict[str, str], click: bool = False) -> tuple[set[str], set[str]]:
    """Option strings of add_argument (and click.option) calls, and sub-command names of add_parser calls."""
    flags, commands = set(), set()
    for text in sources.values():
        tree = _parse(text)
        if tree is None:
            continue
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
                continue
            if node.func.attr == "add_argument" or (click and node.func.attr in ("option", "argument")):
                for arg in node.args:
                    flags.update(s for s in _strings(arg) if s.startswith("-"))
            elif node.func.attr == "add_parser" and node.args:
                commands.update(_strings(node.args[0]))
                for kw in node.keywords:
                    if kw.arg == "aliases" and isinstance(kw.value, (ast.List, ast.Tuple)):
                        for elt in kw.value.elts:
                            commands.update(_strings(elt))
    return flags, commands


def click_subcommands(sources: dict[str, str]) -> dict[str, list[str]]:
    """{sub-command: its options} of click groups: ``add_command(func, name=...)`` and the options of func's file."""
    defined: dict[str, str] = {}  # click-decorated function -> file
    added: dict[str, str] = {}  # sub-command name -> function
    for path, text in sources.items():
        tree = _parse(text)
        if tree is None:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and any("click." in ast.unparse(d) for d in node.decorator_list):
                defined[node.name] = path
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "add_command"
                  and node.args and isinstance(node.args[0], ast.Name)):
                name = next((kw.value.value for kw in node.keywords if kw.arg == "name"
                             and isinstance(kw.value, ast.Constant)), node.args[0].id)
                added[name] = node.args[0].id
    handed_on, _ = argparse_flags(sources)  # the package's argparse options, read by whatever receives the rest
    out = {}
    for name, func in added.items():
        if func in defined:
            text = sources[defined[func]]
            flags, _ = argparse_flags({defined[func]: text}, click=True)
            if _passes_unknown_options(text):
                flags |= handed_on
            out[name] = sorted(flags)
    return dict(sorted(out.items()))


def _passes_unknown_options(text: str) -> bool:
    """Whether a click command's file keeps unknown options (``ignore_unknown_options`` set true) and gathers them in
    a variadic argument (``nargs=-1``) to hand on to another parser."""
    keeps = re.search(r"ignore_unknown_options['\"]?\s*[\]=:]\s*=?\s*True", text)
    return bool(keeps and re.search(r"\bargument\([^)]*nargs\s*=\s*-1", text))


def dataclass_fields(sources: dict[str, str]) -> tuple[set[str], set[str]]:
    """(fields, boolean fields) of every dataclass-decorated class in the sources."""
    fields, booleans = set(), set()
    for text in sources.values():
        tree = _parse(text)
        if tree is None:
            continue
        for node in ast.walk(tree):
            if not isinstance(node, ast.ClassDef):
                continue
            decorated = any("dataclass" in ast.unparse(d) or ast.unparse(d).endswith("config") for d in node.decorator_list)
            if not decorated and not any("Arguments" in ast.unparse(b) or "Args" in ast.unparse(b) for b in node.bases):
                continue
            for stmt in node.body:
                if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and not stmt.target.id.startswith("_"):
                    if "ClassVar" in ast.unparse(stmt.annotation):
                        continue
                    fields.add(stmt.target.id)
                    if ast.unparse(stmt.annotation).startswith("bool"):
                        booleans.add(stmt.target.id)
    return fields, booleans


def extract(tool: str, spec: dict, cache: Path) -> dict:
    """The flag table of one tool."""
    sources = pypi.read_members(spec["package"], spec["version"], re.compile(spec["files"]), cache, spec["prefer"])
    flags, commands = argparse_flags(sources, spec.get("click", False))
    read = {f"{spec['package']}=={spec['version']}": sorted(sources)}
    booleans: set[str] = set()
    for part in [spec, *spec.get("extends", [])]:
        if "dataclass_files" not in part:
            continue
        if part is spec:
            dc_sources = pypi.read_members(spec["package"], spec["version"], re.compile(part["dataclass_files"]), cache,
                                           spec["prefer"])
        else:
            dc_sources = pypi.read_members(part["package"], part["version"], re.compile(part["dataclass_files"]), cache)
            read[f"{part['package']}=={part['version']}"] = sorted(dc_sources)
        fields, bools = dataclass_fields(dc_sources)
        flags |= {f"--{f}" for f in fields}
        booleans |= bools
    if spec.get("bool_negation"):
        flags |= {f"--no-{b.replace('_', '-')}" for b in booleans}
    if spec.get("underscore_equals_dash"):
        flags = {f if not f.startswith("--") else "--" + f[2:].replace("_", "-") for f in flags}
    table = {"package": spec["package"], "version": spec["version"], "why": spec["why"],
             "underscore_equals_dash": bool(spec.get("underscore_equals_dash")),
             "read": read, "subcommands": sorted(commands), "flags": sorted(flags)}
    if spec.get("click"):
        table["subcommand_flags"] = click_subcommands(sources)
        table["subcommands"] = sorted(set(commands) | set(table["subcommand_flags"]))
    return table


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "npulab" / "sources")
    parser.add_argument("--only", nargs="*", help="regenerate only these tools (others are kept)")
    args = parser.parse_args(argv)
    table = json.loads(OUT.read_text(encoding="utf-8")) if OUT.is_file() else {}
    tools = table.setdefault("tools", {})
    for tool, spec in TOOLS.items():
        if args.only and tool not in args.only:
            continue
        try:
            tools[tool] = extract(tool, spec, args.cache)
        except (pypi.OfflineError, pypi.NotOnIndex) as err:
            print(f"{tool}: {err}", file=sys.stderr)
            return 2
        print(f"{tool}: {len(tools[tool]['flags'])} flags, {len(tools[tool]['subcommands'])} sub-commands "
              f"from {spec['package']}=={spec['version']}")
    table["generated_by"] = "scripts/extract_cli_flags.py"
    OUT.write_text(json.dumps(table, ensure_ascii=False, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
