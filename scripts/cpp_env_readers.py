"""What C++ code does with an environment variable it reads (used by scripts/extract_env_value_parsers.py).

Read from the source text, function by function, never variable by variable:

- **a read**: ``V = getenv("N")`` / ``std::getenv`` / any function whose parameter it hands to one and whose result it
  returns (torch_npu's ``get_and_log_env``); a function that hands its parameter to a read and converts the value with
  ``strtol`` (torch_npu's ``OptionsManager::GetBoolTypeOption``) reads an integer.
- **what follows the read**, up to the end of its block: ``strtol``/``atoi``/``std::stoi``/``std::stol`` of ``V`` gives an
  integer ``X``, closed by ``switch (X)`` whose ``default:`` raises (``TORCH_CHECK(false``) or warns and resets, by
  ``M.find(X) == M.end()`` with ``M`` a ``std::unordered_map`` a function builds from literal keys, by
  ``TORCH_CHECK(X > n)`` / ``>=``, by ``if (X < n) {… WARN`` (reset), by ``if (X != a && X != b) {… WARN``; a comparison
  of ``V`` (or of a ``std::string`` copy, ``tolower``-ed or not) with literals (``strcmp(V, "1") == 0``, ``S == "true"``)
  gives a switch. A ``std::string`` copy handed with a literal character to a function (``R = Split(S, ',')``) whose item count
  ``R.size() != n`` returns (the default) and whose items are converted with ``std::stod``/``std::stoi`` gives a list of
  exactly ``n`` numbers; a clamp ``x = x >= m ? x : m`` of every item gives their lower bound (a smaller one is read as
  ``m``). A null test or a log line says nothing; any other use of ``V`` leaves the value open.
- **a reader function**: a function that reads the variable its parameter names (``GetSilenceThresh(env_str, …)``) is
  followed as a read at each call with a literal name.
- **options initialised from the environment** (torch_npu ``REGISTER_OPTION_INIT_BY_ENV(name)``: the variable is the
  upper-cased name) and read by ``REGISTER_OPTION_BOOL_FUNCTION*(func, name, default, true)``: a switch of the literals.

Each reading carries ``enforced``: True where the code raises on every other value (the set is the parser's own
contract), False where it warns and falls back, or merely converts.
"""

from __future__ import annotations

import re

_NAME = r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+"
_BASE_READERS = ("getenv", "std::getenv")
_RAISES = re.compile(r"TORCH_CHECK\(\s*false|AT_ERROR\(|throw ")
_WARNS = re.compile(r"WARN")
_LOG_LINE = re.compile(r"LOG[A-Z]*\(|WARN[A-Z_]*\(")
_FUNCTION = re.compile(r"\b([A-Za-z_][\w:]*)\s*\(([^()]*)\)\s*(?:const\s*)?(?:noexcept\s*)?\{")
_COMMENT = re.compile(r'("(?:\\.|[^"\\\n])*")|//[^\n]*|/\*.*?\*/', re.S)
_TO_INT = r"(?:std::)?(?:strtol|strtoll|atoi|atol|stoi|stol|stoll)"


def _block_end(text: str, start: int) -> int:
    """Index just past the brace block that opens at ``text[start] == '{'``."""
    return min(_enclosing_end(text, start + 1) + 1, len(text))


