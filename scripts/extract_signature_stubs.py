#!/usr/bin/env python3
"""Regenerate npulab/data/signature_stubs/<package>-<version>.json: the Python sources of a released package reduced
to stubs (imports, ``def`` signatures with their decorators, classes, module-level names), for lint-npu's signature
checks of packages whose wheel CI should not download (triton-ascend: 50 MB per wheel; its 67 Python files are
0.3 MB). The wheel is read from PyPI by HTTP range requests: only the zip directory and the .py members travel.

Usage: ``python scripts/extract_signature_stubs.py`` (network: PyPI). CI never runs it; it reads the committed JSON.
"""

from __future__ import annotations

import ast
import json
import re
import sys
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from npulab.env import pypi  # noqa: E402

OUT = Path(__file__).resolve().parent.parent / "npulab" / "data" / "signature_stubs"
PACKAGES = {"triton-ascend": {"version": "3.2.0", "files": r"^triton/.*\.py$",
                              "why": "the newest triton-ascend on PyPI: stack triton-ascend-pypi (npulab/data/stacks.yaml); "
                              "the primary stack triton-ascend pins 3.2.2, which only the Ascend pip mirror serves"}}


def stub_body(body: list[ast.stmt]) -> list[ast.stmt]:
    """Keep what name resolution and signatures need; drop every function body and value."""
    out: list[ast.stmt] = []
    for node in body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
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
            node.body = stub_body(node.body) or [ast.Pass()]
            out.append(node)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = [t for t in targets if isinstance(t, ast.Name)]
            if names:
                if isinstance(node, ast.AnnAssign):
                    out.append(ast.AnnAssign(target=names[0], annotation=ast.Name("object"), value=None, simple=1))
                else:
                    out.append(ast.Assign(targets=names, value=ast.Constant(None), lineno=0))
        elif isinstance(node, (ast.If, ast.Try)):
            kept = stub_body(node.body) + stub_body(getattr(node, "orelse", []))
            for handler in getattr(node, "handlers", []):
                kept += stub_body(handler.body)
            out += kept
    return out


def stubs(sources: dict[str, str]) -> dict[str, str]:
    """Module path -> stub text."""
    out = {}
    for path, text in sorted(sources.items()):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                tree = ast.parse(text)
        except SyntaxError:
            continue
        tree.body = stub_body(tree.body)
        out[path] = ast.unparse(ast.fix_missing_locations(tree)) + "\n"
    return out


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    for package, spec in PACKAGES.items():
        try:
            sources = pypi.read_members(package, spec["version"], re.compile(spec["files"]),
                                        Path.home() / ".cache" / "npulab" / "sources")
        except (pypi.OfflineError, pypi.NotOnIndex) as err:
            print(f"{package}: {err}", file=sys.stderr)
            return 2
        data = {"package": package, "version": spec["version"], "why": spec["why"],
                "generated_by": "scripts/extract_signature_stubs.py", "files": stubs(sources)}
        target = OUT / f"{package}-{spec['version']}.json"
        target.write_text(json.dumps(data, ensure_ascii=False, indent=0, sort_keys=True) + "\n", encoding="utf-8")
        print(f"{package} {spec['version']}: {len(data['files'])} modules, {target.stat().st_size // 1000} KB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
