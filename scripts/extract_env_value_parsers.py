#!/usr/bin/env python3
"""Regenerate npulab/data/env_values_parsers.yaml: the values each environment variable's own PARSER accepts, read from
the released code, not from the documentation and not variable by variable.

- **Python sources** (the torch_npu wheel, MindSpore's installed package, the installed torch, transformers and
  accelerate for the names each owns — ``INSTALLED`` —, the msprof-analyze wheel): every ``os.getenv(N[, d])``,
  ``os.environ.get(N[, d])``, ``os.environ[N]`` (``N`` a literal or a module/class constant holding one), and every call
  of a helper that hands its parameter to one of those. What the code then does with the value decides: compared with
  literals (``== "1"``, ``!= "0"``, ``in ("1", "true")``, ``in`` or ``[…]`` of a module's dict keyed by literals, after
  ``.lower()`` too) gives a switch — its values are the
  literals, the default ``d`` and, for a ``0``/``1`` switch, the other of the two (the branch the comparison leaves);
  ``int(…)`` / ``float(…)`` gives an integer / a number; ``re.match("^…$", v)`` / ``re.fullmatch`` gives the pattern;
  ``v.split(sep)`` whose items are compared with a set of literals gives a ``sep``-separated list of those words. A
  read whose value goes anywhere else (handed to another call, returned, formatted, compared with a non-literal), or
  two readings that disagree, closes nothing: the variable is left out. A presence or truth test (``if v:``,
  ``v is None``, ``"N" in os.environ``) says nothing about the value and is ignored.
- **msprof-analyze's declared variables**: ``advisor/config/enum_parameters.yaml`` ``envs`` (``type`` and
  ``options``), the table its ``EnumParamsParser`` checks; the options close the set, the code's reading decides case.
- **C++ readers in torch_npu** (the source of Ascend/pytorch at the wheel's release branch): ``c10d::getCvarBool(V,
  …)`` / ``getCvarInt(V, …)`` with ``V`` a ``std::vector<std::string>`` of names; what those accept is read from
  torch's own ``include/torch/csrc/distributed/c10d/Utils.hpp`` of the installed torch (getCvarBool: the spellings it
  compares after ``tolower``, anything else a TORCH_CHECK error; getCvarInt: ``std::stoi``); and every other C++
  reader of torch_npu/csrc (``getenv``/``get_and_log_env``, ``OptionsManager::GetBoolTypeOption``, options registered
  from the environment) as ``scripts/cpp_env_readers.py`` reads it: ``strtol`` held to a set or a range, a comparison
  with literals. A reader that raises (``TORCH_CHECK(false``) on every value outside its set is marked ``enforced``.

Usage: ``python scripts/extract_env_value_parsers.py TORCH_NPU_WHEEL MSPROF_ANALYZE_WHEEL TORCH_NPU_GIT_DIR REF``, or
``… --installed`` to add only the installed packages' readers (INSTALLED) to the file already generated
(the git directory is read with ``git show``; MindSpore and torch are the installed ones).
"""

from __future__ import annotations

import ast
import importlib.metadata
import importlib.util
import re
import subprocess
import sys
import tarfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
import cpp_env_readers  # noqa: E402  (this folder's own module)

OUT = Path(__file__).resolve().parent.parent / "npulab" / "data" / "env_values_parsers.yaml"
_ENV_NAME = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")
_CASEFOLD = {"lower", "upper", "casefold"}
_PASS = {"strip", "lstrip", "rstrip"}
_PAIRS = (("1", "0"), ("true", "false"), ("yes", "no"), ("on", "off"), ("y", "n"), ("t", "f"), ("enable", "disable"))
_OPPOSITE = {**dict(_PAIRS), **{b: a for a, b in _PAIRS}}


@dataclass
class Reading:
    """What the code does with one variable's value, over all its reads."""

    literals: set = field(default_factory=set)
    defaults: set = field(default_factory=set)
    kinds: set = field(default_factory=set)  # "switch", "int", "float", "pattern", "split"
    patterns: set = field(default_factory=set)
    split: dict = field(default_factory=dict)  # separator -> item literals
    casefold: set = field(default_factory=set)  # True/False per comparison
    open: bool = False
    where: list = field(default_factory=list)


def constants(trees: dict[str, ast.Module]) -> dict[str, str]:
    """Names and class attributes bound to an environment-variable-like string literal, where every binding agrees."""
    seen: dict[str, set] = {}
    for tree in trees.values():
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
                for target in node.targets:
                    if isinstance(target, ast.Name) and _ENV_NAME.fullmatch(node.value.value):
                        seen.setdefault(target.id, set()).add(node.value.value)
    return {k: next(iter(v)) for k, v in seen.items() if len(v) == 1}


