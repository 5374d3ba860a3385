"""lint-npu, one notebook: every ``npu`` cell parses, every torch_npu name it uses exists in the pinned wheel, it is
a leaf (no later non-npu cell reads a name only npu cells define), it says what it would print, and — with a
:class:`~npulab.lint.context.Context` — its calls, environment variables, command lines and features are
checked (see the package docstring)."""

from __future__ import annotations

import ast
import difflib
import re
import warnings
from collections.abc import Callable
from dataclasses import dataclass

from npulab.core.i18n import localized, t
from npulab.core.notebook_cells import cell_source, code_cells, is_npu_cell, python_source
from npulab.core.words import code, guess_end, joined
from npulab.env import env_values, env_vars, value_grammar
from npulab.lint import (
    calls,
    command_flags,
    compile_backends,
    compile_options,
    cpu_values,
    deprecated_calls,
    devices,
    distributed,
    engine_args,
    expected_output,
    features,
    hf_configs,
    meta_run,
    ms_log_config,
    ms_run,
    op_meta,
    op_ranks,
    options,
    triton_run,
)
from npulab.lint.context import Context
from npulab.lint.signatures import SourceTree
from npulab.pytorch.torch_npu_names import PACKAGE, TOP_LEVEL, SymbolIndex, dotted_parts

STANDARD = {"torch": "torch", PACKAGE: PACKAGE, **TOP_LEVEL}  # what these names mean before any import
# the same for the call checks, with MindSpore's conventional alias (a cell that binds the name otherwise drops it)
CONVENTIONAL = {"torch": "torch", PACKAGE: PACKAGE, "mindspore": "mindspore", "ms": "mindspore"}


@dataclass
class Finding:
    """One problem in one cell; ``cell`` counts code cells from 1, as the notebook does."""

    path: str
    cell: int
    cell_id: str | None
    kind: str  # "unknown-name", "call-signature", "argument-value", "syntax-error", "leaf", "bare-npu", "cli-flag" …
    name: str
    message: str


# --- cells -------------------------------------------------------------------------------------------


def _parse(source: str) -> ast.Module | None:
    """The AST of a cell (SyntaxError when it does not parse); None for a non-Python cell."""
    code = python_source(source)
    if code is None:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # invalid escapes etc. are not this tool's business
        return ast.parse(code)


def _symbols(source: str):
    import symtable

    code = python_source(source)
    if code is None:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return symtable.symtable(code, "<cell>", "exec")


def _descendants(table) -> list:
    return [t for child in table.get_children() for t in (child, *_descendants(child))]


def defined_names(source: str) -> set[str]:
    """Names a cell binds in the notebook's namespace (assignments, imports, def/class, ``global``)."""
    table = _symbols(source)
    if table is None:
        return set()
    names = {s.get_name() for s in table.get_symbols() if s.is_assigned() or s.is_imported()}
    for scope in _descendants(table):
        names |= {s.get_name() for s in scope.get_symbols() if s.is_declared_global() and s.is_assigned()}
    return names


def used_names(source: str) -> set[str]:
    """Global names a cell reads, at top level or inside its functions (names it binds itself included)."""
    table = _symbols(source)
    if table is None:
        return set()
    names = {s.get_name() for s in table.get_symbols() if s.is_referenced()}
    for scope in _descendants(table):
        names |= {s.get_name() for s in scope.get_symbols() if s.is_global() and s.is_referenced()}
    tree = _parse(source)
    names |= {n.target.id for n in tree.body if isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name)}
    if "get_ipython" not in source:
        names.discard("get_ipython")  # introduced by the magics' transformation
    return names


# --- checks ------------------------------------------------------------------------------------------


# names an IPython kernel provides without a definition in any cell
_IPYTHON_NAMES = {"display", "get_ipython", "In", "Out", "exit", "quit", "_", "__", "___", "_ih", "_oh", "_dh"}
# a notebook that binds names no cell spells out: undefined names are not checked in it
_DYNAMIC = re.compile(r"import\s+\*|^\s*%(run|load|store)\b|\bexec\(|globals\(\)\[|\bvars\(\)\[", re.MULTILINE)


