"""What the tests of npulab's English (issue 37) share: the Chinese characters, and the check that a text has none."""

from __future__ import annotations

import re

CJK = re.compile(r"[\u4e00-\u9fff]")


def no_cjk(text: str) -> str:
    """``text`` itself, after asserting it holds no Chinese character (the failure shows where one is)."""
    found = CJK.search(text)
    assert found is None, f"Chinese in English output near: {text[max(0, found.start() - 80):found.start() + 80]!r}"
    return text
