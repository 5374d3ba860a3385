"""lint-npu, MindSpore's log variables judged by MindSpore's own reader: ``mindspore/log.py`` reads ``GLOG_v``,
``GLOG_stderrthreshold``, ``GLOG_logtostderr``, ``GLOG_log_dir``, ``logger_maxBytes`` and ``logger_backupCount`` (its
``_confmap_dict``) when it writes its first log line, and ``_verify_config`` refuses what it cannot use: a level name
for a level number, a size with a unit, a negative count (ValueError). A cell that imports MindSpore and sets one of
them has its values, as MindSpore would read them, handed to that function of the installed release.

Only the cell's own values are read; ``GLOG_log_dir`` stands for a directory that exists (the function would create
it; and a cell may rely on one set before it), so neither a directory nor a missing one is ever the finding.
"""

from __future__ import annotations

import ast
import importlib.util
import tempfile
from functools import cache
from pathlib import Path

from npulab.core.i18n import t
from npulab.lint import ms_run


def _imports_mindspore(tree: ast.Module) -> bool:
    return any(isinstance(n, ast.Import) and any(a.name.split(".")[0] == "mindspore" for a in n.names)
               or isinstance(n, ast.ImportFrom) and (n.module or "").split(".")[0] == "mindspore" and not n.level
               for n in ast.walk(tree))


@cache
def _variables() -> dict[str, str]:
    """Variable -> configuration key, read from the installed log.py's ``_confmap_dict`` without importing MindSpore
    (a cell that sets no log variable pays no import)."""
    spec = importlib.util.find_spec("mindspore")
    if spec is None or not spec.submodule_search_locations:
        return {}
    source = Path(spec.submodule_search_locations[0], "log.py")
    for node in ast.parse(source.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == ["_confmap_dict"]:
            return {env: key for key, env in ast.literal_eval(node.value).items()}
    return {}


def findings(settings: list, tree: ast.Module) -> list[tuple[int, str, str]]:
    """(line, variable, message) of the first log variable of the cell that MindSpore's reader refuses."""
    read = {s.name: s for s in settings if s.name in _variables() and s.python_type == "str" and s.value.strip()}
    if not read or not _imports_mindspore(tree):
        return []
    try:
        mindspore = ms_run._ms()  # imported as ms_run imports it (its C++ log quiet, the environment kept)
    except Exception:  # no MindSpore in this environment: nothing to ask
        return []
    from mindspore import log

    config = {_variables()[name]: s.value.strip() for name, s in read.items()}
    config["filepath"] = tempfile.gettempdir()
    try:
        log._verify_config(config)
    except ValueError as err:
        said = str(err)  # the message names the value it got, or the variable
        named = [s for s in read.values() if s.value.strip() in said] or [s for s in read.values() if s.name in said] \
            or list(read.values())
        return [(s.line, s.name, t("lint.ms_log.refused", line=s.line, name=s.name, value=s.value,
                                   version=mindspore.__version__, message=said))
                for s in named[:1]]
    return []
