"""lint-npu, command lines: the flags of every command in ``npu`` cells (``!`` lines, ``%%bash`` cells, argv lists
of ``subprocess`` calls) and in the lessons' shell blocks, checked against real argument definitions:

- Python-packaged tools (vllm, swift, msprobe, msprof-analyze, torchrun, msrun): npulab/data/cli_flags.json,
  extracted from the released packages by scripts/extract_cli_flags.py (CI reads the committed table, offline);
- other tools (npu-smi and its query types, ascend-dmi, atc, msprof, hccn_tool, msopgen, converter_lite, ais_bench,
  MindSpeed-LLM scripts): npulab/data/cli_tools.yaml. A flag a table does not know is a finding.

The literal VALUES of flags are checked too (npulab.env.value_grammar): for torchrun and msrun the ``type=int``
/ ``choices=`` of their ``add_argument`` calls, read from the pinned releases' sources at lint time (ARGPARSE_SOURCES),
and for every tool the documented values of cli_tools.yaml ``values``.
"""

from __future__ import annotations

import ast
import difflib
import json
import operator
import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass

from npulab.core.i18n import localized, t
from npulab.core.paths import DATA_DIR, load_yaml
from npulab.core.words import code, guess_end, joined
from npulab.env import value_grammar

FLAGS_FILE = DATA_DIR / "cli_flags.json"
TOOLS_FILE = DATA_DIR / "cli_tools.yaml"
# the closed value sets read from a packaged tool's own argument classes (scripts/extract_cli_flag_values.py: vLLM's
# Literal type hints); TOOLS_FILE's ``values`` win over them
PACKAGED_VALUES = DATA_DIR / "cli_values_packaged.yaml"
SMI_QUERIES = DATA_DIR / "npu_smi_queries.yaml"
LAUNCHERS = {"torchrun", "msrun"}
# `python -m MODULE` that is one of the tools
MODULE_TOOLS = {"torch.distributed.run": "torchrun", "torch.distributed.launch": "torchrun", "msprobe": "msprobe",
                "msprobe.msprobe": "msprobe", "msprof_analyze": "msprof-analyze", "msprof_analyze.cli.entrance": "msprof-analyze"}  # flags after the script belong to the script
_SKIP = {"nohup", "sudo", "exec", "time", "env"}
_ENV = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_NUMBER = re.compile(r"^-\d")
# launchers whose argument parser is read from the pinned release (package root, module with the add_argument calls)
ARGPARSE_SOURCES = {"torchrun": ("torch", "torch.distributed.run"), "msrun": ("mindspore", "mindspore.parallel.cluster.run")}
_INT = re.compile(r"[0-9]+")
_TYPES = {"int": {"integer": True}, "float": {"number": True}}
_CONVERTERS = {"str", "int", "float", "ast.literal_eval"}


@dataclass
class CommandProblem:
    line: int
    command: str
    message: str


class Tables:
    """Both flag tables, loaded once; ``sources`` gives a package's released source tree (lint-npu's Context)."""

    def __init__(self, sources: Callable | None = None):
        self.packaged = json.loads(FLAGS_FILE.read_text(encoding="utf-8"))["tools"]
        self.other = load_yaml(TOOLS_FILE)
        self.smi_types = {t["name"] for t in load_yaml(SMI_QUERIES)["types"]}
        self._sources = sources
        self._values: dict[str, dict] = {}

    def values(self, tool: str) -> dict[str, tuple[dict, str]]:
        """flag -> (value spec, where it was read) for one tool: its parser's types and choices, then the table."""
        if tool not in self._values:
            found: dict[str, tuple[dict, str]] = {}
            if tool in ARGPARSE_SOURCES and self._sources is not None:
                root, module = ARGPARSE_SOURCES[tool]
                tree = self._sources(root)
                parsed = tree.tree(module) if hasattr(tree, "tree") else None
                if parsed is not None:
                    where = t("lint.flag.add_argument", package=tree.package, version=tree.version,
                              file=f"{module.replace('.', '/')}.py")
                    found = {flag: (spec, where) for flag, spec in argparse_values(parsed).items()}
            for table in (load_yaml(PACKAGED_VALUES).get(tool, {}), self.other.get("values", {}).get(tool, {})):
                self._add_values(found, table)
            self._values[tool] = found
        return self._values[tool]

    @staticmethod
    def _add_values(found: dict[str, tuple[dict, str]], table: dict) -> None:
        """A table's flags (and their aliases) with its source, over what ``found`` had."""
        for flag, spec in table.get("flags", {}).items():
            for name in [flag, *spec.get("aliases", [])]:
                found[name] = (spec, localized(table, "source"))

    def own_parser_problems(self, tool: str, invoked: str, args: list[str]) -> list[str]:
        """What the launcher's own parser (cli_tools.yaml ``parsers``) refuses in ``args``; [] when the pinned
        release is not the one installed here or the tool was invoked another way (torch.distributed.launch)."""
        entry = self.other.get("parsers", {}).get(tool)
        if entry is None or invoked not in entry["invoked_as"] or self._sources is None:
            return []
        tree = self._sources(entry["package"])
        if not hasattr(tree, "version"):
            return []
        from npulab.lint import own_parsers

        return own_parsers.problems(tool, own_parsers.launcher_args(args, entry.get("leave_out", [])), entry, tree.version,
                                    tree)