def check_undefined(nb: dict, path: str = "") -> list[Finding]:
    """Names an npu cell reads that no code cell of the notebook defines (nor Python or IPython) and that are a near
    spelling of a defined name (``get_rnak()`` beside ``get_rank``): a NameError on the NPU. Other undefined names
    are left alone (a snippet's placeholders; ``torch`` / ``torch_npu`` used without an import, as the name checks
    above read them)."""
    import builtins

    cells = [(number, cell, cell_source(cell)) for number, cell in code_cells(nb)]
    if any(_DYNAMIC.search(source) for _, _, source in cells):
        return []
    known = set(dir(builtins)) | _IPYTHON_NAMES
    defined: set[str] = set()
    for _, _, source in cells:
        try:
            defined |= defined_names(source)
        except SyntaxError:
            return []  # a cell that does not parse may define anything (its syntax error is reported)
    findings = []
    for number, cell, source in cells:
        if not is_npu_cell(cell):
            continue
        try:
            used = used_names(source)
        except SyntaxError:
            continue
        for name in sorted(used - defined - known - set(STANDARD)):
            guess = difflib.get_close_matches(name, sorted(defined | known), n=2, cutoff=0.8)
            if guess:
                findings.append(Finding(path, number, cell.get("id"), "undefined-name", name,
                                        t("lint.notebook.undefined", name=name, guesses=code(guess))))
    return findings


def check_leaves(nb: dict, path: str = "") -> list[Finding]:
    """Non-npu cells after an npu cell that read a name only npu cells define."""
    cells = []
    for number, cell in code_cells(nb):
        try:
            cells.append((number, cell, defined_names(cell_source(cell)), used_names(cell_source(cell))))
        except SyntaxError:
            cells.append((number, cell, set(), set()))
    plain = set().union(*(defined for _, cell, defined, _ in cells if not is_npu_cell(cell)))
    findings, npu_only = [], {}  # name -> number of the npu cell that defined it first
    for number, cell, defined, used in cells:
        if is_npu_cell(cell):
            for name in sorted(defined - plain):
                npu_only.setdefault(name, number)
            continue
        for name in sorted(used & npu_only.keys()):
            findings.append(Finding(path, number, cell.get("id"), "leaf", name,
                                    t("lint.notebook.leaf", name=name, cell=npu_only[name])))
    return findings


def check_notebook(nb: dict, index: Callable[[], SymbolIndex], path: str = "",
                   context: Context | None = None) -> tuple[list[Finding], int]:
    """Syntax, torch_npu names and leaves of one notebook — and, with a ``context``, call signatures, environment
    variables, command-line flags and features by release; returns (findings, npu cells checked).

    ``index`` is called only when a cell names something in torch_npu, so plain notebooks need no wheel.
    """
    findings: list[Finding] = []
    aliases = dict(STANDARD)  # name -> the torch_npu path it stands for ("torch" for torch itself)
    imported = dict(CONVENTIONAL)  # name -> dotted module path, for the signature checks
    checked = 0
    env_before: set[str] = set()  # the variables earlier code cells set (_deep_checks adds each cell's)
    for number, cell in code_cells(nb):
        npu = is_npu_cell(cell)
        checked += npu
        source = cell_source(cell)
        try:
            tree = _parse(source)
        except SyntaxError as err:
            if npu:
                findings.append(Finding(path, number, cell.get("id"), "syntax-error", "",
                                        t("lint.notebook.syntax", line=err.lineno, error=err.msg)))
            continue
        if tree is not None:
            names = list(_imports(tree, aliases))  # consumed for every cell: imports anywhere set the aliases
            calls.update_aliases(tree, imported)
            if npu:
                seen = set()
                for line, written, dotted in sorted(names + _chains(tree, aliases)):
                    if written not in seen:  # one finding per name and cell
                        seen.add(written)
                        findings += _check_name(index, line, written, dotted, path, number, cell)
        if context is not None:
            findings += _deep_checks(context, cell, number, source, tree, imported, npu, path, env_before)
    if context is not None:
        findings += _markdown_checks(context, nb, path)
    findings += [Finding(path, n, cid, "bare-npu", "%%npu", m) for n, cid, m in expected_output.problems(nb)]
    findings += check_undefined(nb, path)
    return sorted(findings + check_leaves(nb, path), key=lambda f: f.cell), checked


