"""lint-npu's decision whether an Ascend environment variable named in a cell is known: the documented table
(npulab.env.env_vars), the release that introduced it (npulab.lint.features) and the strings of the pinned wheel."""

from __future__ import annotations

import difflib

from npulab.core.i18n import t
from npulab.core.words import code, guess_end
from npulab.env.env_vars import documented, is_checked, table
from npulab.lint.features import feature_names


class EnvChecker:
    """Decides whether a variable is known: wheel strings (lazy) or the CANN table."""

    def __init__(self, cann: str, wheel_tokens, data: dict | None = None):
        self.cann, self._wheel_tokens, self.data = cann, wheel_tokens, data or table()
        self._tokens: set[str] | None = None

    def tokens(self) -> set[str]:
        if self._tokens is None:
            self._tokens = set(self._wheel_tokens())
        return self._tokens

    def problem(self, name: str, torch_npu: str) -> str | None:
        """Why ``name`` is not known; None when it is (or is not an Ascend-family name)."""
        if not is_checked(name, self.data["families"]):
            return None
        if name in feature_names("env") | feature_names("env_value"):
            return None  # a variable of a given release: the feature check reports it, with its "since"
        ok, why = documented(name, self.cann, self.data)
        if ok:
            return None
        if not why and name in self.tokens():
            return None
        known = {v["name"] for v in self.data["variables"]} | {t for t in self.tokens()
                                                               if is_checked(t, self.data["families"])}
        guesses = difflib.get_close_matches(name, sorted(known), n=2, cutoff=0.8)
        reason = why or t("lint.env.nowhere", torch_npu=torch_npu, cann=self.cann)
        return t("lint.env.unknown", name=name, reason=reason) + guess_end(code(guesses))
