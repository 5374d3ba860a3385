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

One step further (round 26): a call at the body's top level (before any ``return``, or in the ``return`` itself) to a
function defined in op-plugin at the same commit — in the same file, else in ``op_plugin/utils`` — is followed once.
Its parameters are bound to the caller's arguments where an argument is a scalar parameter of the operator (also
through ``std::string(p)``, ``static_cast<T>(p)`` or a local initialised so and never assigned again), a literal or
a file constant; the callee's top-level checks on bound parameters, under the same restrictions, become the
operator's rules in the caller's names, citing the callee's check and the call. Only the operators
``op_plugin/config/op_plugin_functions.yaml`` declares are kept, a ``…_symint`` kernel under its schema's name.

Usage: ``python scripts/extract_op_plugin_checks.py OP_PLUGIN_GIT_DIR REF`` (read with ``git show``).
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import yaml

OUT = Path(__file__).resolve().parents[1] / "npulab" / "data" / "op_plugin_checks.yaml"
FOLDER = "op_plugin/ops/opapi/"
HELPERS = "op_plugin/utils/"
SCHEMAS = "op_plugin/config/op_plugin_functions.yaml"
REPOSITORY = "https://github.com/Ascend/op-plugin"
SCALARS = re.compile(r"^(?:const\s+)?(?:int64_t|double|bool|c10::string_view|std::string)\s*&?\s*(\w+)$")
_FUNCTION = re.compile(r"(?<![\w.:>])([A-Za-z_]\w*)\s*\(")
_CALL = re.compile(r"(?<![\w.>])(?:\w+::)*([A-Za-z_]\w*)\s*\(")
_KEYWORDS = {"if", "for", "while", "switch", "catch", "return", "sizeof", "decltype", "defined", "alignof"}
_CONVERSION = re.compile(r"(?:std::string|c10::string_view|std::string_view|static_cast<[\w:\s]+>)\s*\((.*)\)$",
                         re.DOTALL)
_ALIAS = re.compile(r"(?:const\s+)?(?:std::string|c10::string_view|auto|int64_t|int|double|bool)\s*&?\s*(\w+)\s*=(?!=)"
                    r"\s*(.+);$", re.DOTALL)
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


@dataclass
class Definition:
    """One function definition of a file: its name, its parameters in order, the scalar ones, its body."""
    name: str
    parameters: list[str]
    scalars: set[str]
    body: str
    line: int  # of the body's ``{``


def _parameter_name(declaration: str) -> str:
    return (re.findall(r"(\w+)\s*(?:\[\s*\])?$", declaration.split("=")[0].strip()) or [""])[0]


def definitions(text: str):
    """Each function definition ``… name(…) {…}`` of a (comment-free) file, outside other definitions' bodies."""
    position = 0
    while (match := _FUNCTION.search(text, position)) is not None:
        position = match.end()
        close = _closing(text, match.end() - 1, "(", ")")
        after = re.match(r"\s*(?:const\s*)?(?:override\s*)?\{", text[close + 1:]) if close > 0 else None
        if after is None or match.group(1) in _KEYWORDS or \
                text[:match.start()].rstrip().endswith(("return", "=", ",", "(", "&&", "||", "!")):
            continue
        brace = close + after.end()
        end = _closing(text, brace, "{", "}")
        if end < 0:
            continue
        declared = [d.strip() for d in _split_top(text[match.end():close], templates=True) if d.strip()]
        scalars = {m.group(1) for d in declared if (m := SCALARS.match(d.split("=")[0].strip()))}
        yield Definition(match.group(1), [_parameter_name(d) for d in declared], scalars, text[brace + 1:end],
                         text.count("\n", 0, brace) + 1)
        position = end + 1


def functions(text: str):
    """(name, {scalar parameter}, body, line of the body's ``{``) of each ``npu_…(…) {…}`` definition."""
    for found in definitions(text):
        if found.name.startswith("npu_"):
            yield found.name, found.scalars, found.body, found.line


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
            ends_block = char == "}" and not re.match(r"\s*(?:else|while|;|\))", body[index + 1:])
            # a macro's statement its writer ended without ``;`` (``TORCH_CHECK(…)`` expands to a block)
            ends_macro = char == ")" and re.match(r"\s*[A-Z][A-Z0-9_]*\(", body[start:]) and \
                not re.match(r"\s*;", body[index + 1:])
            if depth == 0 and (ends_block or ends_macro):
                yield start, body[start:index + 1]
                start = index + 1
        elif char == ";" and depth == 0:
            yield start, body[start:index + 1]
            start = index + 1
        index += 1


