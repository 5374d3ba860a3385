"""The Chinese search language of the course (npulab.site.search_zh): the same terms as Sphinx's own, without its
lookup that grows with the book."""

from __future__ import annotations

import time

from sphinx.search import languages
from sphinx.search.zh import SearchChinese

from npulab.site import sphinx_extension
from npulab.site.search_zh import CourseSearchChinese

TEXT = ("昇腾 NPU 上的 torch_npu 与 CANN：HCCL_CONNECT_TIMEOUT 设为 120 s 后，AllReduce 的带宽（GB/s）"
        "在 Atlas 800T A2 上重新测量；ACL 与 ATC 是缩写，MatMul 是算子。")


def _index(language, text: str) -> list[str]:
    return [language.stem(w) for w in language.split(text) if language.word_filter(w)]


def test_same_terms_and_stems_as_sphinx():
    SearchChinese.latin_terms = []  # Sphinx's class-level list, emptied so both start alike
    ours, theirs = CourseSearchChinese({}), SearchChinese({})
    assert _index(ours, TEXT) == _index(theirs, TEXT)
    assert _index(ours, "ACL ATC HCCL running") == _index(theirs, "ACL ATC HCCL running")  # acronyms kept whole


def test_lookup_does_not_grow_with_the_book():
    ours = CourseSearchChinese({})
    pages = [f"第 {i} 页 term{i} Kernel{i} AllReduce{i} value{i}" for i in range(4000)]
    start = time.perf_counter()
    for page in pages:
        ours.split(page)
    for word in [f"kernel{i}" for i in range(4000)]:
        ours.stem(word)
    assert time.perf_counter() - start < 5  # a list of 16 000 terms made this tens of seconds


def test_registered_for_the_chinese_book():
    class App:
        def __init__(self):
            self.calls = []

        def __getattr__(self, name):
            return lambda *args, **kwargs: self.calls.append((name, args))

    app = App()
    sphinx_extension.setup(app)
    assert ("add_search_language", (CourseSearchChinese,)) in app.calls
    assert CourseSearchChinese.lang == "zh" and languages["zh"] is not None