def argparse_values(tree: ast.Module) -> dict[str, dict]:
    """option string -> value spec of each ``add_argument`` with ``type=int|float`` or a literal ``choices=``."""
    out = {}
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "add_argument"):
            continue
        flags = [a.value for a in node.args if isinstance(a, ast.Constant) and str(a.value).startswith("-")]
        keywords = {k.arg: k.value for k in node.keywords if k.arg}
        spec = None
        convert = ast.unparse(keywords["type"]) if "type" in keywords else "str"
        if "choices" in keywords:
            try:
                choices = ast.literal_eval(keywords["choices"])
            except ValueError:
                choices = None
            if isinstance(choices, (list, tuple)) and choices and convert in _CONVERTERS:
                spec = {"choices": list(choices), "convert": convert}  # argparse converts, then tests `in`
        elif convert in _TYPES:
            spec = _TYPES[convert]
        if spec:
            out.update(dict.fromkeys(flags, spec))
    return out


def flag_values(argv: list[str], known: dict) -> list[tuple[str, str]]:
    """(flag, value) of the flags of ``known`` in an argv: ``--x=v`` or ``--x v``."""
    out = []
    for i, tok in enumerate(argv):
        flag, sep, value = tok.partition("=")
        if flag not in known:
            continue
        if not sep:
            if i + 1 >= len(argv) or (argv[i + 1].startswith("-") and not _NUMBER.match(argv[i + 1])):
                continue
            value = argv[i + 1]
        out.append((flag, value))
    return out


def value_problems(tool: str, argv: list[str], tables: Tables) -> list[str]:
    """Sentences for the literal flag values of one command that its documentation or parser refuses."""
    known = tables.values(tool)
    problems = []
    for flag, value in flag_values(argv, known):
        if not value or "PYVAR" in value or (re.search(r"[$<>{}]", value) and not _json_literal(value)):
            continue  # a placeholder ({x}, $X, <…>); a JSON map given literally is a value
        spec, where = known[flag]
        if "json" in spec:
            problems += json_problems(f"{tool} {flag}", value, spec["json"], where)
            continue
        why = value_grammar.problem(value, spec)
        if why:
            shown = f"{flag}={value}" if flag.startswith("--") else f"{flag} {value}"
            problems.append(t("lint.flag.bad_value", command=f"{tool} {shown}", why=why, where=where))
    return problems + relation_problems(tool, argv, tables)


def _substitution(match: re.Match) -> str:
    """What lint-npu reads for a ``{…}`` of a shell line: PYVAR for an IPython ``{expr}``, the text itself for a JSON
    map of quoted keys written inside a quoted argument (``'{"device0": ["0-15"]}'``)."""
    inner = match.group(0)
    return inner if inner[1:].lstrip().startswith('"') and _json_literal(re.sub(r"\{[^{}]*\}", "{}", inner)) else "PYVAR"


def _json_literal(value: str) -> bool:
    """Whether a flag's value is a JSON object or list written out (msrun ``--bind_core='{"device0": ["0-15"]}'``)."""
    try:
        return isinstance(json.loads(value), (dict, list)) and "$" not in value
    except ValueError:
        return False


