"""Where a package that pip or uv cannot find is published, when the course's stack table records it outside PyPI
(npulab/data/stacks.yaml, ``outside_pypi`` entries with an ``index``): triton-ascend from Ascend's pip index, for one."""

from __future__ import annotations

import functools
import re

from npulab.core.i18n import localized, t

# "triton-ascend==3.2.2", "triton_ascend>=3.2", "'torch-npu==2.7.1'": the name and the version pinned, if any
_REQUIREMENT = re.compile(r"^['\"]?([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?(?:\s*(==|>=|<=|~=|>|<)\s*([\w.*+!-]+))?")


@functools.cache
def _published() -> dict[str, list[dict]]:
    """canonical package name -> the ``outside_pypi`` entries with an index, over every stack."""
    from npulab.env.stacks import canonical, load

    found: dict[str, list[dict]] = {}
    for stack in load().values():
        for entry in stack.get("outside_pypi", []):
            if entry.get("index") and entry not in found.get(canonical(entry["name"]), []):
                found.setdefault(canonical(entry["name"]), []).append(entry)
    return found


def hint(requirement: str) -> str | None:
    """The index and the install command for a requirement the resolver found no version of; None if the table does
    not place that package outside PyPI."""
    from npulab.env.stacks import canonical

    m = _REQUIREMENT.match(requirement.strip())
    if not m:
        return None
    entries = _published().get(canonical(m.group(1)))
    if not entries:
        return None
    pinned = m.group(3) if m.group(2) == "==" else None
    entry = next((e for e in entries if e["version"] == pinned), entries[0])
    version = pinned or entry["version"]
    command = f"pip install {m.group(1)}=={version} --extra-index-url {entry['index']}"
    return t("explain.component.outside_pypi", name=m.group(1), where=localized(entry, "where"), command=command)
