"""The NPU stack's own messages: which component of the stack raised or logged an error line, by its message alone.

``npulab/data/npu_messages.yaml`` holds, per component (MindSpore, torch_npu, vLLM-Ascend), the templates of the
messages its released code raises or logs, extracted by ``scripts/extract_npu_messages.py`` from the pinned
artifacts (the wheels' Python sources and the strings of their C++ libraries, vLLM-Ascend's sources at a commit; the
file's header names them), each under the place that raises it (round 30: the file, and for a Python source the
function; :mod:`npulab.env.explain.subsystem` reads a place as the component's subsystem). A template is literal text with ``<*>`` for a value; it matches a line that contains its
literal parts in order (a C++ message streamed with ``<<`` is stored as its parts, each found anywhere in the line).

A log that shows no machine but whose root error line is one of these messages is an error of that component, so an
Ascend log (issue 36, round 20): ``explain`` is never silent on it, and the failing component is that package.

    >>> said_by("TypeError: Multiply values for specific argument: query_embeds")
    ('mindspore', 'mindspore')
    >>> said_by("FileNotFoundError: [Errno 2] No such file or directory: 'x'") is None
    True
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import yaml

MESSAGES_PATH = Path(__file__).resolve().parents[2] / "data" / "npu_messages.yaml"
WILD = "<*>"
MAX_TEXT = 4000  # characters of a line compared, at most
_SPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class Template:
    """One message template: its component (import name), the component's pip name, the literal parts and the place
    that raises it (``path`` or ``path:function``; empty when unknown)."""

    component: str
    pip: str
    parts: tuple[str, ...]
    anchor: str  # the longest part: a line that lacks it cannot match
    place: str = ""

    @property
    def path(self) -> str:
        """The file that raises the message (the place without its function)."""
        return self.place.split(":", 1)[0]

    @property
    def function(self) -> str:
        """The function that raises the message (empty for a library's string)."""
        return self.place.split(":", 1)[1] if ":" in self.place else ""

    def matches(self, text: str) -> bool:
        """Whether the line holds the literal parts in order (anything between, before and after them)."""
        at = 0
        for part in self.parts:
            at = text.find(part, at)
            if at < 0:
                return False
            at += len(part)
        return True


def parse(component: str, pip: str, template: str, place: str = "") -> Template | None:
    """A template from its text (``<*>`` for a value); None when it holds no literal text."""
    parts = tuple(p for p in (_SPACE.sub(" ", p).strip() for p in template.split(WILD)) if p)
    if not parts:
        return None
    return Template(component, pip, parts, max(parts, key=len), place)


def load(path: Path = MESSAGES_PATH) -> tuple[Template, ...]:
    """Every template of the index (none when the file is absent)."""
    if not path.is_file():
        return ()
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    with path.open(encoding="utf-8") as f:
        data = yaml.load(f, Loader=loader) or {}
    found = []
    for component, entry in (data.get("components") or {}).items():
        for place, texts in (entry.get("raised") or {}).items():
            for text in texts or ():
                template = parse(component, entry.get("pip") or component, text, place)
                if template is not None:
                    found.append(template)
    return tuple(found)


@lru_cache(maxsize=1)
def packaged() -> tuple[Template, ...]:
    return load()


def raised_by(text: str, templates: tuple[Template, ...] | None = None) -> Template | None:
    """The template the line is, or None. The longest template that matches wins (the most specific message)."""
    line = _SPACE.sub(" ", text[:MAX_TEXT])
    best = None
    for template in packaged() if templates is None else templates:
        if template.anchor in line and template.matches(line):
            if best is None or sum(map(len, template.parts)) > sum(map(len, best.parts)):
                best = template
    return best


def said_by(text: str, templates: tuple[Template, ...] | None = None) -> tuple[str, str] | None:
    """The component (import name, pip name) whose message the line is, or None."""
    best = raised_by(text, templates)
    return (best.component, best.pip) if best else None