def json_problems(command: str, value: str, spec: dict, where: str) -> list[str]:
    """A flag vLLM parses as JSON into a config dataclass (``TypeAdapter(cls).validate_json``, cli_values_packaged.yaml
    ``json``): a key the class lacks (its ConfigDict forbids extra fields), a value outside a key's Literal or pydantic
    bounds, a test of the class's validators that holds on the keys given and the class's defaults."""
    try:
        given = json.loads(value)
    except ValueError:
        return []
    if not isinstance(given, dict):
        return []
    whys = []
    for key, item in given.items():
        if key not in spec["keys"]:
            whys.append(t("lint.flag.json_key", name=key, cls=spec["class"]) + guess_end(code(
                difflib.get_close_matches(key, list(spec["keys"]), n=2, cutoff=0.7))))
        elif (why := _json_value_problem(item, spec["keys"][key])) is not None:
            whys.append(t("lint.flag.json_value", name=key, value=json.dumps(item), why=why))
    for rule in spec["refusals"]:
        read = {n.id for n in ast.walk(ast.parse(rule["refused"], mode="eval"))
                if isinstance(n, ast.Name) and n.id not in ("None", "True", "False")}
        values = {f: given.get(f, rule["defaults"].get(f, _ABSENT)) for f in read}
        if read & set(given) and _ABSENT not in values.values() and _refuses(rule["refused"], values):
            whys.append(t("lint.flag.json_refused", test=rule["refused"]))
    return [t("lint.flag.bad_value", command=command, why=why, where=f"{spec['class']}; {where}") for why in whys]


def _json_value_problem(item, spec: dict) -> str | None:
    if item is None:
        return None if spec.get("null") or "enum" not in spec else t("lint.flag.json_null")
    if "enum" in spec and item not in spec["enum"]:
        return t("lint.grammar.only", choices=joined([str(v) for v in spec["enum"]]))
    bounds = spec.get("bounds", {})
    if isinstance(item, (int, float)) and not isinstance(item, bool) and any(
            not _RELATIONS[relation](item, bounds[name]) for name, relation in _BOUNDS.items() if name in bounds):
        return t("lint.flag.json_bounds", bounds=", ".join(f"{_BOUNDS[n]} {v}" for n, v in bounds.items()))
    return None


def _refuses(test: str, values: dict) -> bool:
    """Whether a release's validator test holds on these field values (the walker of released validation code)."""
    from npulab.lint import own_checks

    walk = own_checks.Walk({}, lambda node: own_checks.UNKNOWN)
    return own_checks.truth(own_checks.evaluate(ast.parse(test, mode="eval").body, values, walk)) is True


_BOUNDS = {"ge": ">=", "gt": ">", "le": "<=", "lt": "<"}
_RELATIONS = {"<=": operator.le, "<": operator.lt, ">=": operator.ge, ">": operator.gt}


def relation_problems(tool: str, argv: list[str], tables: Tables) -> list[str]:
    """Sentences for pairs of integer flags whose documented relation the command breaks (cli_tools.yaml
    ``relations``, and cli_values_packaged.yaml's, read from a release's validators: msrun's ``--local_worker_num`` cannot exceed ``--worker_num``; a flag may be a list of its
    spellings, torchrun's ``[--node-rank, --node_rank]``), and for the pairs of flags a tool's pages say cannot be given
    together or only together (``exclusive``, ``needs``: :func:`pair_problems`)."""
    problems = []
    rules = tables.other.get("values", {}).get(tool, {}).get("relations", []) + \
        load_yaml(PACKAGED_VALUES).get(tool, {}).get("relations", [])
    for rule in rules:
        if "refused" in rule:
            problems += refused_problems(tool, argv, rule)
            continue
        if "exclusive" in rule or "needs" in rule:
            problems += pair_problems(tool, argv, rule)
            continue
        spellings = [f if isinstance(f, list) else [f] for f in rule["flags"]]
        given = dict(flag_values(argv, dict.fromkeys(s for names in spellings for s in names)))
        (left_flag, left), (right_flag, right) = (next(((s, given[s]) for s in names if s in given), (names[0], ""))
                                                  for names in spellings)
        if _INT.fullmatch(left) and _INT.fullmatch(right) and not _RELATIONS[rule["relation"]](int(left), int(right)):
            problems.append(t("lint.flag.relation", tool=tool, left=left_flag, right=right_flag, a=left,
                              b=right, relation=rule["relation"], where=localized(rule, "source")))
    return problems


