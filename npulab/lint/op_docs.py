"""lint-npu, torch_npu operator limits read from the operators' own documentation: the wheel's
``torch_npu/_op_plugin_docs.py`` (the text each ``_add_torch_npu_docstr("npu_x", text)`` attaches). The operators
are C++ bindings, so no Python code checks their arguments where lint-npu could read it; the documentation's
parameter paragraphs say what each takes. :func:`limits` splits an operator's text into one paragraph per parameter
(and its constraints) and reads the phrases of npulab.lint.op_doc_phrases in them, only where a phrase says one thing
and the documented default satisfies it; each limit becomes a ``refused`` rule of the shape api_values.yaml holds,
run by the same evaluator (npulab.lint.relations.rule_problems) and citing the file and the operator. The
hand-written rules of api_values.yaml come first: a parameter they report is not reported again.
"""

from __future__ import annotations

import ast
import re
from functools import cache

from npulab.core.i18n import t
from npulab.lint import op_doc_phrases as phrases
from npulab.lint import own_checks
from npulab.lint.signatures import Signature, SourceTree, _split_top

MODULE = "torch_npu._op_plugin_docs"
_DOCS: dict = {}  # id(tree) -> (tree, {operator: text})


def texts(tree: SourceTree) -> dict[str, str]:
    """operator -> its documentation text, read from the wheel's _op_plugin_docs.py (one text per operator: the last
    one registered, as at run time)."""
    if id(tree) not in _DOCS:
        parsed = tree.tree(MODULE)
        found = {}
        for node in parsed.body if parsed is not None else []:
            call = node.value if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) else None
            if call is not None and len(call.args) == 2 and all(isinstance(a, ast.Constant) and isinstance(a.value, str)
                                                                  for a in call.args):
                found[call.args[0].value] = call.args[1].value
        _DOCS[id(tree)] = (tree, found)
    return _DOCS[id(tree)][1]


def prototype(text: str, operator: str) -> dict[str, tuple[str, object]]:
    """parameter -> (its declared type, its default or own_checks.UNKNOWN) from the text's prototype line."""
    match = re.search(rf"(?<!\w){re.escape(operator)}\((.*)\)\s*(?:->|$)", text, re.MULTILINE)
    out: dict = {}
    for item in _split_top(match.group(1)) if match else []:
        declared, _, default = item.partition("=")
        words = declared.split()
        if not words or not re.fullmatch(r"\w+", words[-1]):
            continue
        value = own_checks.UNKNOWN
        if default.strip():
            try:
                value = ast.literal_eval(default.strip())
            except (ValueError, SyntaxError):
                pass
        out[words[-1]] = (" ".join(words[:-1]), value)
    return out


def paragraphs(text: str, names: list[str]) -> tuple[dict[str, str], str]:
    """(parameter -> its paragraph in the parameter section, the constraints section). A ``self`` no paragraph names
    takes the section's first paragraph where that one names no parameter of ``names`` (round 15)."""
    out, constraints = _paragraphs(text, names, {})
    if "self" in names and "self" not in out:
        first = _first_head(text)
        if first is not None and first not in names:
            out, constraints = _paragraphs(text, names, {first: "self"})
    return out, constraints


def typed_paragraphs(text: str, operator: str) -> tuple[dict[str, tuple[str | None, str]], str]:
    """(parameter -> (its kind: "tensor", "int", "str" …, its paragraph), the constraints section) of an operator page."""
    declared = prototype(text, operator)
    by_parameter, constraints = paragraphs(text, list(declared))
    return ({p: (_kind(paragraph, declared.get(p, ("", None))[0], None), paragraph)
             for p, paragraph in by_parameter.items()}, constraints)


def tensor_paragraphs(text: str, operator: str) -> dict[str, str]:
    """parameter -> its paragraph, for the tensor parameters of an operator page."""
    return {p: paragraph for p, (kind, paragraph) in typed_paragraphs(text, operator)[0].items() if kind == "tensor"}


def _first_head(text: str) -> str | None:
    """The name the parameter section's first line starts a paragraph for, if it starts one."""
    lines = iter(text.splitlines())
    for line in lines:
        if phrases.PARAMETERS.match(line):
            first = next((rest for rest in lines if rest.strip()), "")
            m = phrases.ANY_HEAD.match(first)
            return m.group(1) if m else None
    return None


