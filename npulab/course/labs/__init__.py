"""Automatic checks for the workshop labs in ``notebooks/``.

Each lab has a solution notebook (``notebooks/solutions/*_solution.ipynb``, the single source)
from which the exercise notebook is generated (``python -m npulab lab-export``). A check gives
feedback in the notebook's language (Chinese or English, chosen by :mod:`npulab.core.i18n`; the texts are
the catalogue's ``lab.*`` and ``labNN.*`` keys in npulab/data/messages/) that points at the mistake without
revealing the answer. An unanswered exercise (still ``...``) is reported, not failed; a wrong answer fails
only in strict mode (``NPULAB_LAB_STRICT=1``, set by the test run), so CI proves the solutions right and the
exercise notebooks runnable.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from npulab.core.i18n import t

Check = Callable[[Any], tuple[bool | None, str]]  # answer -> (correct, or None if still unanswered; feedback)


def strict() -> bool:
    return os.environ.get("NPULAB_LAB_STRICT", "").strip() in ("1", "true", "yes")


class LabCheckFailed(AssertionError):
    """A wrong answer in strict mode."""


@dataclass
class Lab:
    """A set of named checks with a running score."""

    title: str
    checks: dict[str, Check]
    results: dict[str, bool | None] = field(default_factory=dict)

    def check(self, question: str, answer: Any) -> bool:
        """Check ``answer`` for ``question``; print feedback; return whether it is correct."""
        if question not in self.checks:
            raise KeyError(t("lab.no_question", question=repr(question), choices=", ".join(self.checks)))
        if answer is Ellipsis:
            self.results[question] = None
            print(t("lab.unanswered_ellipsis", question=question))
            return False
        try:
            ok, feedback = self.checks[question](answer)
        except Exception as err:  # the learner's code raised inside the check
            ok, feedback = False, t("lab.answer_raised", error=f"{type(err).__name__}: {err}")
        self.results[question] = ok
        if ok is None:  # e.g. a function whose body is still the stub
            print(t("lab.unanswered", question=question, feedback=feedback))
            return False
        print(t("lab.result", mark="✓" if ok else "✗", question=question, feedback=feedback))
        if not ok and strict():
            raise LabCheckFailed(f"{question}：{feedback}")
        return ok

    def report(self) -> dict[str, int]:
        """Print and return how many questions are correct, wrong and unanswered."""
        done = sum(1 for q in self.checks if self.results.get(q))
        wrong = sum(1 for q in self.checks if self.results.get(q) is False)
        todo = len(self.checks) - done - wrong
        print(t("lab.report", title=self.title, done=done, total=len(self.checks), wrong=wrong, todo=todo))
        if wrong and strict():
            raise LabCheckFailed(t("lab.failed", wrong=wrong))
        return {"correct": done, "wrong": wrong, "unanswered": todo}
