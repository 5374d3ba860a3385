"""lint-npu, launcher command lines read by the launcher's OWN parser: torchrun's and msrun's ``argparse`` parsers
from the pinned torch / mindspore installed here, then the values the launcher's code parses after argparse
(npulab/data/cli_tools.yaml ``parsers``: torchrun's ``Std.from_str`` for ``--redirects``/``--tee``, the rendezvous
config's ``key=value`` pairs, ``--nnodes`` as ``MIN:MAX``, ``--local-ranks-filter``'s integers).

Nothing is started and nothing touches the network: the parser parses the cell's tokenised command line and the named
functions convert single values; the function run on the whole namespace (``walk``: torchrun's ``config_from_args``,
which reads the machine's accelerators) is walked by npulab.lint.own_checks over the parsed values, never run. The package is imported only when a cell has such a line, and only when the
installed release is the pinned one (lint-npu's Context says so). An argparse error or an exception of one of those
functions is a finding, quoted in the tool's own words. Values written as placeholders (``$PORT``, ``{n}``, ``<n>``)
are left out with their flag, and ``-h``/``--help`` is never passed.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import importlib
import io
import os
import re
import sys

from npulab.core.i18n import localized, t

_PLACEHOLDER = re.compile(r"PYVAR|[$<>{}]")


def _resolve(dotted: str):
    """The object named by a dotted path: the longest importable module, then attributes (``int`` is the builtin)."""
    if "." not in dotted:
        return getattr(builtins, dotted)
    parts = dotted.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        saved = dict(os.environ)  # importing mindspore sets variables (HCCL_CONNECT_TIMEOUT …): keep ours as they were
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        finally:
            os.environ.clear()
            os.environ.update(saved)
        for name in parts[cut:]:
            obj = getattr(obj, name)
        return obj
    raise ImportError(dotted)


def launcher_args(args: list[str], leave_out: list[str] = ()) -> list[str]:
    """The arguments to give the parser: help flags dropped; a flag whose value is a placeholder, or one the table
    leaves out (its conversion reads a file of the learner's machine), dropped with its value (``--x=v`` or
    ``--x v``). The parser itself tells the script and its arguments apart."""
    out, i = [], 0
    while i < len(args):
        tok = args[i]
        flag, sep, value = tok.partition("=")
        following = args[i + 1] if i + 1 < len(args) and not sep and tok.startswith("-") else ""
        if tok in ("-h", "--help") or (sep and tok.startswith("-") and (_PLACEHOLDER.search(value) or flag in leave_out)):
            i += 1
        elif following and not following.startswith("-") and (_PLACEHOLDER.search(following) or flag in leave_out):
            i += 2
        else:
            out.append(tok)
            i += 1
    return out


def _error_line(text: str) -> str:
    """argparse's ``prog: error: …`` line without the program name."""
    lines = [line for line in text.splitlines() if ": error: " in line]
    return lines[-1].split(": error: ", 1)[1].strip() if lines else text.strip().splitlines()[-1] if text.strip() else ""


def parse(entry: dict, tool: str, args: list[str]) -> tuple[object | None, object | None, str | None]:
    """(namespace, parser, error) of one command line parsed by the tool's own parser; the parser is None where the
    tool's function parses ``sys.argv`` itself (msrun's ``get_args``)."""
    err = io.StringIO()
    parser = None
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            if "parser" in entry:
                parser = _resolve(entry["parser"])()
                return parser.parse_args(args), parser, None
            saved = sys.argv
            sys.argv = [tool, *args]
            try:
                return _resolve(entry["argv"])(), None, None
            finally:
                sys.argv = saved
        except SystemExit:
            return None, parser, _error_line(err.getvalue())


def _after(entry: dict, namespace, parser) -> str | None:
    """The first error of the functions the launcher's code runs on parsed values (``then``)."""
    for step in entry.get("then", []):
        value = getattr(namespace, step["dest"], None)
        if value is None or (parser is not None and value == parser.get_default(step["dest"])):
            continue
        convert = _resolve(step["call"])
        try:
            for item in (value.split(step["items"]) if "items" in step else [value]):
                convert(item)
        except Exception as exc:  # the launcher's own refusal, whatever its type
            return t("lint.own_parser.raised", flag=step["flag"], kind=type(exc).__name__, error=str(exc).strip(),
                     call=step["call"])
    return None


def _walked(entry: dict, namespace, parser, tree) -> str | None:
    """The first refusal of the function the launcher runs on the whole namespace (``walk``: torchrun's
    ``config_from_args``), walked over the parsed values by npulab.lint.own_checks, never run (it reads the
    machine's accelerators and sets OMP_NUM_THREADS); one the parser's defaults meet too is not the line's."""
    from npulab.lint import callees, own_checks

    function = callees.of_definition(tree, entry["walk"]) if "walk" in entry and tree is not None else None
    if function is None or parser is None or namespace is None or not function.params:
        return None

    def refused(values: dict) -> dict:
        fields = own_checks.Fields(tuple((k, v if isinstance(v, (str, int, float, bool, type(None))) else own_checks.UNKNOWN)
                                         for k, v in values.items()))
        bound = own_checks.bind_values(function, [fields], {})
        return {(r.origin, r.line): r for r in own_checks.refusals_of(function, bound)} if bound is not None else {}

    found = refused(vars(namespace))
    plain = refused({k: parser.get_default(k) for k in vars(namespace)}) if found else {}
    for key, refusal in found.items():
        if key not in plain:
            return t("lint.own_parser.walked", test=ast.unparse(refusal.test), kind=refusal.raises or "",
                     function=refusal.origin or entry["walk"])
    return None


def problems(tool: str, args: list[str], entry: dict, version: str, tree=None) -> list[str]:
    """Sentences for one launcher command line that its own parser or the code after it refuses."""
    namespace, parser, error = parse(entry, tool, args)
    if error is None:
        error = _after(entry, namespace, parser) or _walked(entry, namespace, parser, tree)
    if not error:
        return []
    where = t("lint.own_parser.where", package=entry["package"], version=version,
              function=entry.get("parser") or entry["argv"], source=localized(entry, "source"))
    return [t("lint.own_parser.refused", tool=tool, command=" ".join([tool, *args])[:120], error=error, where=where)]