def _paragraphs(text: str, names: list[str], aliases: dict[str, str]) -> tuple[dict[str, str], str]:
    heads = [(aliases.get(n, n), phrases.parameter_head(n)) for n in sorted([*names, *aliases], key=len, reverse=True)]
    out: dict[str, list[str]] = {}
    constraints: list[str] = []
    section, current = None, None
    for line in text.splitlines():
        if phrases.PARAMETERS.match(line):
            section, current = "parameters", None
            continue
        if phrases.CONSTRAINTS.match(line):
            section, current = "constraints", None
            continue
        if phrases.OTHER_SECTION.match(line):
            section, current = None, None
            continue
        if section == "constraints":
            constraints.append(line)
        elif section == "parameters":
            head = next((n for n, pattern in heads if pattern.match(line)), None)
            if head is not None:
                current = head
                out.setdefault(head, [])
            if current is not None:
                out[current].append(line)
    return {n: "\n".join(lines) for n, lines in out.items()}, "\n".join(constraints)


def _sentences(paragraph: str) -> list[str]:
    return [s.strip() for s in phrases.SENTENCE_END.split(paragraph) if s.strip()]


def _kind(paragraph: str, declared: str, default) -> str | None:
    head = paragraph.splitlines()[0] if paragraph else ""
    for kind, pattern in (("str", phrases.STRING_TYPE), ("bool", phrases.BOOL_TYPE), ("int", phrases.INT_TYPE),
                          ("float", phrases.FLOAT_TYPE), ("tensor", phrases.TENSOR_TYPE)):
        if pattern.search(head):
            return kind
    word = declared.rstrip("?").lower()
    if word in ("str", "int", "float", "bool"):
        return word
    return {str: "str", bool: "bool", int: "int", float: "float"}.get(type(default))


def _free(sentence: str, start: int) -> bool:
    """Whether what a sentence says from ``start`` on stands under no condition: none in its own clause before it,
    nor in the clause before that one (``div_mode为False时, axis取值范围是…``), nor for one product only (round 24)."""
    clauses = phrases.CLAUSE_END.split(sentence[:start])
    return not any(phrases.CONDITIONAL.search(c) for c in clauses[-2:]) and not phrases.PRODUCT.search(sentence[:start])


def _satisfies(test: str, parameter: str, default) -> bool:
    """Whether the documented default passes a refused test (a rule it fails is misread, or conditional)."""
    if default is own_checks.UNKNOWN or default is None:
        return True
    value = own_checks.evaluate(ast.parse(test, mode="eval").body, {parameter: default}, own_checks.Walk({}, lambda n: own_checks.UNKNOWN))
    return own_checks.truth(value) is not True


# what a limit says, each a message lint.opdoc.<kind> in both languages
KINDS = ("values", "values_when", "values_given", "range", "bound", "multiple", "requires", "not_both_none", "not_without")
# whose documentation a limit cites, each a message lint.opdoc.<source>: torch_npu's operator docs, torch's docstrings
SOURCES = ("source", "source_torch")


def _rule(operator: str, parameters: list[str], test: str, what: str, fields: dict, sentence: str, version: str,
          defaults: dict, source: str = "source", module: str = MODULE) -> dict:
    quoted = sentence if len(sentence) <= 90 else sentence[:88] + "…"
    where = {"operator": operator, "parameter": "、".join(parameters), "version": version, "module": module}
    # the Chinese message quotes the sentence, the English one cites the page only (torch_npu's documentation is
    # Chinese; torch's is English)
    return {"refused": test,
            "defaults": {p: v for p, v in defaults.items() if v is not own_checks.UNKNOWN},
            "rule": t(f"lint.opdoc.{what}", "zh", **fields) + t("lint.opdoc.quote", "zh", text=quoted),
            "rule_en": t(f"lint.opdoc.{what}", "en", **fields),
            "source": t(f"lint.opdoc.{source}", "zh", **where), "source_en": t(f"lint.opdoc.{source}", "en", **where)}


def _listed(values) -> str:
    return ", ".join(repr(v) for v in values)