def _deep_checks(context: Context, cell: dict, number: int, source: str, tree: ast.Module | None,
                 imported: dict[str, str], npu: bool, path: str, env_before: set[str]) -> list[Finding]:
    """Signatures, environment variables, command lines and features of one code cell (``env_before``: the variables
    earlier cells set; this cell's are added)."""
    out: list[Finding] = []

    def add(kind: str, name: str, message: str) -> None:
        out.append(Finding(path, number, cell.get("id"), kind, name, message))

    stack = features.cell_stack(source)
    if npu and not stack and (needs := features.stack_hint(source)):
        context.unnamed_stacks.append((path, number, cell.get("id"), needs))
    if stack and stack not in features.stacks():
        add("unknown-stack", stack, t("lint.notebook.unknown_stack", stack=stack, stacks=joined(features.stacks())))
        stack = None
    targets = features.targets(stack) if stack else context.course_targets()
    env_set: dict[str, list[str]] = {}
    uses = env_vars.python_uses(tree) if tree is not None else []
    magic_values: dict[str, str] = {}
    for line_number, line in enumerate(source.splitlines(), start=1):  # %env X=1 / %set_env X 1 (any code cell)
        found = re.match(r"^\s*%(?:env|set_env)\s+([A-Za-z_][A-Za-z0-9_]*)(?:[=\s]\s*(\S+))?", line)
        if found:
            uses.append(env_vars.EnvUse(line_number, found.group(1), "magic"))
            magic_values[found.group(1)] = (found.group(2) or "").strip("'\"")
    commands = command_flags.shell_lines(source, tree) if npu else []
    for line, text in commands:
        uses += [env_vars.EnvUse(line, u.name, "shell") for u in env_vars.text_uses(text, "shell")]
    for use in uses:
        env_set.setdefault(use.name, [])
    for name, value in magic_values.items():
        env_set[name].append(value)
    for _line, text in commands:
        for match in re.finditer(r"\b([A-Z][A-Z0-9_]+)=(\S+)", text):
            env_set.setdefault(match.group(1), []).append(match.group(2).strip("'\""))
    if tree is not None:
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Subscript) \
                    and isinstance(node.value, ast.Constant) and isinstance(node.targets[0].slice, ast.Constant):
                env_set.setdefault(str(node.targets[0].slice.value), []).append(str(node.value.value))
    if npu or uses:
        seen = set()
        for use in uses:
            if use.name in seen:
                continue
            seen.add(use.name)
            problem = context.env().problem(use.name, context.torch_npu_version)
            if problem:
                add("env-unknown", use.name, t("lint.at_line", line=use.line, message=problem))
    settings = (env_values.python_settings(tree) if tree is not None else []) + env_values.magic_settings(source) \
        + env_values.shell_settings(commands)
    for setting in dict.fromkeys(s for s in settings if s.python_type != "str"):
        add("env-value", setting.name, env_values.type_message(setting))
    for setting, why, where in _value_problems(context, [s for s in settings if s.python_type == "str"]):
        add("env-value", setting.name, env_values.message(setting, why, where))
    if tree is not None:  # MindSpore's own reader of its log variables
        for _line, name, message in ms_log_config.findings(settings, tree):
            add("env-value", name, message)
    grammars = context.env().data.get("values", {})
    for setting, other, spec in env_values.unmet_requirements([s for s in settings if s.python_type == "str"], grammars,
                                                              env_before):
        add("env-value", setting.name, env_values.requirement_message(setting, other, spec,
                                                                           spec.get("requires_source") or localized(spec, "source")))
    env_before |= {s.name for s in settings} | {name for name, values in env_set.items() if values}
    if npu and tree is not None:
        found, unchecked = calls.findings_for_cell(tree, imported, context.sources)
        context.unchecked |= unchecked
        for problem in found:
            add(problem.kind, problem.written, problem.message)
        if meta_run.calls_into("torch", tree, imported):  # torch's own word that a callable is deprecated
            for _line, written, message in deprecated_calls.findings(tree, imported):
                add("call-signature", written, message)
        for _line, written, message in (devices.findings(tree, imported) + distributed.findings(tree, imported, context.sources)
                                        + compile_backends.findings(tree, imported, context.sources)
                                        + compile_options.findings(tree, imported, context.sources)):
            add("argument-value", written, message)
        for _line, written, kind, message in hf_configs.findings(tree, imported):
            add(kind, written, message)
        if any(v.split(".")[0] == "vllm" for v in imported.values()):
            for _line, written, message in engine_args.findings(tree, imported, context.tables()):
                add("argument-value", written, message)
        flagged = {problem.line for problem in found}
        npu_tree = context.sources("torch_npu") if meta_run.calls_into("torch_npu", tree, imported) else None
        npu_check = _npu_check(npu_tree) if isinstance(npu_tree, SourceTree) else None
        for line, written, message in (meta_run.findings(tree, imported, npu_check, cpu_values.Interpreter) + ms_run.findings(tree, imported)
                                      + triton_run.findings(tree, imported, python_source(source))):
            if line not in flagged:  # torch's, MindSpore's and Triton's own checks, where no other reading spoke on the line
                add("shape-check", written, message)
        if any(v.split(".")[0] in ("torchair", "torch_npu") for v in imported.values()) and "Config" in source:
            tree_npu = context.sources("torch_npu")
            for _line, written, kind, message in options.findings(tree, imported, tree_npu):
                add(kind, written, message)
    for problem in command_flags.check_text(commands, context.tables()):
        add("cli-flag", problem.command, t("lint.at_line", line=problem.line, message=problem.message))
    if npu:
        for _, feature in features.code_uses(tree, env_set, source):
            version = targets.get(feature["package"])
            if features.outside(feature, version):
                add("feature-version", feature["name"], features.message(feature, version))
    return out


