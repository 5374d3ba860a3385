"""Every PyTorch ↔ MindSpore API pair of chapter 04 is executed in both frameworks and gives the same numbers."""

import pytest

from npulab.mindspore import api_pairs as ms_pairs

KEYS = ms_pairs.keys()


@pytest.fixture(scope="module")
def results():
    return {r.key: r for r in ms_pairs.run_all()}


def test_the_table_has_the_seeds_sixteen_rows_plus_two():
    assert len(KEYS) == len(set(KEYS)) == 18
    assert sum(p.in_seed for p in ms_pairs.PAIRS) == 16
    html = ms_pairs.table()._repr_html_()
    assert "ms.set_device" in html and "ms.runtime.synchronize()" in html
    assert "ms.set_context(device_target=" in html  # the seed's outdated form is shown as such


@pytest.mark.parametrize("key", KEYS)
def test_pair_is_numerically_equal(results, key):
    result = results[key]
    assert result.comparisons, "every pair compares at least one output"
    for c in result.comparisons:
        assert c.ok, f"{key}: {c.what} differs by {c.max_abs:.3g} > {c.limit:.0e}"


def test_check_runs_a_single_pair_and_names_it():
    result = ms_pairs.check("forward")
    assert result.key == "forward" and result.ok
    with pytest.raises(KeyError, match="没有名为"):
        ms_pairs.get("nope")


@pytest.mark.parametrize("key, words", [
    ("conv2d", ["(2, 8, 6, 6)", "(2, 8, 8, 8)", "'same'", "has_bias=False"]),
    ("batchnorm", ["momentum=0.9", "相差"]),
    ("maxpool", ["'valid'", "(2, 3, 3, 3)"]),
    ("cross_entropy", ["'none'", "(6,)"]),
    ("grad", ["2.0 倍"]),
    ("tensor", ["Float64"]),
    ("sgd", ["learning_rate"]),
    ("to_device", ["Tensor.to('Ascend')", "device=", "move_to 已弃用", "moved.device = 'CPU'"]),
])
def test_literal_translation_is_measured_not_asserted(results, key, words):
    """The pitfall text comes from running the wrong version, so it names the shapes and defaults actually seen."""
    for word in words:
        assert word in results[key].pitfall, (key, word, results[key].pitfall)


def test_a_difference_beyond_the_limit_fails():
    bad = ms_pairs.PairResult("x", (ms_pairs.Comparison("y", 1e-3, 1e-5),))
    assert not bad.ok and "✗" in str(bad)
    shape_mismatch = ms_pairs._diff([[1.0, 2.0]], [1.0, 2.0])
    assert shape_mismatch == float("inf")


def test_results_table_renders(results):
    html = ms_pairs.results_table(list(results.values()))._repr_html_()
    assert html.count("<tr>") == 19 and "✓" in html and "✗" not in html


def test_to_device_uses_the_2_10_api_not_the_deprecated_move_to():
    # MindSpore 2.10: Tensor.move_to "is deprecated and will be removed after version 2.9.0"; Tensor.to(device),
    # the device= constructor argument and .device replace it
    pair = ms_pairs.get("to_device")
    assert "move_to" not in pair.mindspore and "tensor.to('Ascend')" in pair.mindspore