def _name_of(node: ast.AST, consts: dict[str, str]) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name):
        return consts.get(node.id)
    if isinstance(node, ast.Attribute):
        return consts.get(node.attr)
    return None


def _is_environ(node: ast.AST) -> bool:
    return (isinstance(node, ast.Attribute) and node.attr == "environ" and isinstance(node.value, ast.Name)
            and node.value.id == "os") or (isinstance(node, ast.Name) and node.id == "environ")


def env_read(node: ast.AST) -> tuple[ast.AST, ast.AST | None] | None:
    """(name expression, default expression) of an environment read, or None."""
    if isinstance(node, ast.Subscript) and _is_environ(node.value) and isinstance(node.ctx, ast.Load):
        return node.slice, None
    if isinstance(node, ast.Call) and node.args:
        func = node.func
        getenv = (isinstance(func, ast.Attribute) and func.attr == "getenv" and isinstance(func.value, ast.Name)
                  and func.value.id == "os") or (isinstance(func, ast.Name) and func.id == "getenv")
        get = isinstance(func, ast.Attribute) and func.attr == "get" and _is_environ(func.value)
        if getenv or get:
            default = node.args[1] if len(node.args) > 1 else next((k.value for k in node.keywords if k.arg == "default"), None)
            return node.args[0], default
    return None


def _parents(tree: ast.AST) -> dict:
    parents = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parents[child] = node
    return parents


def _literal_set(node: ast.AST, sets: dict[str, set]) -> set | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return {node.value}
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)) and all(isinstance(e, ast.Constant) and isinstance(e.value, str)
                                                                 for e in node.elts):
        return {e.value for e in node.elts}
    if isinstance(node, ast.Dict) and node.keys and all(isinstance(k, ast.Constant) and isinstance(k.value, str)
                                                        for k in node.keys):
        return {k.value for k in node.keys}  # a table keyed by the accepted values (``log_levels = {"info": …}``)
    if isinstance(node, ast.Name) and node.id in sets:
        return sets[node.id]
    return None


def module_sets(tree: ast.Module) -> dict[str, set]:
    """Module-level names bound to a display of string literals (``_allowed = {'cpu', 'nocat'}``)."""
    out = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            found = _literal_set(node.value, {})
            if found is not None:
                out[node.targets[0].id] = found
    return out


