#!/usr/bin/env python3
"""Regenerate npulab/data/signature_stubs/<package>-<version>.json: the Python sources of a released package reduced
to stubs (imports, ``def`` signatures with their decorators, classes, module-level names), for lint-npu's signature
checks of packages whose wheel CI should not download (triton-ascend: 50 MB per wheel; its 67 Python files are
0.3 MB; vllm: 270 MB, of which two modules are read). The wheel is read from PyPI by HTTP range requests: only the
zip directory and the .py members travel; or from a wheel already downloaded (``pip download vllm==0.23.0 --no-deps``).
A package's ``checks`` names the methods whose bodies are kept whole (vLLM's ``SamplingParams.__post_init__`` and
``_verify_args``: the checks lint-npu walks on a call's literals), with the literal values of the module's constants
and of the class fields' defaults those bodies read.

Usage: ``python scripts/extract_signature_stubs.py [PACKAGE [WHEEL]]`` (network: PyPI unless WHEEL is given). CI never
runs it; it reads the committed JSON.
"""

from __future__ import annotations

import ast
import json
import re
import sys
import warnings
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from npulab.env import pypi  # noqa: E402

OUT = Path(__file__).resolve().parent.parent / "npulab" / "data" / "signature_stubs"
PACKAGES = {"triton-ascend": {"version": "3.2.0", "files": r"^triton/.*\.py$",
                              "why": "the newest triton-ascend on PyPI: stack triton-ascend-pypi (npulab/data/stacks.yaml); "
                              "the primary stack triton-ascend pins 3.2.2, which only the Ascend pip mirror serves"},
            "vllm": {"version": "0.23.0", "files": r"^vllm/(__init__|sampling_params)\.py$",
                     "checks": r"^(__post_init__|_verify\w*)$",
                     "why": "the vLLM release the course's vllm-ascend 0.23.0 stack is built on (npulab/data/stacks.yaml); "
                     "only SamplingParams' own checks are kept"}}


def _literal(node: ast.expr | None) -> bool:
    try:
        ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return node is not None


def stub_body(body: list[ast.stmt], checks: re.Pattern | None = None) -> list[ast.stmt]:
    """Keep what name resolution and signatures need; drop every function body and value, except the bodies of the
    methods ``checks`` names and the literal values of constants and field defaults."""
    out: list[ast.stmt] = []
    for node in body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            out.append(node)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and checks and checks.search(node.name):
            out.append(node)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            node.body = [ast.Expr(ast.Constant(...))]
            node.returns = None
            for arg in [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]:
                arg.annotation = None
            node.args.defaults = [ast.Constant(None) for _ in node.args.defaults]
            node.args.kw_defaults = [None if d is None else ast.Constant(None) for d in node.args.kw_defaults]
            out.append(node)
        elif isinstance(node, ast.ClassDef):
            node.body = stub_body(node.body, checks) or [ast.Pass()]
            out.append(node)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = [t for t in targets if isinstance(t, ast.Name)]
            # with checks: a field's default (whatever it is: ``msgspec.field(default_factory=set)``), a literal constant
            kept = node.value if checks and (isinstance(node, ast.AnnAssign) or _literal(node.value)) else None
            if names:
                if isinstance(node, ast.AnnAssign):
                    out.append(ast.AnnAssign(target=names[0], annotation=ast.Name("object"), value=kept, simple=1))
                elif kept is not None:
                    out.append(ast.Assign(targets=names, value=kept, lineno=0))
                else:
                    out.append(ast.Assign(targets=names, value=ast.Constant(None), lineno=0))
        elif isinstance(node, (ast.If, ast.Try)):
            kept_nodes = stub_body(node.body, checks) + stub_body(getattr(node, "orelse", []), checks)
            for handler in getattr(node, "handlers", []):
                kept_nodes += stub_body(handler.body, checks)
            out += kept_nodes
    return out


def stubs(sources: dict[str, str], checks: re.Pattern | None = None) -> dict[str, str]:
    """Module path -> stub text."""
    out = {}
    for path, text in sorted(sources.items()):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                tree = ast.parse(text)
        except SyntaxError:
            continue
        tree.body = stub_body(tree.body, checks)
        out[path] = ast.unparse(ast.fix_missing_locations(tree)) + "\n"
    return out


def _wheel_members(wheel: Path, wanted: re.Pattern) -> dict[str, str]:
    with zipfile.ZipFile(wheel) as zf:
        return {n: zf.read(n).decode("utf-8", "replace") for n in zf.namelist() if wanted.search(n)}


def main(argv: list[str]) -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    for package, spec in PACKAGES.items():
        if argv and package != argv[0]:
            continue
        wanted = re.compile(spec["files"])
        try:
            sources = _wheel_members(Path(argv[1]), wanted) if len(argv) > 1 else \
                pypi.read_members(package, spec["version"], wanted, Path.home() / ".cache" / "npulab" / "sources")
        except (pypi.OfflineError, pypi.NotOnIndex) as err:
            print(f"{package}: {err}", file=sys.stderr)
            return 2
        checks = re.compile(spec["checks"]) if "checks" in spec else None
        data = {"package": package, "version": spec["version"], "why": spec["why"],
                "generated_by": "scripts/extract_signature_stubs.py", "files": stubs(sources, checks)}
        target = OUT / f"{package}-{spec['version']}.json"
        target.write_text(json.dumps(data, ensure_ascii=False, indent=0, sort_keys=True) + "\n", encoding="utf-8")
        print(f"{package} {spec['version']}: {len(data['files'])} modules, {target.stat().st_size // 1000} KB")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
