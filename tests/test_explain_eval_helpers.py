"""The helpers the explain sets are checked and split with (tests/explain_heldout_eval.py)."""

from __future__ import annotations

from explain_heldout_eval import group_of, random_halves, source_of, thread_of


def test_a_github_thread_is_owner_repo_number_whatever_its_form():
    assert thread_of("https://github.com/Ascend/pytorch/issues/12") == "ascend/pytorch#12"
    assert thread_of("https://github.com/Ascend/PyTorch/pull/12/files") == "ascend/pytorch#12"
    assert source_of("https://github.com/Ascend/PyTorch/pull/12") == "ascend/pytorch"


def test_a_web_page_is_its_address_without_scheme_www_query_or_fragment():
    page = "https://www.Example.com/a/b/?from=search#comments"
    assert thread_of(page) == thread_of("http://example.com/a/b") == "example.com/a/b"
    assert source_of(page) == "example.com"


def test_groups_follow_the_labels():
    assert [group_of({"expect": e}) for e in ("none", [], ["npu_oom"])] == ["healthy", "lacking", "known"]


def test_random_halves_are_reproducible_disjoint_and_split_every_group():
    groups = {"known": [f"k{i}" for i in range(7)], "lacking": [f"l{i}" for i in range(4)], "healthy": ["h0", "h1"]}
    dev, blind = random_halves(groups, seed=20261206)
    assert (dev, blind) == random_halves({g: list(reversed(n)) for g, n in groups.items()}, seed=20261206)
    assert not dev & blind and dev | blind == {n for names in groups.values() for n in names}
    assert [sum(n in dev for n in names) for names in groups.values()] == [3, 2, 1]
    assert random_halves(groups, seed=1) != (dev, blind)


def test_other_sets_finds_every_set_but_the_one_asked_about():
    """Each fresh set is checked against every other set's threads: the discovery must see them all (pool halves
    included) and leave out the set itself with anything inside it."""
    from explain_heldout_eval import DATA, other_sets

    every = {p.parent for p in DATA.glob("explain_*/**/sources.yaml")}
    assert len(every) >= 16
    for folder in every:
        assert set(other_sets(folder)) == {f for f in every if folder not in (f, *f.parents)}
    names = {p.relative_to(DATA).as_posix() for p in other_sets(DATA / "explain_fresh_2026_12k")}
    assert {"explain_heldout", "explain_fresh_2026_12b", "explain_pool_2026_12j/dev", "explain_pool_2026_12j/blind",
            "explain_dev4_2026_12f"} <= names
