#!/usr/bin/env python3
"""Regenerate npulab/data/op_plugin_checks.yaml: the checks the NPU kernels of torch_npu's fused operators make on
their scalar parameters, read from the public source of Ascend/op-plugin (``op_plugin/ops/opapi/*.cpp``) at the
commit that matches the pinned wheel (the branch whose ``op_plugin/python/meta/_meta_registrations.py`` is the
wheel's file, byte for byte).

Read in general, never operator by operator: in each function ``npu_x(…) { … }`` of those files, every
``TORCH_CHECK(condition, …)`` at the top level of the body, before any statement that may ``return`` (a branch that
returns first would make the check conditional), whose condition uses only the function's scalar parameters
(``int64_t``, ``double``, ``bool``, ``c10::string_view``) not assigned before it, number, string and boolean literals,
constants the file defines as literals, comparisons, ``&&``, ``||``, ``!`` and brackets. Each becomes a ``refused``
rule (``not (condition)`` in Python) for npulab.lint.relations.rule_problems, with the file, line and commit. A
function name defined more than once (one definition per torch version, under ``#if``) keeps the checks every
definition makes.

Usage: ``python scripts/extract_op_plugin_checks.py OP_PLUGIN_GIT_DIR REF`` (read with ``git show``).
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import yaml

OUT = Path(__file__).resolve().parents[1] / "npulab" / "data" / "op_plugin_checks.yaml"
FOLDER = "op_plugin/ops/opapi/"
REPOSITORY = "https://github.com/Ascend/op-plugin"
SCALARS = re.compile(r"^(?:const\s+)?(?:int64_t|double|bool|c10::string_view|std::string)\s*&?\s*(\w+)$")
_FUNCTION = re.compile(r"(?<![\w.:>])(npu_\w+)\s*\(")
_CONSTANT = re.compile(r"(?:constexpr|const)\s+(?:static\s+)?(?:int64_t|int|double|float|uint32_t|int32_t|size_t|"
                       r"uint64_t|auto)\s+(\w+)\s*=\s*(-?\d+(?:\.\d+)?)\s*;")
_TOKEN = re.compile(r'\s*(?:(\d+(?:\.\d+)?(?:[fFuUlL]*))|("(?:[^"\\]|\\.)*")|(==|!=|<=|>=|&&|\|\||[<>!()])|(\w+))')


def _git(git_dir: str, *args: str) -> str:
    return subprocess.run(["git", "--git-dir", git_dir, *args], check=True, capture_output=True, text=True).stdout


def _without_comments(text: str) -> str:
    """Comments blanked (their newlines kept, so lines still count), strings left as they are."""
    def blank(match: re.Match) -> str:
        found = match.group(0)
        return found if found.startswith('"') else re.sub(r"[^\n]", " ", found)
    return re.sub(r'"(?:[^"\\\n]|\\.)*"|//[^\n]*|/\*.*?\*/', blank, text, flags=re.DOTALL)


def _closing(text: str, start: int, opening: str, closing: str) -> int:
    """The index of the bracket that closes the one at ``start``; -1 if none."""
    depth = 0
    for index in range(start, len(text)):
        if text[index] == opening:
            depth += 1
        elif text[index] == closing:
            depth -= 1
            if depth == 0:
                return index
    return -1


def _split_top(text: str, templates: bool = False) -> list[str]:
    """``text`` split at its top-level commas (a template's ``<…>`` counts as a bracket where ``templates``)."""
    parts, depth, current = [], 0, []
    opening, closing = ("(<[{", ")>]}") if templates else ("([{", ")]}")
    for char in text:
        depth += char in opening
        depth -= char in closing
        separator = ","
        if char == separator and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
    return [*parts, "".join(current)]


def functions(text: str):
    """(name, {scalar parameter}, body, line of the body's ``{``) of each ``npu_…(…) {…}`` definition."""
    for match in _FUNCTION.finditer(text):
        close = _closing(text, match.end() - 1, "(", ")")
        after = re.match(r"\s*\{", text[close + 1:]) if close > 0 else None
        if after is None or text[:match.start()].rstrip().endswith(("return", "=", ",", "(")):
            continue
        brace = close + after.end()
        end = _closing(text, brace, "{", "}")
        if end < 0:
            continue
        scalars = {m.group(1) for p in _split_top(text[match.end():close], templates=True) if (m := SCALARS.match(p.strip()))}
        yield match.group(1), scalars, text[brace + 1:end], text.count("\n", 0, brace) + 1


def _statements(body: str):
    """(offset, text) of each top-level statement of a body (a block or braced statement counts as one)."""
    start, depth, index = 0, 0, 0
    while index < len(body):
        char = body[index]
        if char == '"':
            index = body.index('"', index + 1) if '"' in body[index + 1:] else len(body)
        elif char in "({[":
            depth += 1
        elif char in ")}]":
            depth -= 1
            if char == "}" and depth == 0 and not re.match(r"\s*(?:else|while|;|\))", body[index + 1:]):
                yield start, body[start:index + 1]
                start = index + 1
        elif char == ";" and depth == 0:
            yield start, body[start:index + 1]
            start = index + 1
        index += 1


def python_condition(condition: str, names: set[str], constants: dict[str, str]) -> str | None:
    """The C++ condition in Python when it uses only ``names``, literals, ``constants`` and the allowed operators."""
    out, position, condition = [], 0, condition.strip()
    while position < len(condition):
        match = _TOKEN.match(condition, position)
        if match is None:
            return None
        number, string, operator, word = match.groups()
        position = match.end()
        if number is not None:
            out.append(number.rstrip("fFuUlL"))
        elif string is not None:
            out.append(repr(ast.literal_eval(string)))
        elif operator is not None:
            out.append({"&&": " and ", "||": " or ", "!": " not "}.get(operator, f" {operator} "))
        elif word in names:
            out.append(word)
        elif word in constants:
            out.append(constants[word])
        elif word in ("true", "false"):
            out.append(word.capitalize())
        else:
            return None
    try:
        text = ast.unparse(ast.parse("".join(out).strip(), mode="eval"))
    except SyntaxError:
        return None
    return text if names & set(re.findall(r"\w+", text)) else None


def checks(text: str, path: str) -> list[tuple[str, int, str, str]]:
    """(function, line, C++ condition, Python condition) for each readable check of one file."""
    text = _without_comments(text)
    constants = {m.group(1): m.group(2) for m in _CONSTANT.finditer(text)}
    out = []
    for name, scalars, body, first_line in functions(text):
        names = set(scalars)
        for offset, statement in _statements(body):
            stripped = statement.strip()
            if re.search(r"\breturn\b|\bthrow\b", stripped):
                break
            for assigned in re.findall(r"\b(\w+)\s*(?:[-+*/|&]?=)(?!=)", stripped):
                names.discard(assigned)  # a parameter changed before a check is not the caller's value any more
            if not stripped.startswith("TORCH_CHECK("):
                continue
            inner = stripped[len("TORCH_CHECK("):stripped.rindex(")")]
            condition = _split_top(inner)[0]
            python = python_condition(condition, names, constants)
            if python is not None:
                line = first_line + body.count("\n", 0, offset + len(statement) - len(statement.lstrip()))
                out.append((name, line, re.sub(r"\s+", " ", condition.strip()), python))
    return out


def main(git_dir: str, ref: str) -> None:
    commit = _git(git_dir, "rev-parse", ref).strip()
    files = [p for p in _git(git_dir, "ls-tree", "-r", "--name-only", commit, FOLDER).split() if p.endswith(".cpp")]
    found: dict[str, list] = {}
    defined: dict[str, int] = {}
    for path in files:
        text = _git(git_dir, "show", f"{commit}:{path}")
        for name, *_ in functions(_without_comments(text)):
            defined[name] = defined.get(name, 0) + 1
        for name, line, condition, python in checks(text, path):
            found.setdefault(name, []).append((path, line, condition, python))
    rules = []
    for name in sorted(found):
        # a name defined more than once (one definition per torch version, under #if): the checks all of them make
        kept = {c[3]: c for c in found[name] if sum(d[3] == c[3] for d in found[name]) >= defined[name]}
        for path, line, condition, python in kept.values():
            url = f"{REPOSITORY}/blob/{commit}/{path}#L{line}"
            rules.append({"function": f"torch_npu.{name}", "refused": f"not ({python})",
                          "rule": f"op-plugin 的 NPU 实现要求 `{condition}`",
                          "rule_en": f"op-plugin's NPU implementation requires `{condition}`",
                          "source": f"{name}：{url}", "source_en": f"{name}: {url}"})  # the URL last: no mark glued to it
    header = (f"# Generated by scripts/extract_op_plugin_checks.py from {REPOSITORY} at {commit} ({ref}):\n"
              "# the TORCH_CHECKs on scalar parameters of op_plugin/ops/opapi/*.cpp, as refused rules\n"
              "# (npulab.lint.relations.rule_problems). Do not edit by hand.\n")
    OUT.write_text(header + yaml.safe_dump({"commit": commit, "rules": rules}, allow_unicode=True, sort_keys=False,
                                           width=120), encoding="utf-8")
    print(f"{len(rules)} rules for {len({r['function'] for r in rules})} operators -> {OUT}")


if __name__ == "__main__":
    main(*sys.argv[1:3])