def _value_rules(parameter: str, paragraph: str, kind: str, default) -> list[tuple[str, str, dict, str]]:
    """(refused test, message key, fields, sentence) for what one parameter's paragraph says it takes."""
    sentences = _sentences(paragraph)
    out = []
    if kind == "str":
        values, said = [], ""
        for s in sentences:
            for m in [*phrases.STRING_VALUES.finditer(s), *phrases.ONLY_WORD.finditer(s), *phrases.WORD_LIST.finditer(s),
                      *phrases.PIPE_CHOICES.finditer(s)]:
                if not _free(s, m.start()):
                    continue
                listed = m.group(1) if m.re is not phrases.PIPE_CHOICES else m.group(0)
                found = phrases.QUOTED.findall(listed) or listed.split("、")
                values += [v for v in found if v not in values]
                said = said or s
        if values:
            out.append((f"isinstance({parameter}, str) and {parameter} not in ({_listed(values)},)", "values",
                        {"parameter": parameter, "values": _listed(values)}, said))
    if kind == "bool":
        only = {(m.group(1), s) for s in sentences for m in phrases.BOOL_ONLY.finditer(s) if _free(s, m.start())}
        if len({v for v, _ in only}) == 1:
            value, said = only.pop()
            out.append((f"{parameter} is not {value}", "values", {"parameter": parameter, "values": value}, said))
    if kind in ("int", "float"):
        ranges = [(m, s) for s in sentences for m in phrases.RANGE.finditer(s) if _free(s, m.start())
                  and not phrases.NOT_ONE_NUMBER.search(s)]
        bounds = [(m, s) for s in sentences for m in [*phrases.BOUND.finditer(s), *phrases.BOUND_EN.finditer(s)]
                  if _free(s, m.start()) and not phrases.NOT_ONE_NUMBER.search(s) and phrases.bound(m) is not None]
        if len({m.group(0) for m, _ in ranges}) == 1:
            m, said = ranges[0]
            parts = []
            if "∞" not in m.group(2) and "inf" not in m.group(2):
                parts.append(f"{m.group(2)} {'<=' if m.group(1) in '[［' else '<'} {parameter}")
            if "∞" not in m.group(3) and "inf" not in m.group(3):
                parts.append(f"{parameter} {'<=' if m.group(4) in ']］' else '<'} {m.group(3)}")
            if parts:
                interval = f"{m.group(1)}{m.group(2)}, {m.group(3)}{m.group(4)}"
                out.append((f"not ({' and '.join(parts)})", "range", {"parameter": parameter, "range": interval}, said))
        elif not ranges and len({m.group(0) for m, _ in bounds}) == 1:
            m, said = bounds[0]
            test = "{} {} {}".format(parameter, *phrases.bound(m))
            out.append((f"not ({test})", "bound", {"parameter": parameter, "test": test}, said))
        multiples = {(m.group(1), s) for s in sentences for m in phrases.MULTIPLE.finditer(s)}
        if kind == "int" and len({n for n, _ in multiples}) == 1:
            number, said = multiples.pop()
            out.append((f"{parameter} % {number} != 0", "multiple", {"parameter": parameter, "number": number}, said))
        if kind == "int" and not ranges and not bounds:
            values, said = [], ""
            for s in sentences:
                for m in [*phrases.INT_VALUES.finditer(s), *phrases.INT_ONLY.finditer(s),
                          *phrases.INT_ONLY_LIST.finditer(s), *phrases.INT_DESCRIBED.finditer(s)]:
                    if not _free(s, m.start()):
                        continue
                    each = phrases.DESCRIBED_INT if m.re is phrases.INT_DESCRIBED else phrases.INTS
                    values += [int(v) for v in each.findall(m.group(1)) if int(v) not in values]
                    said = said or s
            if not values and not any(phrases.OTHER_VALUES.search(s) for s in sentences):
                meant = [(int(m.group(1)), s) for s in sentences for m in phrases.INT_MEANING.finditer(s)
                         if _free(s, m.start())]
                if len({v for v, _ in meant}) >= 2:
                    values, said = list(dict.fromkeys(v for v, _ in meant)), meant[0][1]
            if values:
                out.append((f"isinstance({parameter}, int) and {parameter} not in ({_listed(values)},)", "values",
                            {"parameter": parameter, "values": _listed(values)}, said))
    return [rule for rule in out if _satisfies(rule[0], parameter, default)]


def _dtypes(sentences: list[str]) -> tuple[list[str], str]:
    """(the dtypes the sentences say are supported, as ``torch.<name>``; the first sentence that says so)."""
    names, said = [], ""
    for s in sentences:
        if phrases.DTYPE_STATEMENT.search(s):
            spans = [s]
        else:  # (round 15) "torch.int8表示INT8": the names each meaning is given for
            spans = [m.group(1) for m in phrases.DTYPE_MEANING.finditer(s)]
        for span in spans:
            for m in phrases.DTYPE.finditer(span):
                written = (m.group(1) or m.group(2)).lower()
                name = "torch." + phrases.DTYPE_ALIASES.get(written, written)
                if name not in names:
                    names.append(name)
                    said = said or s
    return names, said