class _Flow:
    """Follows one read's value through one function (or module) body."""

    def __init__(self, scope: ast.AST, parents: dict, sets: dict, reading: Reading, returns=None):
        self.scope, self.parents, self.sets, self.reading = scope, parents, sets, reading
        self.returns = returns  # a helper's flow: what its caller does with the value it returns

    def value(self, node: ast.AST, folded: bool = False, item_of: str | None = None, depth: int = 0) -> None:
        """Record what happens to the value ``node`` evaluates to (an item of a split on ``item_of`` when given)."""
        if depth > 8:
            self.reading.open = True
            return
        parent = self.parents.get(node)
        r = self.reading
        if isinstance(parent, ast.Attribute) and parent.value is node:
            call = self.parents.get(parent)
            if isinstance(call, ast.Call) and call.func is parent:
                if parent.attr in _CASEFOLD | _PASS and not call.args:
                    return self.value(call, folded or parent.attr in _CASEFOLD, item_of, depth + 1)
                if parent.attr == "split" and item_of is None and call.args and isinstance(call.args[0], ast.Constant):
                    return self._split(call, call.args[0].value, folded, depth)
            r.open = True
            return
        if isinstance(parent, ast.Subscript) and parent.slice is node and item_of is None \
                and isinstance(parent.value, ast.Name) and parent.value.id in self.sets:
            r.kinds.add("switch")  # looked up in a module's table keyed by literals: its keys, anything else KeyError
            r.literals |= self.sets[parent.value.id]
            r.casefold.add(folded)
            return
        if isinstance(parent, ast.BoolOp) or (isinstance(parent, ast.IfExp) and parent.test is not node):
            return self.value(parent, folded, item_of, depth + 1)
        if isinstance(parent, ast.Compare):
            return self._compare(parent, node, folded, item_of)
        if isinstance(parent, (ast.If, ast.While, ast.Assert)) or (isinstance(parent, ast.IfExp) and parent.test is node) \
                or (isinstance(parent, ast.UnaryOp) and isinstance(parent.op, ast.Not)) \
                or (isinstance(parent, ast.comprehension) and node in parent.ifs):
            return  # a truth test: set or not
        if isinstance(parent, ast.Call) and node in parent.args and item_of is None:
            func = parent.func
            if isinstance(func, ast.Name) and func.id in ("int", "float") and len(parent.args) == 1:
                r.kinds.add(func.id)
                return
            if isinstance(func, ast.Attribute) and func.attr in ("match", "fullmatch") and isinstance(func.value, ast.Name) \
                    and func.value.id == "re" and parent.args[1:2] == [node] and (pattern := self._string(parent.args[0])):
                if func.attr == "fullmatch" or (pattern.startswith("^") and pattern.endswith("$")):
                    r.kinds.add("pattern")
                    r.patterns.add(pattern.removeprefix("^").removesuffix("$"))
                    return
        if isinstance(parent, ast.FormattedValue) and self._in_message(parent):
            return  # quoted in a warning, a log line or an error: says nothing about the accepted values
        if isinstance(parent, ast.Return) and self.returns is not None and item_of is None:
            return self.returns(folded)
        if isinstance(parent, ast.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Name):
            return self._name(parent.targets[0].id, parent, folded, item_of, depth)
        r.open = True

    def _string(self, node: ast.AST) -> str | None:
        """A string literal, or a name the scope binds once to one (``pattern = r'^(\\d+)$'``)."""
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        if isinstance(node, ast.Name):
            bound = [n.value for n in ast.walk(self.scope) if isinstance(n, ast.Assign)
                     and any(isinstance(t, ast.Name) and t.id == node.id for t in n.targets)]
            if len(bound) == 1 and isinstance(bound[0], ast.Constant) and isinstance(bound[0].value, str):
                return bound[0].value
        return None

    def _in_message(self, node: ast.AST) -> bool:
        text = self.parents.get(node)
        while isinstance(self.parents.get(text), (ast.JoinedStr, ast.BinOp)):
            text = self.parents.get(text)
        call = self.parents.get(text)
        if isinstance(call, ast.Call):
            func = call.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            return bool(re.search(r"warn|log|error|info|debug|print|msg|Error|Exception|Warning", name)) \
                or isinstance(self.parents.get(call), ast.Raise)
        return False

    def _name(self, name: str, binding: ast.AST, folded: bool, item_of: str | None, depth: int) -> None:
        for other in ast.walk(self.scope):
            if isinstance(other, (ast.Assign, ast.AugAssign, ast.For)) and other is not binding and any(
                    isinstance(t, ast.Name) and t.id == name for t in ast.walk(other.target if not isinstance(other, ast.Assign)
                                                                          else ast.Tuple(elts=other.targets))):
                if not (isinstance(other, ast.Assign) and (self._reads_self(other, name) or isinstance(other.value, ast.Constant))):
                    self.reading.open = True  # rebound elsewhere: not one value
                    return
        for use in ast.walk(self.scope):
            if isinstance(use, ast.Name) and use.id == name and isinstance(use.ctx, ast.Load):
                self.value(use, folded, item_of, depth + 1)

    def _reads_self(self, assign: ast.Assign, name: str) -> bool:
        return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(assign.value))

    def _compare(self, compare: ast.Compare, node: ast.AST, folded: bool, item_of: str | None) -> None:
        r = self.reading
        if len(compare.ops) != 1:
            r.open = True
            return
        other = compare.comparators[0] if compare.left is node else compare.left
        op = compare.ops[0]
        if isinstance(op, (ast.Is, ast.IsNot)) and isinstance(other, ast.Constant) and other.value is None:
            return
        literals = _literal_set(other, self.sets) if isinstance(op, (ast.Eq, ast.NotEq, ast.In, ast.NotIn)) else None
        if literals is None and isinstance(op, (ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE)) and (
                isinstance(other, (ast.Name, ast.Attribute)) or (isinstance(other, ast.Constant) and isinstance(other.value, (int, float)))):
            # against a variable (a cache of the last value read) or a number (after the int() the reading records)
            return
        if literals is None or (isinstance(op, (ast.In, ast.NotIn)) and compare.left is not node):
            r.open = True
            return
        if item_of is not None:
            r.split.setdefault(item_of, set()).update(literals)
        else:
            r.kinds.add("switch")
            r.literals |= literals
            r.casefold.add(folded)

    def _split(self, call: ast.Call, separator: str, folded: bool, depth: int) -> None:
        """``v.split(sep)``: its items must each be compared with a literal set (in a comprehension or a later loop)."""
        self.reading.kinds.add("split")
        self.reading.split.setdefault(separator, set())
        parent = self.parents.get(call)
        if isinstance(parent, ast.comprehension) and parent.iter is call and isinstance(parent.target, ast.Name):
            comp = self.parents.get(parent)
            item = parent.target.id
            for cond in parent.ifs:
                self._item_uses(cond, item, separator)
            element = getattr(comp, "elt", None)
            if not (isinstance(element, ast.Name) and element.id == item):
                self.reading.open = True
                return
            holder = self.parents.get(comp)
            if isinstance(holder, ast.Call) and isinstance(holder.func, ast.Name) and holder.func.id in ("set", "list", "frozenset"):
                holder = self.parents.get(holder)
            if isinstance(holder, ast.Assign) and isinstance(holder.targets[0], ast.Name):
                return self._collection(holder.targets[0].id, separator)
        self.reading.open = True

    def _item_uses(self, cond: ast.AST, item: str, separator: str) -> None:
        for node in ast.walk(cond):
            if isinstance(node, ast.Name) and node.id == item:
                self.value(node, item_of=separator)

    def _collection(self, name: str, separator: str) -> None:
        """A collection of split items: each ``for x in name`` loop must compare ``x`` with a literal set."""
        found = False
        for node in ast.walk(self.scope):
            if isinstance(node, ast.For) and isinstance(node.iter, ast.Name) and node.iter.id == name \
                    and isinstance(node.target, ast.Name):
                for inner in node.body:
                    for use in ast.walk(inner):
                        if isinstance(use, ast.Name) and use.id == node.target.id and isinstance(use.ctx, ast.Load):
                            parent = self.parents.get(use)
                            if isinstance(parent, ast.Compare):
                                self._compare(parent, use, False, separator)
                                found = True
        if not found:
            self.reading.open = True