def python_condition(condition: str, names: set[str] | dict[str, str], constants: dict[str, str]) -> str | None:
    """The C++ condition in Python when it uses only ``names`` (each written as ``names[name]`` where a dict: the
    caller's parameter or a literal a call binds it to), literals, ``constants`` and the allowed operators; None too
    when it reads no parameter."""
    names = names if isinstance(names, dict) else {name: name for name in names}
    out, position, condition, read = [], 0, condition.strip(), False
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
            out.append(f"({names[word]})" if names[word] != word else word)
            read = read or names[word].isidentifier() and names[word] not in ("True", "False")
        elif word in constants:
            out.append(constants[word])
        elif word in ("true", "false"):
            out.append(word.capitalize())
        else:
            return None
    try:
        return ast.unparse(ast.parse("".join(out).strip(), mode="eval")) if read else None
    except SyntaxError:
        return None


@dataclass
class Check:
    """A readable check of an operator: where it stands, its C++ condition, the same in the operator's parameters
    (Python), what each name it reads stands for where that is not the name itself (a copy of a parameter, a
    callee's parameter bound to the operator's or to a literal); for a check read in a function the operator calls,
    that function and the call's line."""
    function: str
    path: str
    line: int
    condition: str
    python: str
    bound: dict[str, str]
    callee: str | None = None
    call_line: int | None = None


def _line(first_line: int, body: str, offset: int, statement: str) -> int:
    return first_line + body.count("\n", 0, offset + len(statement) - len(statement.lstrip()))


def _argument(argument: str, names: dict[str, str], constants: dict[str, str]) -> str | None:
    """What a call's argument is in the caller's terms: a parameter (or a copy of one), a literal, a constant."""
    argument = argument.strip()
    while (conversion := _CONVERSION.fullmatch(argument)) is not None:
        argument = conversion.group(1).strip()
    if argument in names:
        return names[argument]
    if argument in constants:
        return constants[argument]
    token = _TOKEN.fullmatch(argument)
    if token is None or token.group(3):
        return None
    number, string, _, word = token.groups()
    return number.rstrip("fFuUlL") if number else repr(ast.literal_eval(string)) if string else \
        {"true": "True", "false": "False"}.get(word)


def _calls(statement: str):
    """(name, [argument], offset) of each call a top-level statement always makes (none in a branch, a loop, a
    lambda's body or after ``?``, ``&&``, ``||``)."""
    if re.match(r"(?:if|for|while|switch|do|try|else|case)\b|\{", statement):
        return
    plain = re.sub(r'"(?:[^"\\]|\\.)*"', lambda m: " " * len(m.group(0)), statement)
    for match in _CALL.finditer(plain):
        before = plain[:match.start()]
        if before.count("{") != before.count("}") or re.search(r"\?|&&|\|\|", before):
            continue
        close = _closing(plain, match.end() - 1, "(", ")")
        if close > 0:
            inside = statement[match.end():close]
            yield match.group(1), [a for a in _split_top(inside, templates=False) if a.strip()], match.start()


_READ_BEFORE = re.compile(r"(?:[=!<>]=|[(,<>?=!]|&&|\|\||(?<![-+])[-+*/%]|\breturn)\s*$|^\s*$")
_READ_AFTER = re.compile(r"\s*(?:[=!<>]=|<(?!<)|>(?!>)|[,);\]?:]|&&|\|\||[-+*/%](?![-+=])|"
                         r"\.(?:size|empty|c_str|length|data)\(\)|$)")


def _only_read(name: str, statement: str) -> bool:
    """Whether every place a statement names ``name`` only reads its value: compared, counted, handed on whole,
    computed with; not indexed, iterated by reference, incremented, its address or a member function taken."""
    plain = re.sub(r'"(?:[^"\\]|\\.)*"', '""', statement)
    for match in re.finditer(rf"(?<![\w.:>]){re.escape(name)}\b", plain):
        if not (_READ_BEFORE.search(plain[:match.start()]) and _READ_AFTER.match(plain, match.end())):
            return False
    return True


