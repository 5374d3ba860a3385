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


def _shares_a_wide_fixture(item) -> bool:
    definitions = getattr(getattr(item, "_fixtureinfo", None), "name2fixturedefs", {})
    return any(defs and defs[-1].scope in ("module", "class", "package") for defs in definitions.values())