def _npu_check(tree: SourceTree):
    """torch_npu's calls judged by the operators' documented limits (npulab.lint.op_ranks), then by the meta
    functions the wheel registers for them (npulab.lint.op_meta): the first that refuses speaks."""
    checks = (op_ranks.refusal(tree), op_meta.refusal(tree))
    return lambda name, args, kwargs: next((said for check in checks if (said := check(name, args, kwargs))), None)


def _value_problems(context: Context, settings: list[env_values.Setting]):
    """(setting, why, source) of each literal value its variable's documented grammar refuses."""
    grammars = context.env().data.get("values", {})
    for setting in dict.fromkeys(settings):
        spec = grammars.get(setting.name)
        if spec and env_values.checkable(setting.value) and (why := value_grammar.problem(setting.value, spec)):
            yield setting, why, localized(spec, "source")


def _markdown_checks(context: Context, nb: dict, path: str) -> list[Finding]:
    """Lessons' shell blocks (flags, variables) and features named without their "since"."""
    out: list[Finding] = []
    course = context.course_targets()
    for index, cell in enumerate(nb.get("cells", []), start=1):
        if not isinstance(cell, dict) or cell.get("cell_type") != "markdown":
            continue
        text = cell_source(cell)
        where = t("lint.notebook.markdown_cell", index=index)
        blocks = command_flags.markdown_shell_blocks(text)
        for problem in command_flags.check_text(blocks, context.tables()):
            out.append(Finding(path, 0, cell.get("id"), "cli-flag", problem.command, where + t("lint.at_line", line=problem.line, message=problem.message)))
        for setting, why, source in _value_problems(context, env_values.shell_settings(blocks)):
            out.append(Finding(path, 0, cell.get("id"), "env-value", setting.name,
                               where + env_values.message(setting, why, source)))
        seen = set()
        for use in env_vars.text_uses(text, "markdown"):
            if use.name not in seen:
                seen.add(use.name)
                problem = context.env().problem(use.name, context.torch_npu_version)
                if problem:
                    out.append(Finding(path, 0, cell.get("id"), "env-unknown", use.name, where + t("lint.at_line", line=use.line, message=problem)))
        for feature in features.unstated_since(text, course):
            out.append(Finding(path, 0, cell.get("id"), "since-unstated", feature["name"], t(
                "lint.notebook.since_unstated", index=index, name=feature["name"],
                since=localized(feature, "since_text"), source=localized(feature, "source"))))
    return out


