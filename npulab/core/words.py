"""lint-npu's words: every finding, reason and report line comes from the catalogue's ``lint.`` entries
(npulab/data/messages/lint.yaml) in the reader's language (issue 37); these helpers join the pieces that recur."""

from __future__ import annotations

from collections.abc import Iterable

from npulab.core.i18n import t


def joined(items: Iterable) -> str:
    """``a、b`` / ``a, b``: a list inside a sentence."""
    return t("lint.sep").join(str(i) for i in items)


def code(items: Iterable) -> str:
    """```a`、`b``` / ```a`, `b```: names as code."""
    return joined(f"`{i}`" for i in items)


def either(items: Iterable) -> str:
    """``int 或 str`` / ``int or str``."""
    return t("lint.or").join(str(i) for i in items)


def guess_end(names: str | None) -> str:
    """``；是不是 X？`` when there is a guess (``names`` already written out), else the sentence's full stop."""
    return t("lint.guess", names=names) if names else t("lint.end")