def _enclosing_end(text: str, pos: int) -> int:
    """Index of the ``}`` closing the innermost block around ``pos``."""
    depth = 0
    for i in range(pos, len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            if depth == 0:
                return i
            depth -= 1
    return len(text)


def functions(text: str) -> list[tuple[str, list[str], str]]:
    """(name, parameter names, body) of each function definition (and lambda-free method) in a source."""
    out = []
    for found in _FUNCTION.finditer(text):
        name = found.group(1).split("::")[-1]
        if name in {"if", "for", "while", "switch", "catch", "return", "sizeof"}:
            continue
        params = [p.strip().split()[-1].lstrip("*&") for p in found.group(2).split(",") if p.strip()]
        params = [p.split("=")[0].strip() for p in params]
        out.append((name, params, text[found.end() - 1:_block_end(text, found.end() - 1)]))
    return out


def reader_functions(files: dict[str, str]) -> tuple[set[str], set[str], dict[str, tuple[str, str]]]:
    """Functions returning the value they read for their parameter, those converting it with ``strtol``, and the others
    (name -> (the body after the read, the variable holding the value)), followed as a read at each call."""
    passing, integer, parsing = set(_BASE_READERS), set(), {}
    defs = [d for text in files.values() for d in functions(text)]
    for _ in range(3):  # a wrapper of a wrapper
        for name, params, body in defs:
            for param in params:
                call = re.search(rf"(\w+)\s*=\s*({_alternatives(passing)})\(\s*{re.escape(param)}(?:\.c_str\(\))?\s*\)", body)
                if not call:
                    continue
                var = call.group(1)
                if re.search(rf"return\s+{re.escape(var)}\s*;", body) and name not in _BASE_READERS:
                    passing.add(name)
                elif re.search(rf"{_TO_INT}\(\s*{re.escape(var)}\b", body):
                    integer.add(name)
                elif name not in _BASE_READERS:
                    parsing[name] = (body[call.end():], var)
    return passing, integer, {k: v for k, v in parsing.items() if k not in passing | integer}


def _alternatives(names) -> str:
    return "|".join(rf"(?<![\w:]){re.escape(n)}" if "::" in n else rf"(?<![\w])(?:\w+::)*{re.escape(n)}"
                    for n in sorted(names, key=len, reverse=True))


def _map_keys(files: dict[str, str], builder: str) -> list[str] | None:
    """The literal keys of the map a function ``builder()`` returns, where it builds it from literals."""
    for text in files.values():
        found = re.search(rf"\b{re.escape(builder)}\(\)\s*\{{", text)
        if found:
            body = text[found.end() - 1:_block_end(text, found.end() - 1)]
            init = re.search(r"=\s*\{(.*)\};", body, re.S)
            if init:
                keys = re.findall(r"\{\s*(-?[0-9]+)\s*,", init.group(1))
                return keys or None
    return None


def _after(text: str, pos: int) -> str:
    """The statement or block run when the condition ending at ``pos`` holds."""
    rest = text[pos:]
    brace = re.match(r"\s*\)?\s*\{", rest)
    if brace:
        start = pos + brace.end() - 1
        return text[start:_block_end(text, start)]
    return rest.split(";", 1)[0]


def _fallback(branch: str) -> bool | None:
    """True: the branch raises; False: it warns (and falls back); None: neither."""
    if _RAISES.search(branch):
        return True
    if _WARNS.search(branch):
        return False
    return None


def _integer_closure(scope: str, var: str, files: dict[str, str]) -> tuple[dict, bool | None]:
    """The set or range the code holds the converted integer ``var`` to, and whether it raises outside it."""
    v = re.escape(var)
    switch = re.search(rf"switch\s*\(\s*{v}\s*\)\s*\{{", scope)
    if switch:
        block = scope[switch.end() - 1:_block_end(scope, switch.end() - 1)]
        default = re.search(r"\bdefault\s*:(.*)", block, re.S)
        how = _fallback(default.group(1)) if default else None
        cases = re.findall(r"\bcase\s+(-?[0-9]+)\s*:", block)
        if how is not None and cases:
            return {"enum": cases}, how
        return {"integer": True}, None
    found = re.search(rf"(\w+)\.find\(\s*(?:static_cast<\w+>\()?{v}\)?\s*\)\s*==\s*\1\.end\(\)", scope)
    if found:
        builder = re.search(rf"\b{found.group(1)}\s*=\s*(\w+)\(\)", scope)
        keys = _map_keys(files, builder.group(1)) if builder else None
        how = _fallback(_after(scope, found.end()))
        if keys and how is not None:
            return {"enum": keys}, how
    check = re.search(rf"TORCH_CHECK\(\s*{v}\s*(>=|>)\s*([0-9]+)\s*,", scope)
    if check:
        low = int(check.group(2)) + (1 if check.group(1) == ">" else 0)
        return {"int": [low, None]}, True
    reset = re.search(rf"if\s*\(\s*{v}\s*(<=|<)\s*([0-9]+)\s*\)", scope)
    if reset and _fallback(_after(scope, reset.end() - 1)) is False:
        low = int(reset.group(2)) + (1 if reset.group(1) == "<=" else 0)
        return {"int": [low, None]}, False
    allowed = re.search(rf"if\s*\(\s*({v}\s*!=\s*-?[0-9]+(?:\s*&&\s*{v}\s*!=\s*-?[0-9]+)+)\s*\)", scope)
    if allowed and _fallback(_after(scope, allowed.end() - 1)) is not None:
        return {"enum": re.findall(r"!=\s*(-?[0-9]+)", allowed.group(1))}, _fallback(_after(scope, allowed.end() - 1))
    return {"integer": True}, None


def _uses(scope: str, var: str) -> list[tuple[int, str]]:
    """Each use of ``var`` in ``scope`` with its statement."""
    out = []
    for found in re.finditer(rf"(?<![\w.]){re.escape(var)}\b", scope):
        start = max(scope.rfind(c, 0, found.start()) for c in ";{}") + 1
        end = scope.find(";", found.end())
        out.append((found.start(), scope[start:end if end >= 0 else None]))
    return out


def _read_value(scope: str, var: str, files: dict[str, str]) -> dict | None:
    """What the code after a read does with the value held in ``var``; None where it is left open."""
    literals, casefold, integer = set(), False, None
    for pos, line in _uses(scope, var):
        tail = scope[pos:]
        if _LOG_LINE.search(line) or re.match(rf"{re.escape(var)}\s*[!=]=\s*(?:nullptr|NULL)\b", tail) \
                or re.search(rf"!\s*{re.escape(var)}\b|if\s*\(\s*{re.escape(var)}\s*\)", line):
            continue
        conv = re.search(rf"{_TO_INT}\(\s*{re.escape(var)}\b", line)
        if conv:
            lhs = re.match(r"\s*(?:(?:const|static|[\w:<>]+)[\s*&]+)*(\w+)\s*=(?!=)", line)
            result = lhs.group(1) if lhs else None
            direct = re.search(rf"{_TO_INT}\(\s*{re.escape(var)}\b[^)]*\)\s*(==|!=)\s*(-?[0-9]+)", line)
            if result:
                spec, how = _integer_closure(scope, result, files)
            else:
                spec, how = {"integer": True}, None
            if direct and not result:
                spec = {"integer": True}
            if integer not in (None, (spec, how)):
                return None
            integer = (spec, how)
            continue
        compared = re.search(rf"strcmp\(\s*{re.escape(var)}\s*,\s*\"([^\"]*)\"\s*\)\s*[!=]=\s*0|"
                             rf"std::string\(\s*{re.escape(var)}\s*\)\s*[!=]=\s*\"([^\"]*)\"", line)
        if compared:
            literals.add(compared.group(1) if compared.group(1) is not None else compared.group(2))
            continue
        copy = re.search(rf"std::string\s+(\w+)\s*(?:\(\s*{re.escape(var)}\s*\)|=\s*{re.escape(var)}\s*;|"
                         rf"=\s*\(\s*{re.escape(var)}\s*!=\s*(?:nullptr|NULL)\s*\)\s*\?\s*std::string\(\s*{re.escape(var)}\s*\)\s*:)",
                         line)
        if copy and (items := _split_value(scope[pos:], copy.group(1))):
            if integer not in (None, items):
                return None
            integer = items
            continue
        if copy:
            inner = _copy_value(scope[pos:], copy.group(1))
            if inner is None:
                return None
            literals |= inner[0]
            casefold = casefold or inner[1]
            continue
        return None
    if integer and not literals:
        return {"spec": integer[0], "enforced": integer[1] is True, "how": _how(integer)}
    if literals and not integer:
        return {"switch": literals, "casefold": casefold}
    return None


def _split_value(scope: str, copy: str) -> tuple[dict, bool] | None:
    """A ``std::string`` copy split on a literal character into exactly ``n`` numbers (any other count returns, the
    default), each converted and, where every one is, clamped from below: (grammar, False: falls back), or None."""
    split = re.search(rf"(\w+)\s*=\s*(?:\w+::)*\w+\(\s*{copy}\s*,\s*'(.)'\s*\)", scope)
    if not split:
        return None
    parts, separator = split.group(1), split.group(2)
    count = re.search(rf"if\s*\(\s*{parts}\.size\(\)\s*!=\s*([0-9]+)\s*\)\s*\{{?\s*return\b", scope)
    items = re.findall(rf"(\w+)\s*=\s*std::sto(d|f|i|l|ll)\(\s*{parts}\[[0-9]+\]\s*\)", scope)
    if not count or len(items) != int(count.group(1)) or len({kind for _, kind in items}) != 1:
        return None
    lows = {(m.group(1) if (m := re.search(rf"\b{x}\s*=\s*{x}\s*>=\s*([0-9.]+)\s*\?\s*{x}\s*:\s*([0-9.]+)\s*;", scope))
             and m.group(1) == m.group(2) else None) for x, _ in items}
    number = items[0][1] in ("d", "f")
    low = next(iter(lows)) if len(lows) == 1 else None
    item = ({"float": [float(low) if "." in low else int(low), None]} if number else {"int": [int(low), None]}) if low is not None else \
        ({"number": True} if number else {"integer": True})
    return {"list": item, "count": int(count.group(1)), "separator": separator, "ignore_spaces": True}, False


def _copy_value(scope: str, copy: str) -> tuple[set, bool] | None:
    """Literals a ``std::string`` copy is compared with, and whether it was lower-cased first."""
    literals, casefold = set(), False
    for _, line in _uses(scope, copy)[1:]:
        if re.search(rf"transform\(\s*{copy}\.begin\(\)[^;]*::tolower", line):
            casefold = True
            continue
        found = re.findall(rf"{copy}\s*[!=]=\s*\"([^\"]*)\"", line)
        if found:
            literals |= set(found)
            continue
        if _LOG_LINE.search(line):
            continue
        return None
    return literals, casefold


def _how(integer: tuple[dict, bool | None]) -> str:
    spec, how = integer
    if "count" in spec:
        low = next(iter(spec["list"].values()))
        return (f"split on `{spec['separator']}`: any count but {spec['count']} falls back to the default"
                + (f"; an item below {low[0]:g} is read as {low[0]:g}" if isinstance(low, list) else ""))
    if how is True:
        return "strtol, anything else raises (TORCH_CHECK)"
    if how is False:
        return "strtol, anything else warns and falls back to the default"
    return "strtol (an integer; trailing text is dropped)"


def _line(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def _uncommented(text: str) -> str:
    """The source with its comments blanked (line numbers kept; string literals left alone)."""
    return _COMMENT.sub(lambda m: m.group(1) or "\n" * m.group(0).count("\n"), text)


def env_readers(files: dict[str, str]) -> dict[str, list[dict]]:
    """name -> readings: ``{"spec": …, "enforced": bool, "how": str}`` or ``{"switch": literals, "casefold": bool}``,
    or ``{"open": True}``, each with ``where`` (path:line)."""
    files = {path: _uncommented(text) for path, text in files.items()}
    passing, integer, parsing = reader_functions(files)
    direct = re.compile(rf"(\w+)\s*=\s*({_alternatives(passing)})\(\s*\"({_NAME})\"\s*\)")
    anywhere = re.compile(rf"({_alternatives(passing | integer)})\(\s*\"({_NAME})\"")
    helper = re.compile(rf"({_alternatives(integer)})\(\s*\"({_NAME})\"")
    out: dict[str, list[dict]] = {}
    for path, text in sorted(files.items()):
        assigned = set()
        for found in direct.finditer(text):
            assigned.add(found.start(2))
            scope = text[found.end():_enclosing_end(text, found.end())]
            reading = _read_value(scope, found.group(1), files) or {"open": True}
            out.setdefault(found.group(3), []).append({**reading, "where": f"{path}:{_line(text, found.start())}"})
        for found in helper.finditer(text):
            assigned.add(found.start(1))
            out.setdefault(found.group(2), []).append(
                {"spec": {"integer": True}, "enforced": False, "how": f"{found.group(1).split('::')[-1]}: strtol (an integer)",
                 "where": f"{path}:{_line(text, found.start())}"})
        for found in anywhere.finditer(text):
            if found.start(1) not in assigned:  # a read whose value is handed on directly (returned, formatted): open
                out.setdefault(found.group(2), []).append({"open": True, "where": f"{path}:{_line(text, found.start())}"})
        for found in (re.finditer(rf"(?<![\w:])(?:\w+::)*({_alternatives(parsing)})\(\s*\"({_NAME})\"", text) if parsing else ()):
            body, var = parsing[found.group(1).split("::")[-1]]
            reading = _read_value(body[:_enclosing_end(body, 0)], var, files) or {"open": True}
            out.setdefault(found.group(2), []).append({**reading, "where": f"{path}:{_line(text, found.start())}"})
        env_options = {m.group(1) for m in re.finditer(r"REGISTER_OPTION_INIT_BY_ENV\(\s*(\w+)\s*\)", text)}
        for found in re.finditer(r"REGISTER_OPTION_BOOL_FUNCTION(_ALL_CASE|_UNIQ)?\(\s*\w+\s*,\s*(\w+)\s*,((?:\s*\"[^\"]*\"\s*,?)+)\)",
                                 text):
            if found.group(2) in env_options:
                values = re.findall(r"\"([^\"]*)\"", found.group(3))
                out.setdefault(found.group(2).upper(), []).append(
                    {"switch": set(values), "casefold": False, "where": f"{path}:{_line(text, found.start())}"})
    return out