def pair_problems(tool: str, argv: list[str], rule: dict) -> list[str]:
    """A sentence when a command breaks a documented pair rule of cli_tools.yaml ``relations``:
    ``exclusive: [A, B]`` (A and B cannot be given together; ``when: {flag: [values]}`` narrows a flag to those values,
    atc's ``--enable_single_stream=true``) or ``needs: [A, B]`` (A, narrowed by ``when``, needs B given, or given one
    of ``values`` where B has them, B's ``default`` standing for it when absent: msprof op's ``--mstx-include`` needs
    ``--mstx=on``). A value the cell leaves to a placeholder decides nothing."""
    first, second = rule.get("exclusive") or rule["needs"]
    present = set(_flags(argv))
    values = dict(flag_values(argv, {first: None, second: None}))
    if any(re.search(r"[$<>{}]", v) or "PYVAR" in v for v in values.values()):
        return []
    when = rule.get("when", {})

    def holds(flag: str) -> bool:
        return flag in present and (flag not in when or values.get(flag) in [str(v) for v in when[flag]])

    def shown(flag: str) -> str:
        return f"`{flag}={values[flag]}`" if flag in values else f"`{flag}`"

    where = localized(rule, "source")
    if "exclusive" in rule:
        if holds(first) and holds(second):
            return [t("lint.flag.exclusive", tool=tool, a=shown(first), b=shown(second), where=where)]
        return []
    if not holds(first):
        return []
    if "values" not in rule:
        met, needed = second in present, f"`{second}`"
    else:
        given = values.get(second, rule.get("default")) if second in present else rule.get("default")
        met, needed = str(given) in [str(v) for v in rule["values"]], joined([f"`{second}={v}`" for v in rule["values"]])
    return [] if met else [t("lint.flag.needs", tool=tool, a=shown(first), b=needed, where=where)]


_ABSENT, _UNREAD = object(), object()


def _flag_value(argv: list[str], names: list[str], switch: bool):
    """What a command gives one field: True / False for a switch (``--x`` / ``--no-x``), the int, float or word after
    a flag; _ABSENT when not given, _UNREAD for a placeholder (``$TP``, ``{n}``)."""
    negated = {"--no-" + n[2:] for n in names if n.startswith("--")}
    for i, token in enumerate(argv):
        flag, sep, value = token.partition("=")
        if switch and not sep and (flag in names or flag in negated):
            return flag in names
        if switch and sep and flag in names and re.search(r"[$<>{}]", value):
            return _UNREAD  # a keyword of LLM(...) whose value is not a literal (npulab.lint.engine_args)
        if switch or flag not in names:
            continue
        if not sep:
            if i + 1 >= len(argv) or (argv[i + 1].startswith("-") and not _NUMBER.match(argv[i + 1])):
                return _ABSENT
            value = argv[i + 1]
        if re.search(r"[$<>{}]", value):
            return _UNREAD
        for kind in (int, float):
            try:
                return kind(value)
            except ValueError:
                pass
        return value
    return _ABSENT


def refused_problems(tool: str, argv: list[str], rule: dict) -> list[str]:
    """A sentence when the command's flags (and the defaults of the fields it does not give) make a release's
    validator raise (cli_values_packaged.yaml ``refused``: ``dcp_comm_backend == 'a2a' and
    decode_context_parallel_size <= 1``); none when a field the test reads is neither given nor defaulted, or none is given."""
    values, given = {}, []
    for field, names in rule["fields"].items():
        value = _flag_value(argv, names, field in rule.get("switches", []))
        if value is _UNREAD:
            return []
        if value is _ABSENT:
            if field not in rule.get("defaults", {}):
                return []
            value = rule["defaults"][field]
        else:
            given.append(names[0] if value is True else f"--no-{names[0][2:]}" if value is False
                         else f"{names[0]}={value}")
        values[field] = value
    if not given or not _refuses(rule["refused"], values):
        return []
    return [t("lint.flag.refused", tool=tool, given=joined([f"`{g}`" for g in given]), test=rule["refused"],
              where=localized(rule, "source"))]


def shell_lines(source: str, python_tree: ast.Module | None) -> list[tuple[int, str]]:
    """(line, command text) of the shell commands of a cell: ``!cmd`` lines, a ``%%bash``/``%%sh`` body, and
    ``subprocess.run([...])`` argv lists made of constants."""
    lines = source.splitlines()
    out = []
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is not None and re.match(r"^%%(bash|sh|script\s+bash)\b", lines[first]):
        return [(i + 1, line) for i, line in enumerate(lines[first + 1:], start=first + 1) if line.strip()]
    for i, line in enumerate(lines):
        stripped = line.strip()
        if stripped.startswith("!") and not stripped.startswith("!="):
            out.append((i + 1, stripped[1:]))
    if python_tree is not None:
        for node in ast.walk(python_tree):  # subprocess.run("npu-smi info -t topo", shell=True), os.system("...")
            if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant) \
                    and isinstance(node.args[0].value, str):
                func = ast.unparse(node.func)
                if func in ("os.system", "os.popen") or (func.startswith("subprocess.") and any(
                        k.arg == "shell" for k in node.keywords)):
                    out.append((node.lineno, node.args[0].value))
        for node in ast.walk(python_tree):
            if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.List):
                func = ast.unparse(node.func)
                if func.startswith(("subprocess.", "os.system")) or func in ("run", "check_output", "Popen", "check_call"):
                    items = node.args[0].elts
                    if items and all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in items):
                        out.append((node.lineno, shlex.join(e.value for e in items)))
    return out


