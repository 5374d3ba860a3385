#!/usr/bin/env python3
"""Regenerate npulab/data/env_values_mindspore.yaml: the value sets and ranges MindSpore's environment-variable
reference documents, read from every row of every table of the page — not chosen variable by variable.

The page is ``docs/mindspore/source_en/api_python/env_var_list.rst`` of https://github.com/mindspore-ai/docs (the
source of https://www.mindspore.cn/docs/en/master/api_python/env_var_list.html). Each ``list-table`` row gives a
variable, its type and its "Value Range" cell. A row becomes a grammar only where that cell closes the set:

- every paragraph of the cell (but ``Default…``) starts with a value and a colon (``0: Disable …``, ``MS_SCHED: …``,
  ``2 or unset: …``, "unset" not a value), two values at least: the values are the set;
- ``one of [0, 1, 2, 3, 4]``, or ``when set to N`` at least twice: the numbers are the set;
- an ``Integer`` row whose cell admits other values (``No setting or other value: …``): an integer;
- for an ``Integer`` row, ``a~b``, ``from a to b``, ``range of a to b``, ``[a, b]`` with numbers: the range;
  ``greater than 0``: the positive integers.

- ``1 for on, 0 for off.``: each value named before ``for`` (two at least) is the set;
- a paragraph that starts ``2 or not set:`` names the value 2 (the unset case is not a value);
- a ``String`` row of ``"key: value"`` configuration items (``MS_DEV_RUNTIME_CONF``, ``MS_ALLOC_CONF``): each
  paragraph ``key: …`` is a key; a key whose text lists ``possible values being 1) a: … 2) b: …`` takes those, one
  that starts ``Whether to`` takes true or false (compared without case); any other key, and any key the page does
  not list, stays open.

A cell that admits anything else (``No setting or other value``, ``Other values``, ``not set``, ``otherwise``, a
range that depends on the machine) gives no grammar. A "Default: 1." / "The default is 0." gives the ``default``,
and a notes cell that says ``used together with `MS_RDR_ENABLE=1``` gives ``requires: {name, enum}`` (the variable
takes effect only while the other has that value: npulab.env.env_values.unmet_requirements). Entries of npulab/data/env_vars.yaml, written by hand, win
over these. Usage: ``python scripts/extract_mindspore_env_values.py PATH_TO_env_var_list.rst COMMIT``.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import yaml

OUT = Path(__file__).resolve().parent.parent / "npulab" / "data" / "env_values_mindspore.yaml"
PAGE = "docs/mindspore/source_en/api_python/env_var_list.rst"
_OPEN = re.compile(r"other value|other values|not set|no setting|do not set|otherwise|any |e\.g\.|for example|"
                   r"actual devices|number of|path|\bor more\b", re.IGNORECASE)
_VALUE = r"[`'\"]?([A-Za-z0-9_.+-]+)[`'\"]?"
_LEAD = re.compile(rf"^{_VALUE}(?:\s+or\s+{_VALUE})?\s*:(?!:)")
_RANGE = re.compile(r"(-?\d+)\s*~\s*(-?\d+)|from\s+(-?\d+)\s+to\s+(-?\d+)|range of\s+(-?\d+)\s+to\s+(-?\d+)|"
                    r"\[\s*(-?\d+)\s*,\s*(-?\d+)\s*\]")


def rows(text: str):
    """(name, type, value cell, notes cell) of each row of each list-table: ``* - NAME`` then ``- cell`` items."""
    for block in re.split(r"\n   \* - ", text)[1:]:
        cells = re.split(r"\n     - ?", "\n     - " + block)[1:]
        if len(cells) >= 4 and re.fullmatch(r"[A-Z][A-Z0-9_]+", cells[0].strip()):
            yield cells[0].strip(), cells[2].strip(), cells[3], (cells[4] if len(cells) > 4 else "")


_FOR = re.compile(r"^(?:[`'\"]?([A-Za-z0-9_]+)[`'\"]? for [A-Za-z ]+?(?:, |\. |\.$|$))+")
_DEFAULT = re.compile(r"(?:^|\. )(?:The default is|Default(?: value)?:)\s*[`'\"]?([A-Za-z0-9_.-]+?)[`'\"]?\.?(?:\s|$)")
_REQUIRES = re.compile(r"used together with `([A-Z][A-Z0-9_]+)=([A-Za-z0-9]+)`")
_CHOICES = re.compile(r"possible values being (.*)$")


def kv_grammar(paragraphs: list[str]) -> dict | None:
    """``"key: value"`` configuration items: each later paragraph ``key: …`` a key, closed where its text lists the
    values (``possible values being 1) true: … 2) false: …``) or asks ``Whether to``; other keys open."""
    keys: dict[str, dict] = {}
    for paragraph in paragraphs[1:]:
        head = re.match(r"^([a-z][a-z0-9_]*): (.*)$", paragraph)
        if not head:
            return None
        key, text = head.groups()
        listed = _CHOICES.search(text)
        if listed:
            values = re.findall(r"\d\) ([A-Za-z0-9_]+)", listed.group(1))
            keys[key] = {"enum": values, "case_insensitive": True} if len(values) >= 2 else {"any": True}
        elif text.startswith("Whether to"):
            keys[key] = {"enum": ["true", "false"], "case_insensitive": True}
        else:
            keys[key] = {"any": True}
    if not any("enum" in k for k in keys.values()):
        return None
    return {"kv": keys, "key_patterns": {".*": {"any": True}}}


def extras(cell: str, notes: str) -> dict:
    """The ``default`` a value cell states and the ``requires`` a notes cell states."""
    out = {}
    default = _DEFAULT.search(" ".join(cell.split()))
    if default:
        out["default"] = default.group(1)
    needed = _REQUIRES.search(" ".join(notes.split()))
    if needed:
        out["requires"] = {"name": needed.group(1), "enum": [needed.group(2)]}
    return out


def _typed(kind: str) -> dict | None:
    """The "Type" column where the "Value Range" cell leaves the set open: an ``Integer`` variable takes an integer
    (``MS_DEV_LAUNCH_BLOCKING``: ``1`` or any other value; ``true`` is none of them)."""
    return {"integer": True} if kind.lower().startswith("integer") else None


def grammar(kind: str, cell: str) -> dict | None:
    """The grammar a "Value Range" cell states, or None where it admits values it does not list."""
    paragraphs = [" ".join(p.split()) for p in re.split(r"\n\s*\n", cell) if p.strip()]
    paragraphs = [p for p in paragraphs if not p.lower().startswith("default")]
    if not paragraphs:
        return None
    paragraphs = [re.sub(r"^([`'\"]?[A-Za-z0-9_.+-]+[`'\"]?) or (?:not set|unset)\s*:", r"\1:", p) for p in paragraphs]
    whole = " ".join(paragraphs)
    listed = re.search(r"one of \[([^\]]+)\]", whole)
    if listed:
        return {"enum": [v.strip() for v in listed.group(1).split(",")]}
    if kind.lower().startswith("string") and re.search(r'format "key: ?value"', paragraphs[0]):
        return kv_grammar(paragraphs)
    said_for = _FOR.match(re.sub(r"\s*The default is [^.]+\.?$", "", paragraphs[0]))
    if len(paragraphs) == 1 and said_for and said_for.end() == len(re.sub(r"\s*The default is [^.]+\.?$", "", paragraphs[0])):
        values = re.findall(r"[`'\"]?([A-Za-z0-9_]+)[`'\"]? for ", said_for.group(0))
        if len(set(values)) >= 2:
            return {"enum": values}
    if "not set" in whole.lower() or "no setting" in whole.lower() or "other value" in whole.lower():
        return _typed(kind)
    leads = [_LEAD.match(p) for p in paragraphs]
    if all(leads) and len(leads) >= 2:
        values = [v for m in leads for v in m.groups() if v and v.lower() not in ("unset", "empty")]
        if len(set(values)) >= 2 and not any(" " in v for v in values):
            return {"enum": list(dict.fromkeys(values))}
    set_to = re.findall(r"when set to (-?\d+)", whole)
    if len(set_to) >= 2 and not _OPEN.search(whole):
        return {"enum": list(dict.fromkeys(set_to))}
    if kind.lower().startswith("integer") and not _OPEN.search(whole):
        found = _RANGE.search(whole)
        if found:
            low, high = (int(v) for v in found.groups() if v is not None)
            return {"int": [low, high]}
        if re.search(r"integers? greater than 0|positive integers?", whole, re.IGNORECASE):
            return {"int": [1, None]}
    return _typed(kind)


def main(path: str, commit: str) -> None:
    text = Path(path).read_text(encoding="utf-8")
    out = {}
    for name, kind, cell, notes in rows(text):
        spec = grammar(kind, cell)
        if spec is None or name in out:
            continue
        spec = {**spec, **(extras(cell, notes) if "enum" in spec or "int" in spec else {})}
        said = " ".join(cell.split())
        said = said if len(said) <= 240 else said[:237] + "…"
        source = f"https://github.com/mindspore-ai/docs/blob/{commit}/{PAGE} ({name}, {kind}: {said})"
        out[name] = {**spec, "source": source, "source_en": source}
    header = ("# Generated by scripts/extract_mindspore_env_values.py from MindSpore's environment-variable reference\n"
              f"# (https://github.com/mindspore-ai/docs/blob/{commit}/{PAGE}): every row whose \"Value Range\" cell\n"
              "# closes the set (or, for an Integer row left open, takes an integer). Do not edit by hand: entries of env_vars.yaml's `values` win over these.\n")
    OUT.write_text(header + yaml.safe_dump({"values": out}, allow_unicode=True, sort_keys=True, width=200),
                   encoding="utf-8")
    print(f"{len(out)} variables -> {OUT}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