def helpers(tree: ast.Module) -> dict[str, tuple[int, ast.FunctionDef]]:
    """Functions that read the variable their parameter names: ``def f(name, default): return os.getenv(name, …)``."""
    out = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            params = [a.arg for a in node.args.args]
            for inner in ast.walk(node):
                read = env_read(inner)
                if read and isinstance(read[0], ast.Name) and read[0].id in params:
                    out[node.name] = (params.index(read[0].id), node)
    return out


def read_sources(trees: dict[str, ast.Module], label: str, keep=lambda name: True) -> dict[str, Reading]:
    """Every variable the sources read, with what their code does to its value."""
    consts = constants(trees)
    readings: dict[str, Reading] = {}
    wrappers = {name: found for tree in trees.values() for name, found in helpers(tree).items()}
    for path, tree in sorted(trees.items()):
        parents = _parents(tree)
        sets = module_sets(tree)
        scopes = {}
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for inner in ast.walk(node):
                    scopes.setdefault(inner, node)
        for node in ast.walk(tree):
            read = env_read(node)
            default = None
            if read:
                name, default = _name_of(read[0], consts), read[1]
                flow_node, helper = node, None
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in wrappers:
                index, helper = wrappers[node.func.id]
                name = _name_of(node.args[index], consts) if len(node.args) > index else None
                flow_node = node
            else:
                continue
            if not name or not _ENV_NAME.fullmatch(name) or not keep(name):
                continue
            reading = readings.setdefault(name, Reading())
            reading.where.append(f"{path}:{node.lineno}")
            if isinstance(default, ast.Constant) and isinstance(default.value, str) and default.value:
                reading.defaults.add(default.value)
            elif default is not None and not (isinstance(default, ast.Constant) and default.value in (None, "")):
                reading.open = True  # a computed default: the unset value is not a literal
            if read and isinstance(read[0], ast.Name) and read[0].id not in consts:
                continue  # the helper's own body: read through its callers
            if helper is not None:
                caller = _Flow(scopes.get(node, tree), parents, sets, reading)
                _Flow(helper, _parents(helper), sets, reading,
                      returns=lambda folded, caller=caller, node=node: caller.value(node, folded)).value(_helper_result(helper))
            else:
                _Flow(scopes.get(node, tree), parents, sets, reading).value(flow_node)
    return readings


def _helper_result(helper: ast.FunctionDef) -> ast.AST:
    """The expression a helper computes from its read: the read itself (its flow is followed inside the helper)."""
    for inner in ast.walk(helper):
        if env_read(inner):
            return inner
    return helper