def _canonical(parts: list[str], aliases: dict[str, str]) -> list[str] | None:
    """``torch.npu.x`` -> torch_npu.npu.x, ``tnp.x`` -> torch_npu.x; None when not about torch_npu."""
    root = aliases.get(parts[0])
    if root == "torch":
        return [PACKAGE, *parts[1:]] if len(parts) > 1 and parts[1] == "npu" else None
    return [*root.split("."), *parts[1:]] if root else None


def _imports(tree: ast.Module, aliases: dict[str, str]):
    """Update ``aliases`` from a cell's imports; yield (line, written, torch_npu path) of each imported name."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                dotted = _canonical(parts, STANDARD)
                if dotted and len(dotted) > 1:
                    yield node.lineno, alias.name, dotted
                if alias.asname:  # import torch_npu.profiler as prof, import torch as th
                    target = ".".join(dotted) if dotted else STANDARD.get(alias.name)
                    _rebind(aliases, alias.asname, target)
                else:  # import torch_npu.profiler binds torch_npu
                    _rebind(aliases, parts[0], STANDARD.get(parts[0]))
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            for alias in node.names:
                if alias.name == "*":
                    continue
                written = f"{node.module}.{alias.name}"
                dotted = _canonical(written.split("."), STANDARD)  # from torch import npu, from torch_npu.npu import amp
                if dotted:
                    yield node.lineno, written, dotted
                _rebind(aliases, alias.asname or alias.name, ".".join(dotted) if dotted else None)


def _rebind(aliases: dict[str, str], name: str, target: str | None) -> None:
    if target:
        aliases[name] = target
    else:
        aliases.pop(name, None)


def _chains(tree: ast.Module, aliases: dict[str, str]) -> list[tuple[int, str, list[str]]]:
    """(line, written, torch_npu path) of each attribute chain on a torch_npu alias."""
    chains, stack = [], [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Attribute) and (parts := dotted_parts(node)):
            if not isinstance(node.ctx, ast.Load):
                parts = parts[:-1]  # setting an attribute may create it: check where it is set
            dotted = _canonical(parts, aliases)
            if dotted and len(dotted) > 1:
                chains.append((node.lineno, ".".join(parts), dotted))
            continue  # the inner attributes are prefixes of this chain
        stack.extend(ast.iter_child_nodes(node))
    return chains


def _public(dotted: str) -> str:
    """``torch_npu.dynamo.torchair.x`` as a learner imports it: ``torchair.x``."""
    for name, path in TOP_LEVEL.items():
        if dotted == path or dotted.startswith(path + "."):
            return name + dotted[len(path):]
    return dotted


def _check_name(index: Callable[[], SymbolIndex], line: int, written: str, dotted: list[str], path: str,
                number: int, cell: dict) -> list[Finding]:
    """A finding when the torch_npu path ``dotted`` (``written`` in the cell) does not exist."""
    missing = index().missing(".".join(dotted))
    if missing is None:
        return []
    shown = written.split(".")
    cut = len(shown) - len(dotted) + len(missing.prefix.split("."))  # where the missing part sits in `written`
    if cut <= 0:
        return []  # the missing part is in an imported alias: its import line reports it
    shown_prefix = ".".join(shown[:cut])
    where = t("lint.paren", text=f"`{shown_prefix}`", inner=missing.prefix) if shown_prefix != missing.prefix \
        else f"`{shown_prefix}`"
    guesses = code(f"{shown_prefix}.{s}" for s in missing.suggestions)
    homes = [_public(h) for h in index().elsewhere(missing.name) if not h.startswith(missing.prefix + ".")] \
        if not missing.name.startswith("_") else []
    message = (t("lint.name.unknown", line=line, written=written, version=index().version, where=where,
                 name=missing.name)
               + (t("lint.name.home", homes=code(homes)) if homes else "")
               + guess_end(guesses if not homes else None))
    return [Finding(path, number, cell.get("id"), "unknown-name", written, message)]