def markdown_shell_blocks(text: str) -> list[tuple[int, str]]:
    """(line, command) of the fenced ```bash / ```shell / ```sh / ```console blocks of a markdown cell."""
    out, inside = [], False
    for i, line in enumerate(text.splitlines(), start=1):
        if line.strip().startswith("```"):
            inside = not inside and line.strip()[3:].strip().lower() in ("bash", "shell", "sh", "console")
            continue
        if inside and line.strip() and not line.strip().startswith("#"):
            out.append((i, re.sub(r"^\$\s+", "", line.strip())))
    return out


def _commands(text: str) -> list[list[str]]:
    """Simple commands of a shell line (split at ``&&``, ``||``, ``;``, ``|``), env prefixes and nohup dropped."""
    text = re.sub(r"\{[^{}]*\}", _substitution, text)  # IPython {expr} substitutions
    try:
        lexer = shlex.shlex(text, posix=True, punctuation_chars="|&;()<>")
        lexer.whitespace_split = True
        tokens = list(lexer)
    except ValueError:  # unbalanced quotes: fall back to whitespace (flags are still words)
        tokens = re.findall(r"[|&;()]+|[^\s|&;()]+", text)
    commands, current = [], []
    for tok in tokens:
        if tok and set(tok) <= set("|&;()"):
            commands.append(current)
            current = []
        elif tok and set(tok) <= set("<>"):
            current.append("__REDIRECT__")
        else:
            current.append(tok)
    commands.append(current)
    out = []
    for argv in commands:
        cleaned, skip_next = [], False
        for tok in argv:
            if skip_next:
                skip_next = False
                continue
            if tok == "__REDIRECT__":
                skip_next = True
                continue
            cleaned.append(tok)
        while cleaned and (_ENV.match(cleaned[0]) or cleaned[0] in _SKIP):
            cleaned = cleaned[1:]
        if cleaned:
            out.append(cleaned)
    return out


def _flags(argv: list[str]) -> list[str]:
    """The flags of an argv (``--x=1`` counts as ``--x``); negative numbers are values."""
    return [tok.split("=", 1)[0] for tok in argv
            if tok.startswith("-") and tok not in ("-", "--") and not _NUMBER.match(tok)]


def _until_positional(argv: list[str]) -> list[str]:
    """The launcher's own part of ``torchrun [flags] script.py [script flags]``: stop at the first .py / program."""
    out = []
    for i, tok in enumerate(argv):
        if not tok.startswith("-") and (i == 0 or not _takes_value(argv[i - 1])):
            break
        out.append(tok)
    return out


# torchrun's switches (torch/distributed/run.py: action=check_env, nargs=0): no value follows them
_SWITCHES = {"--standalone", "-m", "--module", "--no-python", "--no_python", "--run-path", "--run_path",
             "--virtual-local-rank", "--virtual_local_rank"}


def _takes_value(tok: str) -> bool:
    return tok.startswith("-") and "=" not in tok and not tok.startswith("--join") and tok not in _SWITCHES