def grammar(reading: Reading) -> dict | None:
    """The closed set or format a reading gives, or None where the code leaves the value open."""
    if reading.open or not reading.kinds:
        return None
    kinds = reading.kinds
    if kinds == {"split"} and len(reading.split) == 1:
        separator, words = next(iter(reading.split.items()))
        return {"list": {"enum": sorted(words)}, "separator": separator} if words else None
    if kinds == {"pattern"} and len(reading.patterns) == 1:
        return {"pattern": next(iter(reading.patterns))}
    numeric = kinds & {"int", "float"}
    if numeric and kinds <= {"int", "float", "switch"}:
        if any(not re.fullmatch(r"-?[0-9.]+", v) for v in reading.literals | reading.defaults):
            return None
        return {"integer": True} if numeric == {"int"} else {"number": True}
    if kinds == {"switch"}:
        values = reading.literals | reading.defaults
        # the opposite spelling of each literal compared: the branch the comparison leaves (`== "1"` reads "0" as off)
        values |= {_OPPOSITE[v.lower()] if v.islower() or v.isdigit() else _OPPOSITE[v.lower()].upper() if v.isupper()
                   else _OPPOSITE[v.lower()].capitalize() for v in values if v.lower() in _OPPOSITE}
        if len(values) < 2:
            return None  # one word compared ("on"): how the code's author spells "off" is not in the code
        folded = reading.casefold == {True}
        if not folded and len(reading.casefold) > 1:
            return None
        return {"enum": sorted(values), **({"case_insensitive": True} if folded else {})}
    return None


def python_trees(files: dict[str, str]) -> dict[str, ast.Module]:
    out = {}
    for path, text in files.items():
        try:
            out[path] = ast.parse(text)
        except SyntaxError:
            continue
    return out


def wheel_files(wheel: str, prefix: str = "") -> dict[str, str]:
    with zipfile.ZipFile(wheel) as zf:
        return {n: zf.read(n).decode("utf-8", "replace") for n in zf.namelist() if n.endswith(".py") and n.startswith(prefix)}


def installed_files(package: str) -> dict[str, str]:
    root = Path(importlib.util.find_spec(package).origin).parent
    return {str(p.relative_to(root.parent)): p.read_text(encoding="utf-8", errors="replace") for p in root.rglob("*.py")}


def declared_envs(wheel: str) -> dict[str, dict]:
    """msprof-analyze's ``envs`` table (advisor/config/enum_parameters.yaml): name -> {type, options}."""
    with zipfile.ZipFile(wheel) as zf:
        name = next(n for n in zf.namelist() if n.endswith("advisor/config/enum_parameters.yaml"))
        return yaml.safe_load(zf.read(name)).get("envs", {}), name


def cvar_parsers(utils_hpp: str) -> dict[str, dict]:
    """What torch's c10d ``getCvarBool`` / ``getCvarInt`` accept (include/torch/csrc/distributed/c10d/Utils.hpp)."""
    out = {}
    body = re.search(r"inline bool getCvarBool\(.*?\n}\n", utils_hpp, re.S)
    if body and "tolower" in body.group(0):
        spellings = re.findall(r'val == "([^"]+)"', body.group(0))
        if spellings and re.search(r"else \{\s*TORCH_CHECK\(false", body.group(0)):
            out["getCvarBool"] = {"enum": spellings, "case_insensitive": True}
    body = re.search(r"inline int getCvarInt\(.*?\n}\n", utils_hpp, re.S)
    if body and "std::stoi" in body.group(0):
        out["getCvarInt"] = {"integer": True}
    return out


def cpp_readers(git_dir: str, ref: str) -> dict[str, list[tuple[str, str]]]:
    """name -> [(getCvar function, file:line)] over torch_npu/csrc at ``ref``."""
    files = subprocess.run(["git", "--git-dir", git_dir, "grep", "-l", "-E", r"getCvar(Bool|Int)|std::vector<std::string>",
                            ref, "--", "torch_npu/csrc"], capture_output=True, text=True, check=True).stdout.split()
    vectors, calls = {}, []
    for entry in files:
        path = entry.split(":", 1)[1]
        text = subprocess.run(["git", "--git-dir", git_dir, "show", f"{ref}:{path}"], capture_output=True, text=True,
                              check=True).stdout
        for found in re.finditer(r"std::vector<std::string> ([A-Z_]+) = \{([^}]*)\}", text):
            vectors[found.group(1)] = re.findall(r'"([A-Z0-9_]+)"', found.group(2))
        for found in re.finditer(r"getCvar(Bool|Int)\(\s*(\{[^}]*\}|[A-Z_]+)", text):
            calls.append((f"getCvar{found.group(1)}", found.group(2), f"{path}:{text.count(chr(10), 0, found.start()) + 1}"))
    out: dict[str, list] = {}
    for func, arg, where in calls:
        names = re.findall(r'"([A-Z0-9_]+)"', arg) if arg.startswith("{") else vectors.get(arg, [])
        for name in names:
            out.setdefault(name, []).append((func, where))
    return out


