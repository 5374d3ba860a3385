"""Worker groups for ``pytest -n 2 --dist loadgroup`` (make test), as a plugin: tests/conftest.py takes its hook, and
tests/test_xdist_groups.py loads it with ``-p xdist_groups`` into a pytest run of its own."""

from __future__ import annotations

import pytest


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config, items):
    """``make test`` runs the unit tests with ``-n 2 --dist loadgroup``: tests of one group go to one worker. A test
    that shares a module- or class-scoped fixture (a set's measurement, a started server) joins its module's group, so
    that the fixture runs once, not once per worker; an explicit ``xdist_group`` mark names its own group.

    pytest-xdist 3.8 adds the group to ``item._nodeid``, which pytest 9 no longer reads (a node's id is ``item._id``),
    so its grouping does nothing there; this hook gives the id its ``@group`` suffix itself, on the workers only."""
    if not getattr(config.option, "loadgroup", False) or not hasattr(config, "workerinput"):
        return
    from _pytest.nodeid import coerce_node_id

    for item in items:
        groups = {str(m.args[0] if m.args else m.kwargs.get("name", "default")) for m in item.iter_markers("xdist_group")}
        if not groups and _shares_a_wide_fixture(item):
            groups = {item.nodeid.split("::", 1)[0]}
        if groups and not item.nodeid.endswith("@" + "_".join(sorted(groups))):
            item._id = coerce_node_id(f"{item.nodeid}@{'_'.join(sorted(groups))}")
    _slow_ones_first(items)


# Tests of one item each that took 5 s or more in make test (pytest --durations=0, both workers, the CI machine,
# 2026-12-07). xdist hands out the groups first (the larger first), then the single tests in collection order: one of
# these last would leave the other worker idle for its length. Only the order depends on this list.
SLOW = ("tests/test_english_lint.py::test_cli_report_in_english_and_in_chinese",
        "tests/test_quiz.py::test_browser_script_grades_like_python",
        "tests/test_train.py::test_bench_resnet50_json_and_usage_errors",
        "tests/test_explain.py::test_large_log_is_streamed_in_bounded_memory",
        "tests/test_precision.py::test_msprobe_dump_and_compare_on_cpu",
        "tests/test_explain_pathological.py::test_lines_shaped_to_backtrack_are_read_quickly",
        "tests/test_compile.py::test_cli_json_shape",
        "tests/test_compile.py::test_cli_text_and_usage_errors",
        "tests/test_bench_allreduce.py::test_a_tiny_two_process_run_through_the_cli",
        "tests/test_xdist_groups.py::test_a_shared_fixture_runs_once_and_a_group_stays_on_one_worker",
        "tests/test_cli.py::test_bench_matmul_json_and_bad_input",
        "tests/test_accelerator_lesson.py::test_the_gpu_check_script_runs_the_same_cell_here",
        "tests/test_migrate.py::test_the_course_example_is_rewritten_clean",
        "tests/lint/test_lint_frameworks.py::test_every_public_torch_name_resolves")


def _slow_ones_first(items) -> None:
    rank = {nodeid: i for i, nodeid in enumerate(SLOW)}
    items.sort(key=lambda item: rank.get(item.nodeid, len(SLOW)))  # stable: every other item keeps its place


def _shares_a_wide_fixture(item) -> bool:
    definitions = getattr(getattr(item, "_fixtureinfo", None), "name2fixturedefs", {})
    return any(defs and defs[-1].scope in ("module", "class", "package") for defs in definitions.values())