def _dtype_rules(parameter: str, paragraph: str, names: list[str]) -> list[tuple[str, str, dict, str]]:
    """The dtypes a dtype parameter takes: all its paragraph lists, and those listed under a switch's value
    (``div_mode为True时`` … ``div_mode为False时`` …) when that switch has it."""
    def rule(listed: list[str], said: str, condition: tuple = ()) -> tuple[str, str, dict, str]:
        test = f"isinstance({parameter}, str) and {parameter}.startswith('torch.') and {parameter} not in ({_listed(listed)},)"
        fields = {"parameter": parameter, "values": ", ".join(listed)}
        if not condition:
            return (test, "values", fields, said)
        switch, value = condition
        return (f"{switch} is {value} and {test}", "values_when", {**fields, "switch": switch, "value": value}, said)

    listed, said = _dtypes(_sentences(paragraph))
    out = [rule(listed, said)] if listed else []
    groups: dict[tuple[str, str], list[str]] = {}
    condition = None
    for line in paragraph.splitlines():
        if (m := phrases.SWITCH_CONDITION.match(line)) and m.group(1) in names:
            condition = (m.group(1), m.group(2))
            line = line[m.end():]
        if condition is not None:
            groups.setdefault(condition, []).append(line)
    for (switch, value), lines in groups.items():
        listed, said = _dtypes(_sentences("\n".join(lines)))
        if listed:
            out.append(rule(listed, said, (switch, value)))
    return out


def _relation_rules(text: str, names: list[str], scalars: set[str] = frozenset()) -> list[tuple[list[str], str, str, dict, str]]:
    """(parameters, refused test, message key, fields, sentence) for the relations a text states; a bare comparison
    (``compress_block_size>=compress_stride``) counts between ``scalars`` (parameters that are not tensors) only."""
    out = []
    for s in _sentences(text):
        for m in phrases.COMPARISON.finditer(s):
            left, op, right = m.group(1), {"≤": "<=", "≥": ">="}.get(m.group(2), m.group(2)), m.group(3) or m.group(4)
            read = [left] + ([right] if m.group(3) else [])
            if set(read) <= set(scalars) and len(set(read)) == len(read) and not phrases.CONDITIONAL.search(s[:m.start()]) \
                    and phrases.REQUIRING.search(s) and not phrases.REFUSED_CASE.search(s):
                test = f"{left} {op} {right}"
                out.append((read, f"not ({test})", "requires", {"test": test}, s))
        for m in phrases.EXPRESSION.finditer(s):
            try:
                expression = ast.parse(m.group(1), mode="eval").body
            except SyntaxError:
                continue
            read = sorted({n.id for n in ast.walk(expression) if isinstance(n, ast.Name)})
            if read and set(read) <= set(names) and _free(s, m.start()):
                out.append((read, f"not ({m.group(1)})", "requires", {"test": m.group(1)}, s))
        for m in phrases.NOT_BOTH_NONE.finditer(s):
            if {m.group(1), m.group(2)} <= set(names):
                out.append(([m.group(1), m.group(2)], f"{m.group(1)} is None and {m.group(2)} is None", "not_both_none",
                            {"first": m.group(1), "second": m.group(2)}, s))
        for m in phrases.NOT_WITHOUT.finditer(s):
            if {m.group(1), m.group(2)} <= set(names):
                out.append(([m.group(1), m.group(2)], f"{m.group(1)} is not None and {m.group(2)} is None", "not_without",
                            {"first": m.group(1), "second": m.group(2)}, s))
    return out


@cache
def _limits(tree_key: int, operator: str, names: tuple[str, ...], version: str) -> tuple[dict, ...]:
    text = _DOCS[tree_key][1].get(operator)
    return limits_of_text(text, operator, names, version) if text is not None else ()