def cpp_option_readers(git_dir: str, ref: str) -> list[tuple[str, dict, bool, str]]:
    """(name, grammar, raises outside it, where) of each variable torch_npu/csrc reads with getenv or an option
    registered from the environment, where every reading closes the value and all agree (scripts/cpp_env_readers.py)."""
    paths = subprocess.run(["git", "--git-dir", git_dir, "ls-tree", "-r", "--name-only", ref, "--", "torch_npu/csrc"],
                           capture_output=True, text=True, check=True).stdout.split()
    files = {p: subprocess.run(["git", "--git-dir", git_dir, "show", f"{ref}:{p}"], capture_output=True, text=True,
                               errors="replace", check=True).stdout
             for p in paths if p.endswith((".cpp", ".h", ".hpp", ".cc"))}
    return cpp_readings(cpp_env_readers.env_readers(files))


def cpp_readings(readers: dict[str, list[dict]]) -> list[tuple[str, dict, bool, str]]:
    """The readings of C++ readers turned into grammars (a comparison with literals as a Python one is)."""
    out = []
    for name, readings in sorted(readers.items()):
        specs = []
        for r in readings:
            if "switch" in r:
                specs.append(grammar(Reading(literals=set(r["switch"]), kinds={"switch"}, casefold={r["casefold"]})))
            else:
                specs.append(r.get("spec"))
        if None in specs or any(s != specs[0] for s in specs):
            continue
        how = "; ".join(f"{r['where']}: {r['how']}" if "how" in r else f"{r['where']}: compared with "
                        + "/".join(sorted(r["switch"])) for r in readings[:2])
        out.append((name, specs[0], all(r.get("enforced") for r in readings), how))
    return out


def _entry(spec: dict, source: str) -> dict:
    return {**spec, "source": source, "source_en": source}


# the installed packages whose Python readers are read, each with the prefixes of the names it owns (a package reads
# others' variables too: transformers' test helpers read TORCH_COMPILE_FORCE_FULLGRAPH, accelerate reads WORLD_SIZE)
INSTALLED = {"torch": ("PYTORCH_", "TORCH_", "TORCHINDUCTOR_", "TORCHDYNAMO_"), "transformers": ("TRANSFORMERS_",),
             "accelerate": ("ACCELERATE_", "PARALLELISM_CONFIG_")}


def _owners() -> dict[str, str]:
    """A variable env_vars.yaml gives to another package (TRITON_INTERPRET: triton) is that package's to parse: a
    reader of it elsewhere is one consumer, not the parser."""
    table = yaml.safe_load((OUT.parent / "env_vars.yaml").read_text(encoding="utf-8"))
    return {v["name"]: v["package"] for v in table["variables"] if v.get("package")}


def adder(out: dict[str, dict]):
    """``add(readings, label)``: each reading with a grammar into ``out``, unless a name is there or another's."""
    owners = _owners()

    def add(readings: dict[str, Reading], label: str) -> None:
        package = label.split()[0]
        for name, reading in sorted(readings.items()):
            spec = grammar(reading)
            if spec and name not in out and owners.get(name, package) == package:
                out[name] = _entry(spec, f"{label}: " + ", ".join(reading.where[:3]))
    return add


def add_installed(add) -> str:
    """Hand ``add`` the readings of each installed package of INSTALLED; returns torch's version."""
    for package, prefixes in INSTALLED.items():
        add(read_sources(python_trees(installed_files(package)), package, lambda n, p=prefixes: n.startswith(p)),
            f"{package} {importlib.metadata.version(package)} (how its Python code parses the value)")
    return importlib.metadata.version("torch")


def refresh_installed() -> None:
    """Add the installed packages' readings to the generated file without the wheels and the git directory the full
    run needs: a name already there keeps its entry (the full run reads torch_npu and MindSpore first)."""
    text = OUT.read_text(encoding="utf-8")
    header = "".join(line + "\n" for line in text.splitlines() if line.startswith("#"))
    out = yaml.safe_load(text)["values"]
    before = len(out)

    add_installed(adder(out))
    OUT.write_text(header + yaml.safe_dump({"values": out}, allow_unicode=True, sort_keys=True, width=200), encoding="utf-8")
    print(f"{len(out) - before} variables added -> {OUT}")


