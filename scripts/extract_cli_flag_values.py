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

Most flags are not typed on ``EngineArgs`` itself: ``EngineArgs.add_cli_args`` writes
``lora_kwargs = get_kwargs(LoRAConfig)`` and ``add_argument("--max-lora-rank", **lora_kwargs["max_lora_rank"])``, so
the flag takes the hint of the config dataclass's field (``max_lora_rank: MaxLoRARanks``, a module-level alias of
``Literal[1, 8, …]``; ``lora_dtype: torch.dtype | LoRADType``). Those calls are followed to the field, and the field's
hint is read the way ``_compute_kwargs`` reads it, in its order (a dataclass, ``bool | str``, ``bool``, ``Literal``
— ints give int choices —, collections, ``int``, ``float``); a call that passes its own ``type``/``choices``/
``action``/``nargs`` is left out. Each field's pydantic constraints (``Field(ge=1)``, ``Annotated[int, Field(gt=0)]``)
give its range, and a check of the class's validators stated as one comparison between two fields that have flags
(``elif self.max_cpu_loras < self.max_loras: raise ValueError``), at the top level of the method, gives a
``relations`` entry (the relation that must hold, checked when a command gives both flags).

msprof-analyze (the version scripts/extract_cli_flags.py pins) builds its sub-commands with click: each
``@click.option("--x", type=...)`` of ``msprof_analyze/cli/*.py`` whose type is ``int``, ``float``, a ``Choice`` (or a
subclass of it: ``UnifiedChoice``) of a list the source states, or ``IntRange``, gives that flag's type, set or range
(a flag that two sub-commands type differently gives nothing). A list is followed through module-level names, imports
within the package, ``+`` and a function that lists the sub-folders of a folder of the package
(``get_all_recipes``: the recipes under ``cluster_analyse/recipes``, read from the wheel's file list).

Usage: ``python scripts/extract_cli_flag_values.py [--cache DIR]`` (network: PyPI, as scripts/extract_cli_flags.py).
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from npulab.env import pypi, stacks  # noqa: E402

OUT = Path(__file__).resolve().parent.parent / "npulab" / "data" / "cli_values_packaged.yaml"
VLLM = stacks.pinned_version(stacks.get("vllm-ascend"), "vllm")
# the msprof-analyze release scripts/extract_cli_flags.py reads the flags of (npulab/data/cli_flags.json)
MSPROF_ANALYZE = json.loads((OUT.parent / "cli_flags.json").read_text(encoding="utf-8"))["tools"]["msprof-analyze"]["version"]
FILES = re.compile(r"^vllm/(engine/arg_utils|entrypoints/openai/cli_args|entrypoints/chat_utils|config/.*)\.py$")
CLASSES = {"vllm/engine/arg_utils.py": {"EngineArgs"},
           "vllm/entrypoints/openai/cli_args.py": {"BaseFrontendArgs", "FrontendArgs"}}


def literal_values(node: ast.AST, aliases: dict[str, ast.AST], depth: int = 0) -> list | None:
    """The values a ``Literal[...]`` annotation (through aliases, ``| None`` allowed) admits; None when open."""
    if depth > 4:
        return None
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == "Literal":
        items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        values = []
        for item in items:  # a Literal nested in a Literal, or named by an alias, adds its values (PEP 586)
            if isinstance(item, ast.Constant):
                values.append(item.value)
                continue
            nested = literal_values(item, aliases, depth + 1) if isinstance(item, (ast.Name, ast.Subscript)) else None
            if nested is None:
                return None
            values += nested
        return values
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



def hint_atoms(node: ast.AST, aliases: dict[str, ast.AST], depth: int = 0) -> list[ast.AST] | None:
    """The members of a type hint as vllm/engine/arg_utils.py get_type_hints sees them: unions (``|``, ``Union``,
    ``Optional``) and ``Annotated[X, …]`` flattened, module-level aliases followed; None when too deep."""
    if depth > 6:
        return None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        left, right = hint_atoms(node.left, aliases, depth + 1), hint_atoms(node.right, aliases, depth + 1)
        return None if left is None or right is None else left + right
    if isinstance(node, ast.Subscript):
        head = ast.unparse(node.value).rsplit(".", 1)[-1]
        items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if head in ("Union", "Optional"):
            out = [ast.Constant(None)] if head == "Optional" else []
            for item in items:
                got = hint_atoms(item, aliases, depth + 1)
                if got is None:
                    return None
                out += got
            return out
        if head == "Annotated":
            return hint_atoms(items[0], aliases, depth + 1)
        return [node]
    if isinstance(node, ast.Name) and node.id in aliases:
        return hint_atoms(aliases[node.id], aliases, depth + 1)
    if isinstance(node, ast.Constant) and isinstance(node.value, str):  # a forward reference
        try:
            return hint_atoms(ast.parse(node.value, mode="eval").body, aliases, depth + 1)
        except SyntaxError:
            return None
    return [node]


def _atom_kind(atom: ast.AST, classes: set[str]) -> str:
    """bool, str, int, float, None, Literal, collection, dict, dataclass (a class of the parsed sources) or other."""
    if isinstance(atom, ast.Constant) and atom.value is None:
        return "None"
    if isinstance(atom, ast.Name):
        if atom.id in ("bool", "str", "int", "float", "dict", "list", "tuple", "set"):
            return {"list": "collection", "tuple": "collection", "set": "collection"}.get(atom.id, atom.id)
        return "dataclass" if atom.id in classes else "other"
    if isinstance(atom, ast.Subscript):
        head = ast.unparse(atom.value).rsplit(".", 1)[-1]
        if head == "Literal":
            return "Literal"
        return {"list": "collection", "tuple": "collection", "set": "collection", "dict": "dict",
                "Sequence": "collection", "Mapping": "dict"}.get(head, "other")
    return "other"


def field_spec(name: str, annotation: ast.AST, aliases: dict[str, ast.AST], special: set[str], classes: set[str],
               bounds: dict[str, float]) -> dict | None:
    """What vllm/engine/arg_utils.py _compute_kwargs makes of one dataclass field, in its order of tests, as a value
    spec of npulab.env.value_grammar; ``bounds`` are the field's pydantic constraints (ge, gt, le, lt)."""
    atoms = hint_atoms(annotation, aliases)
    if not atoms:
        return None
    kinds = [_atom_kind(a, classes) for a in atoms]
    if "dataclass" in kinds or set(kinds) == {"bool", "str", "None"}:
        return None  # parsed as JSON into the dataclass / an optional-valued flag
    if "bool" in kinds:
        return dict(SWITCH)
    if "Literal" in kinds:
        literals = [a for a, k in zip(atoms, kinds, strict=True) if k == "Literal"]
        values = literal_values(literals[0], aliases) if len(literals) == 1 else None
        if not values or "str" in kinds or len({type(v) for v in values}) != 1:
            return None  # str in the union: a metavar, not choices
        if isinstance(values[0], str):
            return {"enum": values}
        if isinstance(values[0], int) and not isinstance(values[0], bool):
            return {"choices": sorted(values), "convert": "int"}
        return None
    if [k for k in kinds if k != "None"] == ["collection"]:
        return _literal_items(next(a for a, k in zip(atoms, kinds, strict=True) if k == "collection"), aliases)
    if {"collection", "dict"} & set(kinds):
        return None
    if "int" in kinds:
        if name in special:
            return None
        low = bounds.get("ge", bounds["gt"] + 1 if "gt" in bounds else None)
        high = bounds.get("le", bounds["lt"] - 1 if "lt" in bounds else None)
        if low is None and high is None:
            return {"integer": True}
        return {"int": [None if low is None else int(low), None if high is None else int(high)]}
    if "float" in kinds:
        low, high = bounds.get("ge", bounds.get("gt")), bounds.get("le", bounds.get("lt"))
        if low is None and high is None:
            return {"number": True}
        spec = {"float": [low, high]}
        if "gt" in bounds or "lt" in bounds:
            spec["open"] = ["gt" in bounds, "lt" in bounds]
        return spec
    return None


def _literal_items(collection: ast.AST, aliases: dict[str, ast.AST]) -> dict | None:
    """``list[Literal[...]]`` / ``set[…]``: collection_to_kwargs makes the element the flag's type (``nargs="+"``) and
    _compute_kwargs then gives it the Literal's choices; a tuple or any other element gives nothing."""
    head = ast.unparse(collection.value).rsplit(".", 1)[-1] if isinstance(collection, ast.Subscript) else ""
    if head not in ("list", "set"):
        return None
    values = literal_values(collection.slice, aliases)
    return {"enum": values} if values and all(isinstance(v, str) for v in values) else None


def json_field_spec(annotation: ast.AST, aliases: dict[str, ast.AST], bounds: dict[str, float]) -> dict:
    """What pydantic's ``TypeAdapter(cls).validate_json`` (vllm/engine/arg_utils.py parse_dataclass) holds one key of
    a JSON-valued flag to: a Literal's values (``null`` too where the hint admits None), an int's or a float's
    pydantic bounds; {} where the key takes anything lint does not judge."""
    atoms = hint_atoms(annotation, aliases) or []
    kinds = {_atom_kind(a, set()) for a in atoms}
    nullable = {"null": True} if "None" in kinds else {}
    if kinds - {"None"} == {"Literal"}:
        values = literal_values(annotation, aliases)
        return {"enum": list(dict.fromkeys(values)), **nullable} if values else {}
    numeric = kinds - {"None"}
    if numeric in ({"int"}, {"float"}) and bounds:
        return {"bounds": bounds, **nullable}
    return {}


def field_bounds(item: ast.AnnAssign) -> dict[str, float]:
    """The numeric ge/gt/le/lt of a field's ``Field(...)`` default or of ``Annotated[X, Field(...)]`` metadata."""
    calls = [item.value] if item.value is not None else []
    if isinstance(item.annotation, ast.Subscript) and ast.unparse(item.annotation.value).endswith("Annotated") \
            and isinstance(item.annotation.slice, ast.Tuple):
        calls += item.annotation.slice.elts[1:]
    out: dict[str, float] = {}
    for call in calls:
        if isinstance(call, ast.Call) and ast.unparse(call.func).rsplit(".", 1)[-1] == "Field":
            for kw in call.keywords:
                if kw.arg in ("ge", "gt", "le", "lt"):
                    try:
                        value = ast.literal_eval(kw.value)
                    except ValueError:
                        continue
                    if isinstance(value, (int, float)) and not isinstance(value, bool):
                        out[kw.arg] = value
    return out


_NEGATED = {ast.Lt: ">=", ast.LtE: ">", ast.Gt: "<=", ast.GtE: "<"}


def validator_relations(cls: ast.ClassDef) -> list[tuple[str, str, str]]:
    """(field, relation that must hold, field) for each ``if self.a < self.b: raise …`` (or ``elif``) at the top level
    of a method of the class: the comparison that raises, negated."""
    out = []
    for method in cls.body:
        if not isinstance(method, ast.FunctionDef):
            continue
        for stmt in method.body:
            while isinstance(stmt, ast.If):
                test = stmt.test
                if stmt.body and isinstance(stmt.body[0], ast.Raise) and isinstance(test, ast.Compare) \
                        and len(test.ops) == 1 and type(test.ops[0]) in _NEGATED:
                    sides = [test.left, test.comparators[0]]
                    if all(isinstance(x, ast.Attribute) and isinstance(x.value, ast.Name) and x.value.id == "self"
                           for x in sides):
                        out.append((sides[0].attr, _NEGATED[type(test.ops[0])], sides[1].attr))
                stmt = stmt.orelse[0] if len(stmt.orelse) == 1 else None
    return out


def _atoms(test: ast.expr) -> list[ast.expr]:
    return [a for v in test.values for a in _atoms(v)] if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) \
        else [test]


def _plain(atom: ast.expr) -> bool:
    """``self.a < self.b``, ``self.a == "x"``, ``self.a > 1``, ``self.a``, ``not self.a``: what flags can decide."""
    def side(x):
        return isinstance(x, ast.Constant) or (isinstance(x, ast.Attribute) and isinstance(x.value, ast.Name)
                                               and x.value.id == "self")
    if isinstance(atom, ast.UnaryOp) and isinstance(atom.op, ast.Not):
        atom = atom.operand
    if isinstance(atom, ast.BoolOp):
        return all(_plain(v) for v in atom.values)
    if isinstance(atom, ast.Compare):
        return len(atom.ops) == 1 and side(atom.left) and side(atom.comparators[0])
    return isinstance(atom, ast.Attribute) and side(atom)


def validator_refusals(cls: ast.ClassDef) -> list[tuple[list[str], str]]:
    """(fields read, the test) of each ``raise`` under ``if`` tests (nested ones joined with ``and``) of a method of
    the class, when every part of the test compares fields of ``self`` with each other or with constants and it reads
    two fields or more: ``if self.max_num_partial_prefills > 1: if not self.enable_chunked_prefill: raise …``."""
    out = []

    defaults = {i.target.id: _constant_default(i.value) for i in cls.body if isinstance(i, ast.AnnAssign)
                and isinstance(i.target, ast.Name) and _constant_default(i.value) is not None}

    class _OwnDefaults(ast.NodeTransformer):
        """``MultiModalConfig.x`` inside the class's own validator: the literal default of its field ``x``."""

        def visit_Attribute(self, node):
            if isinstance(node.value, ast.Name) and node.value.id == cls.name and node.attr in defaults:
                return ast.Constant(defaults[node.attr].value)
            return self.generic_visit(node)

    def walk(body: list[ast.stmt], outer: list[ast.expr]) -> None:
        for stmt in body:
            if not isinstance(stmt, ast.If):
                continue
            atoms = outer + _atoms(_OwnDefaults().visit(stmt.test))
            if any(isinstance(b, ast.Raise) for b in stmt.body) and all(_plain(a) for a in atoms):
                test = ast.BoolOp(ast.And(), atoms) if len(atoms) > 1 else atoms[0]
                read = sorted({n.attr for n in ast.walk(test) if isinstance(n, ast.Attribute)})
                if len(read) > 1:
                    out.append((read, ast.unparse(test).replace("self.", "")))
            walk(stmt.body, atoms)

    for method in cls.body:
        if isinstance(method, ast.FunctionDef):
            walk(method.body, [])
    return out


def _constant_default(value: ast.expr | None) -> ast.Constant | None:
    """A field's literal default: ``x: int = 3`` or ``Field(default=3, …)``."""
    if isinstance(value, ast.Call) and ast.unparse(value.func).rsplit(".", 1)[-1] == "Field":
        value = next((k.value for k in value.keywords if k.arg == "default"), None)
    return value if isinstance(value, ast.Constant) else None


_OVERRIDES = {"type", "choices", "action", "nargs"}


def config_flags(tree: ast.Module) -> list[tuple[list[str], str, str]]:
    """(option strings, config class, field) of each ``add_argument("--x", **xs_kwargs["field"])`` whose
    ``xs_kwargs = get_kwargs(Class)`` and which passes no ``type``/``choices``/``action``/``nargs`` of its own."""
    bound = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and isinstance(node.value, ast.Call) and ast.unparse(node.value.func) == "get_kwargs" \
                and len(node.value.args) == 1 and isinstance(node.value.args[0], ast.Name):
            bound[node.targets[0].id] = node.value.args[0].id
    out = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "add_argument"):
            continue
        spread = [k.value for k in node.keywords if k.arg is None]
        if len(spread) != 1 or {k.arg for k in node.keywords if k.arg} & _OVERRIDES:
            continue
        ref = spread[0]
        if isinstance(ref, ast.Subscript) and isinstance(ref.value, ast.Name) and ref.value.id in bound \
                and isinstance(ref.slice, ast.Constant) and isinstance(ref.slice.value, str):
            flags = [a.value for a in node.args if isinstance(a, ast.Constant) and str(a.value).startswith("-")]
            if flags:
                out.append((flags, bound[ref.value.id], ref.slice.value))
    return out


class PackageNames:
    """Module-level list values of a package's parsed sources, followed through imports, ``+`` and sub-folder
    listings (enough to read a click ``Choice``'s list)."""

    def __init__(self, trees: dict[str, ast.Module]):
        self.trees = trees

    def module_path(self, module: str) -> str:
        return module.replace(".", "/") + ".py"

    def value(self, node: ast.AST, path: str, depth: int = 0) -> list | None:
        if depth > 6:
            return None
        if isinstance(node, (ast.List, ast.Tuple)):
            items = [self.value(e, path, depth + 1) if not isinstance(e, ast.Constant) else [e.value] for e in node.elts]
            return None if any(i is None for i in items) else [v for i in items for v in i]
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            left, right = self.value(node.left, path, depth + 1), self.value(node.right, path, depth + 1)
            return None if left is None or right is None else left + right
        if isinstance(node, ast.Name):
            return self.name(node.id, path, depth + 1)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.args:
            return self.folders(node.func.id, path)
        return None

    def name(self, name: str, path: str, depth: int) -> list | None:
        tree = self.trees.get(path)
        if tree is None:
            return None
        for stmt in tree.body:
            if isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in stmt.targets):
                return self.value(stmt.value, path, depth)
            if isinstance(stmt, ast.ImportFrom) and stmt.module and stmt.level == 0:
                for alias in stmt.names:
                    if (alias.asname or alias.name) == name:
                        return self.name(alias.name, self.module_path(stmt.module), depth + 1)
        return None

    def folders(self, function: str, path: str) -> list | None:
        """The sub-folders a module-level function of ``path`` lists: ``os.listdir`` of
        ``os.path.join(os.path.dirname(os.path.abspath(__file__)), "<folder>")``, kept where ``os.path.isdir``."""
        tree = self.trees.get(path)
        func = next((s for s in tree.body if isinstance(s, ast.FunctionDef) and s.name == function), None) if tree else None
        if func is None:
            return None
        text = ast.unparse(func)
        folder = re.search(r"os\.path\.join\(os\.path\.dirname\(os\.path\.abspath\(__file__\)\), '([^']+)'\)", text)
        if not folder or "os.listdir" not in text or "os.path.isdir" not in text:
            return None
        base = path.rsplit("/", 1)[0] + "/" + folder.group(1) + "/"
        return sorted({p[len(base):].split("/", 1)[0] for p in self.trees if p.startswith(base)
                       and "/" in p[len(base):]} - {"__pycache__"})


def click_values(trees: dict[str, ast.Module], cli_folder: str) -> dict[str, dict]:
    """flag -> value spec of each ``click.option`` of the modules under ``cli_folder``: ``type=int``/``float``, a
    ``Choice`` (or a class derived from it) of a list the sources state, ``IntRange(min, max)``."""
    names = PackageNames(trees)
    choice_classes = {"Choice"} | {c.name for tree in trees.values() for c in ast.walk(tree) if isinstance(c, ast.ClassDef)
                                   and any(ast.unparse(b).endswith("Choice") for b in c.bases)}
    found: dict[str, list[dict | None]] = {}
    for path, tree in trees.items():
        if not path.startswith(cli_folder):
            continue
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and ast.unparse(node.func) in ("click.option", "option")):
                continue
            options = [a.value for a in node.args if isinstance(a, ast.Constant) and str(a.value).startswith("-")]
            keywords = {k.arg: k.value for k in node.keywords if k.arg}
            kind, spec = keywords.get("type"), None  # an untyped option or a flag records None: a conflict
            if "is_flag" in keywords:
                pass
            elif isinstance(kind, ast.Name) and kind.id in ("int", "float"):
                spec = {"integer": True} if kind.id == "int" else {"number": True}
            elif isinstance(kind, ast.Call) and kind.args:
                head = ast.unparse(kind.func).rsplit(".", 1)[-1]
                if head in choice_classes:
                    values = names.value(kind.args[0], path)
                    if values and all(isinstance(v, str) for v in values):
                        spec = {"enum": values}
                        sensitive = next((k.value for k in kind.keywords if k.arg == "case_sensitive"), None)
                        if isinstance(sensitive, ast.Constant) and sensitive.value is False:
                            spec["case_insensitive"] = True
                elif head == "IntRange" and all(isinstance(a, ast.Constant) for a in kind.args[:2]):
                    bounds = [a.value for a in kind.args[:2]] + [None] * (2 - len(kind.args[:2]))
                    if all(b is None or (isinstance(b, int) and b >= 0) for b in bounds):
                        spec = {"int": bounds}
            for option in options:
                found.setdefault(option, []).append(spec)
    return {flag: specs[0] for flag, specs in sorted(found.items())
            if specs[0] is not None and all(s == specs[0] for s in specs)}

# a BooleanOptionalAction switch takes no value: `--enforce-eager true` gives argparse a stray positional argument
SWITCH = {"pattern": "(?!(?i:true|false|yes|no|on|off|1|0)$).*",
          "hint": "是开关，不带值：打开写这个旗标本身，关闭写 --no- 加旗标名",
          "hint_en": "is a switch that takes no value: give the flag alone to turn it on, --no-<flag> to turn it off"}


class _PlainDumper(yaml.SafeDumper):
    """Writes a spec shared by two spellings (``-m`` / ``--mode``) twice rather than as a YAML alias."""

    def ignore_aliases(self, data):
        return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "npulab" / "sources")
    args = parser.parse_args(argv)
    sources = pypi.read_members("vllm", VLLM, FILES, args.cache, "sdist")
    flags, relations = read_flags({path: ast.parse(text) for path, text in sources.items()})
    source = (f"vllm {VLLM} (PyPI sdist): the type hints and pydantic Field constraints of the config dataclasses "
              "EngineArgs.add_cli_args (vllm/engine/arg_utils.py) builds its flags from (get_kwargs(LoRAConfig) …, "
              "vllm/config/*.py, module-level aliases followed) and of EngineArgs and FrontendArgs "
              "(vllm/entrypoints/openai/cli_args.py); vllm/engine/arg_utils.py _compute_kwargs makes them argparse "
              "choices, type=int, type=float and BooleanOptionalAction switches")
    out = {"vllm": {"source": source, "source_en": source, "flags": dict(sorted(flags.items())),
                    "relations": relations}}
    name, version = "msprof-analyze", MSPROF_ANALYZE
    members = pypi.read_members(name, version, re.compile(r"^msprof_analyze/.*\.py$"), args.cache, "wheel")
    parsed = {}
    for path, text in members.items():
        try:
            parsed[path] = ast.parse(text)
        except SyntaxError:
            continue
    source = (f"{name} {version} (PyPI wheel): the type=int/float, Choice lists and IntRange bounds of the "
              "click options of msprof_analyze/cli/*.py (a Choice's list followed to its source, such as "
              "cluster_analyse/cluster_analysis.py ALL_FEATURE_LIST: COMM_FEATURE_LIST + the recipe folders)")
    out[name] = {"source": source, "source_en": source, "flags": click_values(parsed, "msprof_analyze/cli/")}
    header = ("# Generated by scripts/extract_cli_flag_values.py: the closed value sets of `vllm serve` flags read from\n"
              f"# the pinned vllm {VLLM} release (choices, int and float types and ranges, switches, relations its validators check). Do not edit by hand: cli_tools.yaml `values` win over these.\n")
    OUT.write_text(header + yaml.dump(out, Dumper=_PlainDumper, allow_unicode=True, sort_keys=False, width=200),
                   encoding="utf-8")
    print(f"{len(flags)} vllm flags, {len(relations)} relations, {len(out[name]['flags'])} {name} flags -> {OUT}")
    return 0


_NO_DEFAULT = object()


def read_flags(trees: dict[str, ast.Module]) -> tuple[dict[str, dict], list[dict]]:
    """flag -> value spec, and the relations between flags, from the parsed sources of the vLLM release."""
    aliases: dict[str, ast.AST] = {}
    local: dict[str, dict[str, ast.AST]] = {}
    classes: dict[str, tuple[str, ast.ClassDef]] = {}
    for path, tree in trees.items():
        local[path] = {}
        for node in tree.body:
            target = None
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                target = node.targets[0].id
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
                target = node.target.id  # ModelDType: TypeAlias = Literal[...]
            if target:
                local[path].setdefault(target, node.value)
                aliases.setdefault(target, node.value)
            elif isinstance(node, ast.ClassDef):
                classes.setdefault(node.name, (path, node))
    # fields _compute_kwargs gives a parser of its own (human_readable_int …): named in `name == "…"` / `name in (…)`
    compute = next(n for n in ast.walk(trees["vllm/engine/arg_utils.py"])
                   if isinstance(n, ast.FunctionDef) and n.name == "_compute_kwargs")
    special = {c.value for n in ast.walk(compute) if isinstance(n, ast.Compare)
               and isinstance(n.left, ast.Name) and n.left.id == "name"
               for c in ast.walk(n) if isinstance(c, ast.Constant) and isinstance(c.value, str)}

    def fields(name: str) -> dict[str, ast.AnnAssign]:
        path, node = classes[name]
        return {i.target.id: i for i in node.body if isinstance(i, ast.AnnAssign) and isinstance(i.target, ast.Name)}

    def spec_of(cls: str, item: ast.AnnAssign) -> dict | None:
        seen = {**aliases, **local[classes[cls][0]]}
        return field_spec(item.target.id, item.annotation, seen, special, set(classes), field_bounds(item))

    flags: dict[str, dict] = {}
    for names in CLASSES.values():  # EngineArgs' own fields, FrontendArgs' (built from every field)
        for name in names & set(classes):
            for field, item in fields(name).items():
                if not field.startswith("_") and (spec := spec_of(name, item)) is not None:
                    flags["--" + field.replace("_", "-")] = spec
    def literal_default(cls: str, field: str):
        item = fields(cls).get(field) if cls in classes else None
        value = item.value if item is not None else None
        if isinstance(value, ast.Call) and ast.unparse(value.func).rpartition(".")[2] == "Field":
            value = next((k.value for k in value.keywords if k.arg == "default"), value.args[0] if value.args else None)
        if isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name) and value.value.id in classes:
            return literal_default(value.value.id, value.attr)  # EngineArgs: x = ParallelConfig.x
        try:
            return ast.literal_eval(value) if value is not None else _NO_DEFAULT
        except ValueError:
            return _NO_DEFAULT

    def json_spec(item: ast.AnnAssign) -> dict | None:
        """A flag whose field is a config dataclass is parsed as JSON into it: its fields' specs, its validators'
        refusals with the class's literal defaults."""
        seen = {**aliases, **local[classes[cls][0]]}
        atoms = hint_atoms(item.annotation, seen) or []
        inner = [a.id for a in atoms if isinstance(a, ast.Name) and a.id in classes]
        node = classes[inner[0]][1] if len(inner) == 1 else None
        # vllm/config/utils.py ``config``: a pydantic dataclass whose ConfigDict forbids extra fields (a key it lacks)
        if node is None or node.bases or not any(ast.unparse(d) == "config" for d in node.decorator_list):
            return None
        own = {**aliases, **local[classes[node.name][0]]}
        items = {f: i for f, i in fields(node.name).items() if not f.startswith("_")
                 and "ClassVar" not in ast.unparse(i.annotation)}
        # a ``field_validator(..., mode="before")`` rewrites the value before pydantic reads it: not judged here
        before = {c.value for d in ast.walk(node) if isinstance(d, ast.Call) and ast.unparse(d.func) == "field_validator"
                  and any(k.arg == "mode" and ast.unparse(k.value) in ("'before'", '"before"') for k in d.keywords)
                  for c in d.args if isinstance(c, ast.Constant)}
        keys = {f: {} if before & {f, "*"} else json_field_spec(i.annotation, own, field_bounds(i))
                for f, i in items.items()}
        # a field typed by another config (``target_model_config: ModelConfig``) is filled in by the engine, not the
        # flag: a refusal that reads one is not the flag's to decide
        engine_filled = {f for f, i in items.items() if {n.id for n in ast.walk(i.annotation) if isinstance(n, ast.Name)}
                         & set(classes)}
        refusals = [{"refused": test, "defaults": {f: d for f in read
                                                   if (d := literal_default(node.name, f)) is not _NO_DEFAULT}}
                    for read, test in validator_refusals(node) if set(read) <= set(keys) and not set(read) & engine_filled]
        return {"json": {"class": f"{classes[node.name][0]} {node.name}", "keys": keys, "refusals": refusals}}

    def engine_default(field: str):
        """The default ``vllm serve`` gives a field: EngineArgs' (a ``None`` of its own is decided later: none; a
        ``None`` it takes from a config class, ``x = MultiModalConfig.x``, is handed to that class as it is)."""
        found = literal_default("EngineArgs", field)
        item = fields("EngineArgs").get(field)
        handed = item is not None and isinstance(item.value, ast.Attribute) and isinstance(item.value.value, ast.Name) \
            and item.value.value.id in classes
        return _NO_DEFAULT if found is None and not handed else found

    by_field: dict[tuple[str, str], str] = {}
    for options, cls, field in config_flags(trees["vllm/engine/arg_utils.py"]):
        item = fields(cls).get(field) if cls in classes else None
        if item is None:
            continue
        long = next((o for o in options if o.startswith("--")), options[0])
        by_field[(cls, field)] = long
        spec = spec_of(cls, item) or json_spec(item)
        for option in options:
            if spec is None:
                flags.pop(option, None)  # the config field's hint, not EngineArgs', types the flag
            else:
                flags[option] = spec
    spellings = {}  # option -> every option string of its add_argument call ("-dcp" beside its long name)
    for n in ast.walk(trees["vllm/engine/arg_utils.py"]):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "add_argument":
            names = [a.value for a in n.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
            spellings.update({name: names for name in names})

    def switch(field: str) -> bool:
        item = fields("EngineArgs").get(field)
        return item is not None and "bool" in ast.unparse(item.annotation)
    relations = []
    for cls in sorted({c for c, _ in by_field}):
        path = classes[cls][0]
        for left, relation, right in validator_relations(classes[cls][1]):
            pair = by_field.get((cls, left)), by_field.get((cls, right))
            if None in pair or not all(_integral(flags.get(f)) for f in pair):
                continue
            where = f"vllm {VLLM} {path} {cls}: {left} {relation} {right} (a validator raises ValueError otherwise)"
            relations.append({"flags": list(pair), "relation": relation, "source": where, "source_en": where})
        for read, test in validator_refusals(classes[cls][1]):
            # the flag of the field (EngineArgs' field of the same name where the flag adds a parser of its own)
            named = {field: by_field.get((cls, field)) or f"--{field.replace('_', '-')}" for field in read}
            if any(f not in spellings for f in named.values()) \
                    or any(sorted(r.get("flags", [])) == sorted(named.values()) for r in relations):
                continue  # a field no flag sets; a pair already related
            defaults = {f: d for f in read if (d := engine_default(f)) is not _NO_DEFAULT}
            where = f"vllm {VLLM} {path} {cls}: a validator raises ValueError when {test}"
            relations.append({"refused": test, "fields": {f: spellings[flag] for f, flag in named.items()},
                              "switches": [f for f in read if switch(f)], "defaults": defaults, "source": where,
                              "source_en": where})
    return flags, relations


def _integral(spec: dict | None) -> bool:
    return bool(spec) and ("integer" in spec or "int" in spec or spec.get("convert") == "int")

if __name__ == "__main__":
    sys.exit(main())
