"""The Chinese book's search index without Sphinx's quadratic Latin-term lookup.

Sphinx 7.4's Chinese search language (``sphinx/search/zh.py``, ``SearchChinese``) keeps every Latin term it has
split in a *list* on the class (``latin_terms``), never emptied, and ``stem`` asks ``word in self.latin_terms`` for
every word it indexes: the lookup grows with the book. For this course's 48 pages that was 100 s of the Chinese
build's 130 s of indexing (cProfile, ``sphinx/search/zh.py:250(stem)``), while the English book indexed in seconds.
:class:`CourseSearchChinese` gives each index its own *set* of terms — same members, same answers, constant-time
lookup — and is registered through Sphinx's documented ``app.add_search_language``. Splitting and stemming stay
Sphinx's own code.
"""

from __future__ import annotations

from sphinx.search.zh import SearchChinese


class _Terms(set):
    """A set that ``SearchChinese.split`` can ``extend`` like the list it expects."""

    extend = set.update


class CourseSearchChinese(SearchChinese):
    def init(self, options: dict[str, str]) -> None:
        super().init(options)
        self.latin_terms = _Terms()  # per index, shadowing the class's ever-growing list
