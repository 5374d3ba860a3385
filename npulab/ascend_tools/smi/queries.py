"""The npu-smi query types as data (``npulab/data/npu_smi_queries.yaml``) and a reader for ``npu-smi info -h``."""

from __future__ import annotations

import re

from npulab.core.i18n import localized
from npulab.core.paths import DATA_DIR, load_yaml

QUERIES_FILE = DATA_DIR / "npu_smi_queries.yaml"


def load() -> dict:
    """The data file: ``sources``, ``commands`` and ``types`` (each with name, group, args, what, sources)."""
    return load_yaml(QUERIES_FILE)


def types() -> list[dict]:
    """Every ``-t`` query type in the data file."""
    return list(load()["types"])


def groups() -> dict[str, list[str]]:
    """Query type names by group (硬件信息, 实时状态, 健康与错误 …; in English with ``group_en``), in file order."""
    out: dict[str, list[str]] = {}
    for entry in types():
        out.setdefault(localized(entry, "group"), []).append(entry["name"])
    return out


def parse_help(text: str) -> dict:
    """``npu-smi info -h`` → ``{"commands": {name: text}, "types": [...], "options": {flag: text}}``.

    The type list may wrap over several lines and may be cut off; a last name without its comma or final
    full stop is kept (``"pkcs-e"`` from a truncated copy stays ``"pkcs-e"``) and ``"truncated": True`` is set.
    """
    commands: dict[str, str] = {}
    options: dict[str, str] = {}
    names: list[str] = []
    section, in_types, ended = None, False, False
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("[..."):
            continue
        if re.match(r"(Commands|Options):", stripped):
            section, in_types = stripped[:-1].lower(), False
            continue
        if "type:" in stripped:
            in_types = True
            stripped = stripped.split("type:", 1)[1]
        if in_types:
            ended = ended or stripped.rstrip().endswith(".")
            names += [n.strip(" .") for n in stripped.split(",") if n.strip(" .")]
            in_types = not ended
            continue
        parts = re.split(r"\s{2,}", stripped, maxsplit=1)
        if section == "commands" and len(parts) == 2:
            commands[parts[0]] = parts[1]
        elif section == "options" and len(parts) == 2:
            options[parts[0]] = parts[1]
    return {"commands": commands, "types": names, "options": options, "truncated": bool(names) and not ended}