def choice_validators(tree: ast.Module) -> dict[str, tuple[int, str | None]]:
    """Functions that check the variable their parameter names against a choices parameter and raise outside it (vLLM's
    ``env_with_choices(name, default, choices, case_sensitive)``): name -> (index of the choices parameter, the separator
    the value is split on first, or None). A function that only hands its parameters to one of them is one too
    (``env_set_with_choices`` calls ``env_list_with_choices``)."""
    out: dict[str, tuple[int, str | None]] = {}
    functions = [node for node in tree.body if isinstance(node, ast.FunctionDef)]
    for node in functions:
        params = [a.arg for a in node.args.args]
        if not any(env_read(inner) and isinstance(env_read(inner)[0], ast.Name) and env_read(inner)[0].id in params
                   for inner in ast.walk(node)):
            continue
        raising = [inner for inner in ast.walk(node) if isinstance(inner, ast.If)
                   and isinstance(inner.test, ast.Compare) and isinstance(inner.test.ops[0], ast.NotIn)
                   and any(isinstance(s, ast.Raise) for s in inner.body)]
        chosen = [p for p in params if any(isinstance(n, ast.Name) and n.id == p for r in raising for n in ast.walk(r))
                  or any(isinstance(n, ast.Name) and n.id == p for a in ast.walk(node) if isinstance(a, ast.Assign)
                         and any(isinstance(t, ast.Name) and t.id in _names_in(r) for r in raising for t in a.targets)
                         for n in ast.walk(a.value))]
        choices = [p for p in chosen if p.startswith("choice")]
        if raising and len(choices) == 1:
            splits = {c.args[0].value for c in ast.walk(node) if isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute)
                      and c.func.attr == "split" and c.args and isinstance(c.args[0], ast.Constant)}
            out[node.name] = (params.index(choices[0]), next(iter(splits)) if len(splits) == 1 else None)
    for node in functions:
        params = [a.arg for a in node.args.args]
        for inner in ast.walk(node):
            if (node.name not in out and isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name)
                    and inner.func.id in out and all(isinstance(a, ast.Name) and a.id in params for a in inner.args)):
                index, separator = out[inner.func.id]
                if len(inner.args) > index:
                    out[node.name] = (params.index(inner.args[index].id), separator)
    return out


def _names_in(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def validated_choices(path: str, tree: ast.Module) -> dict[str, tuple[dict, str]]:
    """name -> (grammar, where) of each call of a choice validator with a literal name and a literal list of choices;
    ``case_sensitive=False`` makes the set case-insensitive, a separator makes it a list of those words."""
    validators = choice_validators(tree)
    out = {}
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in validators):
            continue
        index, separator = validators[node.func.id]
        name = _name_of(node.args[0], {}) if node.args else None
        given = node.args[index] if len(node.args) > index else next(
            (k.value for k in node.keywords if k.arg and k.arg.startswith("choice")), None)
        words = _literal_set(given, {}) if given is not None else None
        folded = any(k.arg == "case_sensitive" and isinstance(k.value, ast.Constant) and k.value.value is False
                     for k in node.keywords)
        if not name or not words:
            continue
        enum = {"enum": sorted(words), **({"case_insensitive": True} if folded else {})}
        spec = {"list": enum, "separator": separator} if separator else enum
        out[name] = ({"enforced": True, **spec}, f"{path}:{node.lineno}, {node.func.id}: ValueError outside the choices")
    return out


def archive_files(archive: str, wanted: re.Pattern) -> dict[str, str]:
    """Python files of a wheel or an sdist whose path (an sdist's top folder dropped) matches ``wanted``."""
    if archive.endswith(".whl"):
        with zipfile.ZipFile(archive) as zf:
            return {n: zf.read(n).decode("utf-8", "replace") for n in zf.namelist() if wanted.search(n)}
    with tarfile.open(archive) as tf:
        return {m.name.split("/", 1)[-1]: tf.extractfile(m).read().decode("utf-8", "replace") for m in tf.getmembers()
                if m.isfile() and wanted.search(m.name.split("/", 1)[-1])}


def refresh_vllm(archive: str) -> None:
    """Add vLLM's variables (``vllm/envs.py`` of its wheel or sdist) to the generated file: the readers in its
    ``environment_variables`` table as every Python reader is read, and the calls of its choice validators."""
    version = Path(archive).name.split("-")[1].removesuffix(".tar.gz")
    trees = python_trees(archive_files(archive, re.compile(r"^vllm/envs\.py$")))
    text = OUT.read_text(encoding="utf-8")
    out = {k: v for k, v in yaml.safe_load(text)["values"].items() if not k.startswith("VLLM_")}
    before = len(out)
    label = f"vllm {version} (how its vllm/envs.py parses the value)"
    adder(out)(read_sources(trees, "vllm", lambda n: n.startswith("VLLM_")), label)
    for path, tree in trees.items():
        for name, (spec, where) in validated_choices(path, tree).items():
            if name.startswith("VLLM_"):
                out[name] = _entry(spec, f"{label}: {where}")
    header = "".join(line + "\n" for line in text.splitlines() if line.startswith("#"))
    if "vllm" not in header:
        header = header.replace("msprof-analyze ", f"vllm {version} vllm/envs.py, msprof-analyze ", 1)
    OUT.write_text(header + yaml.safe_dump({"values": out}, allow_unicode=True, sort_keys=True, width=200), encoding="utf-8")
    print(f"{len(out) - before} vLLM variables -> {OUT}")