def _body_checks(body: str, first_line: int, names: dict[str, str], constants: dict[str, str], on_call=None):
    """(line, C++ condition, Python condition, {name the condition reads: what it stands for, where not itself}) of
    each top-level check of a body on ``names`` before anything that may return or throw; ``on_call(name, arguments, line, names)`` sees each call such a statement makes (a
    ``return`` statement's too), with the names still the caller's then (parameters and their copies)."""
    names = dict(names)
    for offset, statement in _statements(body):
        stripped = statement.strip()
        for assigned in re.findall(r"\b(\w+)\s*(?:[-+*/|&]?=)(?!=)", stripped):
            names.pop(assigned, None)  # a parameter changed before a check is not the caller's value any more
        for name in [n for n in names if not _only_read(n, stripped)]:
            names.pop(name)  # a reference to it taken (``for (auto &c : layout_str) { c = toupper(c); }``), …
        if on_call is not None:
            for name, arguments, at in _calls(stripped):
                on_call(name, arguments, _line(first_line, body, offset, statement) + stripped.count("\n", 0, at),
                        names)
        if re.match(r"return\b", stripped) or re.search(r"\breturn\b|\bthrow\b", stripped):
            return
        alias = _ALIAS.fullmatch(stripped)
        if alias is not None and (copied := _argument(alias.group(2), names, {})) is not None and \
                copied.isidentifier():
            names[alias.group(1)] = copied  # a copy of a parameter (``std::string s = std::string(layout)``)
        condition = _split_top(stripped[len("TORCH_CHECK("):stripped.rindex(")")])[0] \
            if stripped.startswith("TORCH_CHECK(") else None
        python = python_condition(condition, names, constants) if condition is not None else None
        if python is not None:
            shown = {w: names[w] for w in re.findall(r"\w+", condition) if names.get(w, w) != w}
            yield _line(first_line, body, offset, statement), re.sub(r"\s+", " ", condition.strip()), python, shown


def _constants(text: str) -> dict[str, str]:
    return {m.group(1): m.group(2) for m in _CONSTANT.finditer(text)}


def checks(text: str, path: str, helpers: dict[str, list[tuple[str, Definition, dict[str, str]]]] | None = None
           ) -> list[Check]:
    """Each readable check of one file's operators, and of the functions they call where ``helpers`` (name →
    (path, definition, constants) of ``op_plugin/utils``) or the file defines them."""
    text = _without_comments(text)
    constants = _constants(text)
    local: dict[str, list] = {}
    for found in definitions(text):
        local.setdefault(found.name, []).append((path, found, constants))
    out: list[Check] = []
    for caller in (d for copies in local.values() for _, d, _ in copies if d.name.startswith("npu_")):

        def follow(name: str, arguments: list[str], call_line: int, names: dict[str, str], caller=caller) -> None:
            copies = [c for c in local.get(name) or (helpers or {}).get(name, [])
                      if c[1] is not caller and len(arguments) <= len(c[1].parameters)]
            found: list[list[Check]] = []
            for where, callee, callee_constants in copies:
                bound = {p: v for p, a in zip(callee.parameters, arguments, strict=False)
                         if (v := _argument(a, names, constants)) is not None}
                found.append([Check(caller.name, where, line, condition, python, shown, callee.name, call_line)
                              for line, condition, python, shown in _body_checks(callee.body, callee.line, bound,
                                                                                 callee_constants)])
            if found:  # a function defined more than once: what every copy checks
                out.extend(c for c in found[0] if all(any(o.python == c.python for o in f) for f in found))

        names = {n: n for n in caller.scalars}
        for line, condition, python, shown in _body_checks(caller.body, caller.line, names, constants, follow):
            out.append(Check(caller.name, path, line, condition, python, shown))
    return out


def _files(git_dir: str, commit: str, folder: str, endings: tuple[str, ...]) -> list[str]:
    return [p for p in _git(git_dir, "ls-tree", "-r", "--name-only", commit, folder).split() if p.endswith(endings)]


def helper_definitions(git_dir: str, commit: str) -> dict[str, list[tuple[str, Definition, dict[str, str]]]]:
    """name → (path, definition, the file's constants) of every function ``op_plugin/utils`` defines."""
    out: dict[str, list] = {}
    for path in _files(git_dir, commit, HELPERS, (".cpp", ".h")):
        text = _without_comments(_git(git_dir, "show", f"{commit}:{path}"))
        constants = _constants(text)
        for found in definitions(text):
            out.setdefault(found.name, []).append((path, found, constants))
    return out


