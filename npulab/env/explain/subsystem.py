"""The subsystem of the NPU stack that raises a message (issue 36, round 30).

``npulab/data/npu_messages.yaml`` lists each template under the place its released code raises it (a file, and for
a Python source the function). ``npulab/data/npu_subsystems.yaml`` reads a place as the component's subsystem by the
package's own layout (the folder or library the file is in: the HCCL wrapper, the data engine, the graph compiler …),
with the component's own page on that subsystem's errors where it has one.

    >>> found = of(stack.Template("torch_npu", "torch-npu", ("x",), "x", "torch_npu/distributed/distributed_c10d.py:f"))
    >>> found.prefix, found.name("en")
    ('torch_npu/distributed/', 'distributed communication (the HCCL wrapper)')
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import yaml

from npulab.core.i18n import localized
from npulab.env.explain import stack

SUBSYSTEMS_PATH = Path(__file__).resolve().parents[2] / "data" / "npu_subsystems.yaml"


@dataclass(frozen=True)
class Subsystem:
    """A subsystem of one component: the path prefix of its files, its name and its page (or empty)."""

    component: str
    product: str
    prefix: str
    name_zh: str
    name_en: str
    doc: str = ""

    def name(self, lang: str | None = None) -> str:
        return localized({"name": self.name_zh, "name_en": self.name_en}, "name", lang)


def load(path: Path = SUBSYSTEMS_PATH) -> tuple[Subsystem, ...]:
    """Every subsystem of the table (none when the file is absent)."""
    if not path.is_file():
        return ()
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    found = []
    for component, entry in data.items():
        for row in entry.get("subsystems") or ():
            found.append(Subsystem(component, entry["product"], row["path"], row["name"], row["name_en"],
                                   row.get("doc") or ""))
    return tuple(found)


@lru_cache(maxsize=1)
def packaged() -> tuple[Subsystem, ...]:
    return load()


def of(template: stack.Template, table: tuple[Subsystem, ...] | None = None) -> Subsystem | None:
    """The subsystem whose path prefix is the longest that the template's file starts with, or None."""
    path = template.path
    best = None
    for row in packaged() if table is None else table:
        if row.component == template.component and path.startswith(row.prefix):
            if best is None or len(row.prefix) > len(best.prefix):
                best = row
    return best
