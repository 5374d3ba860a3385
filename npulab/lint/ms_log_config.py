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
import tempfile

from npulab.core.i18n import t


def _imports_mindspore(tree: ast.Module) -> bool:
    return any(isinstance(n, ast.Import) and any(a.name.split(".")[0] == "mindspore" for a in n.names)
               or isinstance(n, ast.ImportFrom) and (n.module or "").split(".")[0] == "mindspore" and not n.level
               for n in ast.walk(tree))


def findings(settings: list, tree: ast.Module) -> list[tuple[int, str, str]]:
    """(line, variable, message) of the first log variable of the cell that MindSpore's reader refuses."""
    if not settings or not _imports_mindspore(tree):
        return []
    try:
        from mindspore import log  # imported only for a MindSpore cell that sets a variable
    except Exception:  # no MindSpore in this environment: nothing to ask
        return []
    names = {env: key for key, env in log._confmap_dict.items()}
    read = {s.name: s for s in settings if s.name in names and s.python_type == "str" and s.value.strip()}
    if not read:
        return []
    config = {names[name]: s.value.strip() for name, s in read.items()}
    config["filepath"] = tempfile.gettempdir()
    try:
        log._verify_config(config)
    except ValueError as err:
        import mindspore

        said = str(err)  # the message names the value it got, or the variable
        named = [s for s in read.values() if s.value.strip() in said] or [s for s in read.values() if s.name in said] \
            or list(read.values())
        return [(s.line, s.name, t("lint.ms_log.refused", line=s.line, name=s.name, value=s.value,
                                   version=mindspore.__version__, message=str(err)))
                for s in named[:1]]
    return []