def limits_of_text(text: str, operator: str, names: tuple[str, ...], version: str, known: dict | None = None,
                   source: str = "source", module: str = MODULE) -> tuple[dict, ...]:
    """The ``refused`` rules one operator's documentation text states (``names``: its parameters as the schema
    gives them; the text's prototype adds its own and their defaults, ``known`` the defaults a ``def`` gives; ``source``
    (one of ``SOURCES``) and ``module``: whose documentation and which module the rules cite)."""
    declared = prototype(text, operator)
    params = list(dict.fromkeys([*names, *declared]))
    defaults = {p: declared.get(p, ("", own_checks.UNKNOWN))[1] for p in params}
    defaults.update({p: v for p, v in (known or {}).items() if p in defaults})
    by_parameter, constraints = paragraphs(text, params)
    rules = []
    for parameter, paragraph in by_parameter.items():
        kind = _kind(paragraph, declared.get(parameter, ("", None))[0], defaults[parameter])
        # (round 13) a constraint sentence whose subject is the parameter: "page_block_size只能是64或者128。"
        own = [s for s in _sentences(constraints) if re.match(rf"^\W*{re.escape(parameter)}(?![A-Za-z0-9_的])", s)]
        paragraph = "\n".join([paragraph, *own])
        found = _value_rules(parameter, paragraph, kind, defaults[parameter]) if kind != "tensor" else []
        if phrases.DTYPE_PARAMETER.search(parameter) and kind != "str":
            found += _dtype_rules(parameter, paragraph, params)
        rules += [_rule(operator, [parameter], test, what, fields, said, version, defaults, source, module)
                  for test, what, fields, said in found]
    scalars = {p for p, paragraph in by_parameter.items()
               if _kind(paragraph, declared.get(p, ("", None))[0], defaults[p]) in ("int", "float")}
    for read, test, what, fields, said in _relation_rules("\n".join([*by_parameter.values(), constraints]), params,
                                                          scalars):
        rules.append(_rule(operator, read, test, what, fields, said, version, defaults, source, module))
    for s in _sentences(constraints):
        pairs = [(m.group(1), m.group(2), m.start()) for m in phrases.ONLY_ASSIGNMENT.finditer(s)]
        for m in phrases.ONLY_ASSIGNMENTS.finditer(s):
            listed = phrases.ASSIGNMENT.findall(m.group(1))
            if all(name in params for name, _ in listed):  # a name that is no parameter: not a list of settings
                pairs += [(name, value, m.start()) for name, value in listed]
        for name, value, start in dict.fromkeys(pairs):
            if name not in params:
                continue
            clauses = phrases.CLAUSE_END.split(s[:start])
            given = phrases.GIVEN.match(clauses[-2]) if len(clauses) >= 2 and not clauses[-1].strip(" （(") else None
            if given is not None and given.group(1) in params and given.group(1) != name \
                    and not any(phrases.CONDITIONAL.search(c) for c in clauses[:-2]):
                rules.append(_rule(operator, [given.group(1), name], f"{given.group(1)} is not None and {name} != {value}",
                                   "values_given", {"parameter": name, "values": value, "switch": given.group(1)}, s,
                                   version, defaults, source, module))
            elif _free(s, start) and _satisfies(f"{name} != {value}", name, defaults[name]):
                rules.append(_rule(operator, [name], f"{name} != {value}", "values",
                                   {"parameter": name, "values": value}, s, version, defaults, source, module))
    return tuple({r["refused"]: r for r in reversed(rules)}[test] for test in dict.fromkeys(r["refused"] for r in rules))


def limits(tree: SourceTree, operator: str, sig: Signature | None) -> list[dict]:
    """The documented limits of ``torch_npu.<operator>`` as ``refused`` rules (api_values.yaml's shape)."""
    if tree.package != "torch_npu" or operator not in texts(tree):
        return []
    names = tuple(sig.positional + sig.keyword_only) if sig is not None else ()
    return list(_limits(id(tree), operator, names, tree.version))


def problems(tree: SourceTree, full: str, call: ast.Call, sig: Signature | None, done: set[str],
             built: frozenset[str] = frozenset()) -> list[tuple[list[str], str]]:
    """(parameters, sentence) for the documented limits of ``torch_npu.<operator>`` a call's arguments break, one a
    parameter, none for a parameter already reported (``done``)."""
    from npulab.lint.relations import rule_problems  # relations runs these rules; it does not need this module

    operator = full.removeprefix("torch_npu.")
    if "." in operator:
        return []
    out: list = []
    for rule in limits(tree, operator, sig):
        found = rule_problems(tree, full, call, sig, done | {p for read, _ in out for p in read}, built, [rule],
                              dtype_resolver)
        out += found[:1]
    return out


def dtype_resolver(resolve):
    """A resolve that reads ``torch.int8`` (or ``torch.half``) as the text ``'torch.int8'``, as the dtype rules list
    them; other names as ``resolve`` does."""
    def reading(node: ast.expr):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in ("torch", "torch_npu") \
                and node.attr.lower() in phrases.DTYPE_NAMES:
            return "torch." + phrases.DTYPE_ALIASES.get(node.attr.lower(), node.attr.lower())
        return resolve(node)
    return reading