def main(npu_wheel: str, msprof_wheel: str, git_dir: str, ref: str) -> None:
    npu_version = Path(npu_wheel).name.split("-")[1]
    msprof_version = Path(msprof_wheel).name.split("-")[1]
    out: dict[str, dict] = {}
    add = adder(out)
    add(read_sources(python_trees(wheel_files(npu_wheel, "torch_npu/")), "torch_npu"),
        f"torch_npu {npu_version} wheel (how its Python code parses the value)")
    ms = importlib.metadata.version("mindspore")
    add(read_sources(python_trees(installed_files("mindspore")), "mindspore"),
        f"mindspore {ms} (how its Python code parses the value)")
    torch_version = add_installed(add)
    msprof = read_sources(python_trees(wheel_files(msprof_wheel)), "msprof_analyze")
    envs, table = declared_envs(msprof_wheel)
    for name, declared in envs.items():
        options = [str(o).lower() if isinstance(o, bool) else str(o) for o in declared.get("options", [])]
        reading = msprof.get(name, Reading())
        if not options or reading.open:
            continue
        folded = reading.casefold == {True} or declared.get("type") == "boolean" and reading.casefold == {True}
        where = ", ".join(reading.where[:2])
        out[name] = _entry({"enum": options, **({"case_insensitive": True} if folded else {})},
                           f"msprof-analyze {msprof_version} wheel: msprof_analyze/{table.split('msprof_analyze/')[-1]} envs "
                           f"{name} (type {declared.get('type')}, options {options})" + (f"; read at {where}" if where else ""))
    add({k: v for k, v in msprof.items() if k not in envs}, f"msprof-analyze {msprof_version} wheel")
    torch_root = Path(importlib.util.find_spec("torch").origin).parent
    parsers = cvar_parsers((torch_root / "include/torch/csrc/distributed/c10d/Utils.hpp").read_text(encoding="utf-8"))
    commit = subprocess.run(["git", "--git-dir", git_dir, "rev-parse", ref], capture_output=True, text=True, check=True).stdout.strip()
    for name, uses in sorted(cpp_readers(git_dir, ref).items()):
        funcs = {f for f, _ in uses}
        if len(funcs) != 1 or next(iter(funcs)) not in parsers or name in out:
            continue
        func = next(iter(funcs))
        where = ", ".join(w for _, w in uses[:2])
        # getCvarBool raises on every spelling outside its set: the parser's contract (round 16), as a C++ reader's
        out[name] = {**({"enforced": True} if "enum" in parsers[func] else {}), **_entry(
            parsers[func], f"https://github.com/Ascend/pytorch/blob/{commit}/{where.split(':')[0]} reads it with "
                                          f"c10d::{func} ({where}); torch {torch_version} "
                                          "include/torch/csrc/distributed/c10d/Utils.hpp " + (
                                              "accepts " + "/".join(parsers[func]["enum"]) + " in any case, anything else is an error"
                                              if "enum" in parsers[func] else "parses it with std::stoi (an integer)"))}
    for name, spec, enforced, where in cpp_option_readers(git_dir, ref):
        if name in out or _owners().get(name, "torch_npu") != "torch_npu":
            continue
        out[name] = {**_entry(spec, f"https://github.com/Ascend/pytorch/blob/{commit}/{where.split(':')[0]} reads it "
                                    f"({where})"), **({"enforced": True} if enforced else {})}
    header = ("# Generated by scripts/extract_env_value_parsers.py: the values each variable's own parser accepts, read from\n"
              f"# the released code (torch_npu {npu_version} wheel, mindspore {ms}, torch {torch_version}, msprof-analyze "
              f"{msprof_version}; torch_npu's C++ readers at Ascend/pytorch {commit}).\n"
              "# Do not edit by hand: env_vars.yaml's `values` and the documentation pages' win over these (except an\n"
              "# `enforced` C++ reader, which raises on every other value); these win over MindSpore's reference\n"
              "# (npulab/env/env_vars.py).\n")
    OUT.write_text(header + yaml.safe_dump({"values": out}, allow_unicode=True, sort_keys=True, width=200), encoding="utf-8")
    print(f"{len(out)} variables -> {OUT}")


if __name__ == "__main__":
    if sys.argv[1:] == ["--installed"]:
        refresh_installed()
    elif sys.argv[1:2] == ["--vllm"]:
        refresh_vllm(sys.argv[2])
    else:
        main(*sys.argv[1:5])