def check_command(argv: list[str], tables: Tables) -> list[str]:
    """Problems of one simple command (a sentence each, in the reader's language); [] for commands no table covers."""
    tool = argv[0].rsplit("/", 1)[-1]
    args = argv[1:]
    invoked = tool
    if tool in ("python", "python3", "PYVAR") and args:
        if args[0] == "-m" and len(args) > 1:
            invoked = args[1]
            tool, args = MODULE_TOOLS.get(args[1], args[1].split(".")[0] if args[1].startswith(("vllm.", "swift.")) else args[1]), args[2:]
        elif args[0].endswith(".py"):
            tool, args = args[0].rsplit("/", 1)[-1], args[1:]
        else:
            return []
    if tool == "bash" and args and args[0].endswith(".sh"):
        return _check_script(args[0], tables)
    if tool in tables.packaged:
        entry = tables.packaged[tool]
        own = _until_positional(args) if tool in LAUNCHERS else args
        known = set(entry["flags"])
        label, by_command = tool, entry.get("subcommand_flags", {})
        if own and own[0] in by_command:  # a click sub-command parses its own options, and only those
            label, known = f"{tool} {own[0]}", set(by_command[own[0]]) | {"-h", "--help"}
        problems = []
        for flag in _flags(own):
            shown = "--" + flag[2:].replace("_", "-") if entry.get("underscore_equals_dash") and flag.startswith("--") else flag
            if shown not in known and flag not in known:
                from npulab.lint.features import flag_feature

                feature = flag_feature(tool, flag)
                if feature and feature.get("replacement"):
                    problems.append(t("lint.flag.renamed", tool=label, version=entry["version"], flag=flag,
                                      note=localized(feature, "note"), source=localized(feature, "source")))
                    continue
                guess = difflib.get_close_matches(shown, sorted(known), n=2, cutoff=0.7)
                problems.append(t("lint.flag.unknown", tool=label, flag=flag, package=entry["package"],
                                  version=entry["version"]) + guess_end(code(guess)))
        problems += value_problems(tool, own, tables)
        if not problems and tool in LAUNCHERS and len(own) < len(args):  # the table found nothing: the tool's own parser
            problems = tables.own_parser_problems(tool, invoked, args)
        return problems
    other = tables.other["tools"].get(tool)
    if other is None:
        scripts = tables.other["MindSpeed-LLM"]["scripts"]
        if tool in scripts:
            return _check_flags(tool, args, set(scripts[tool]["flags"]), localized(scripts[tool], "source"))
        if tool == "convert_ckpt.py" or (tool.endswith(".py") and tool.startswith(("convert_", "preprocess_"))):
            return [t("lint.flag.unknown_script", tool=tool, scripts=joined(scripts),
                      version=tables.other["MindSpeed-LLM"]["version"])]
        return []
    label, known, source = tool, set(other["flags"]), localized(other, "source")
    words = _subcommand_words(args, other.get("subcommand_flags", {}))
    if words:  # a sub-command with flags of its own (msprof op): its table and its values
        entry = other["subcommand_flags"][words]
        label, known, source = f"{tool} {words}", set(entry["flags"]), localized(entry, "source")
        args = args[len(words.split()):]
    own = _until_positional(args) if other.get("stop_at_positional") else args
    if not words and other.get("subcommands") and own and not own[0].startswith("-") and own[0] not in other["subcommands"]:
        return [t("lint.flag.no_subcommand", tool=tool, subcommand=own[0], source=source)]
    problems = _check_flags(label, own, known, source) + value_problems(label, own, tables)
    if tool == "npu-smi" and "-t" in own:
        value = own[own.index("-t") + 1] if own.index("-t") + 1 < len(own) else ""
        if value and value not in tables.smi_types:
            guess = difflib.get_close_matches(value, sorted(tables.smi_types), n=2, cutoff=0.6)
            problems.append(t("lint.flag.smi_query", value=value) + guess_end(code(guess)))
    return problems


def _subcommand_words(args: list[str], tables: dict) -> str:
    """The longest leading words of ``args`` that name a sub-command with a flag table (``op simulator`` before
    ``op``); "" when none does."""
    return max((words for words in tables if args[:len(words.split())] == words.split()), key=len, default="")


def _check_flags(tool: str, args: list[str], known: set[str], source: str) -> list[str]:
    problems = []
    for flag in _flags(args):
        if flag not in known:
            guess = difflib.get_close_matches(flag, sorted(known), n=2, cutoff=0.7)
            problems.append(t("lint.flag.not_in_table", tool=tool, flag=flag, source=source) + guess_end(code(guess)))
    return problems


def _check_script(path: str, tables: Tables) -> list[str]:
    entry = tables.other["MindSpeed-LLM"]["shell_scripts"]
    relative = path.split("MindSpeed-LLM/", 1)[-1]
    if relative.startswith(tuple(entry["prefixes"])) and relative not in entry["known"]:
        return [t("lint.flag.unchecked_script", script=relative, source=localized(entry, "source"),
                  known=joined(entry["known"]))]
    return []


def check_text(lines: list[tuple[int, str]], tables: Tables) -> list[CommandProblem]:
    """Problems of each command line."""
    out = []
    for line, text in lines:
        for argv in _commands(text):
            out += [CommandProblem(line, " ".join(argv)[:80], m) for m in check_command(argv, tables)]
    return out