def _rule(check: Check, public: str, commit: str) -> dict:
    url = f"{REPOSITORY}/blob/{commit}/{check.path}#L{check.line}"
    bound = "".join(f"，`{p}` 即 `{v}`" for p, v in check.bound.items())
    bound_en = "".join(f", `{p}` is `{v}`" for p, v in check.bound.items())
    rule = {"function": f"torch_npu.{public}", "refused": f"not ({check.python})"}
    if check.callee is None:
        return {**rule, "rule": f"op-plugin 的 NPU 实现要求 `{check.condition}`" + (f"，其中 {bound[1:]}" if bound else ""),
                "rule_en": f"op-plugin's NPU implementation requires `{check.condition}`" +
                           (f", where{bound_en[1:]}" if bound else ""),
                "source": f"{check.function}：{url}", "source_en": f"{check.function}: {url}"}  # the URL last
    return {**rule, "rule": f"op-plugin 的 NPU 实现在它调用的 `{check.callee}` 中要求 `{check.condition}`" +
                            (f"，其中 {bound[1:]}" if bound else ""),
            "rule_en": f"op-plugin's NPU implementation requires `{check.condition}` in the `{check.callee}` it "
                       "calls" + (f", where{bound_en[1:]}" if bound else ""),
            "source": f"{check.callee}（由 {check.function} 在第 {check.call_line} 行调用）：{url}",
            "source_en": f"{check.callee}, called by {check.function} at line {check.call_line}: {url}"}


def public_names(git_dir: str, commit: str) -> set[str]:
    """The operators ``op_plugin/config/op_plugin_functions.yaml`` declares (``func: name(…)``, any overload)."""
    text = _git(git_dir, "show", f"{commit}:{SCHEMAS}")
    return set(re.findall(r"^\s*-?\s*func:\s*(\w+)", text, flags=re.MULTILINE))


def _public(name: str, declared: set[str]) -> str | None:
    """The operator a kernel implements: its own name, or without the ``_symint`` op-plugin's code generator appends
    for a schema with SymInt arguments (torchnpugen/gen.py at the same commit, ``op_name += "_symint"``)."""
    return name if name in declared else name.removesuffix("_symint") if name.removesuffix("_symint") in declared \
        else None


def main(git_dir: str, ref: str) -> None:
    commit = _git(git_dir, "rev-parse", ref).strip()
    helpers = helper_definitions(git_dir, commit)
    found: dict[str, list[Check]] = {}
    defined: dict[str, int] = {}
    for path in _files(git_dir, commit, FOLDER, (".cpp",)):
        text = _git(git_dir, "show", f"{commit}:{path}")
        for name, *_ in functions(_without_comments(text)):
            defined[name] = defined.get(name, 0) + 1
        for check in checks(text, path, helpers):
            found.setdefault(check.function, []).append(check)
    declared = public_names(git_dir, commit)
    rules: dict[tuple[str, str], dict] = {}
    for name in sorted(found, key=lambda n: (n.removesuffix("_symint"), n)):
        if (public := _public(name, declared)) is None:
            continue  # a kernel no schema declares (``npu_fusion_attention_common``): a helper, not an operator
        # a name defined more than once (one definition per torch version, under #if): the checks all of them make
        kept = {c.python: c for c in found[name] if sum(d.python == c.python for d in found[name]) >= defined[name]}
        for check in kept.values():
            rules.setdefault((public, check.python), _rule(check, public, commit))
    rules = list(rules.values())
    header = (f"# Generated by scripts/extract_op_plugin_checks.py from {REPOSITORY} at {commit} ({ref}):\n"
              "# the TORCH_CHECKs on scalar parameters of op_plugin/ops/opapi/*.cpp and of the op-plugin functions\n"
              "# they call, as refused rules (npulab.lint.relations.rule_problems). Do not edit by hand.\n")
    OUT.write_text(header + yaml.safe_dump({"commit": commit, "rules": rules}, allow_unicode=True, sort_keys=False,
                                           width=120), encoding="utf-8")
    print(f"{len(rules)} rules for {len({r['function'] for r in rules})} operators -> {OUT}")


if __name__ == "__main__":
    main(*sys.argv[1:3])
