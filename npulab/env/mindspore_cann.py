"""Which CANN a MindSpore release accepts, in MindSpore's own words: read from the installed wheel or from the data.

MindSpore checks the CANN it finds when it starts on Ascend (``mindspore/run_check/_check_version.py``, class
``AscendEnvChecker``): it reads ``Version=`` from ``$ASCEND_HOME_PATH/compiler/version.info``, keeps the first two
fields and warns "... does not match" unless that line is in the checker's ``self.version`` list (2.10.0: 8.2, 8.3,
8.5, 9.0, 9.1). The custom operators shipped in the wheel were compiled with one CANN
(``lib/plugin/ascend/custom_ascendc_910b/version.info``, ``custom_opp_compiler_version``); ``check_custom_version``
compares its line with the installed one, and where they differ mixed precision loses its fused ``AllFinite``
overflow check (``mindspore/amp.py``) and the ``AllFinite`` primitive refuses to build (``ops/operations/nn_ops.py``).
So the CANN to install is the custom operators' line; the other accepted lines start without the warning.

The course keeps both facts in ``compatibility.yaml`` (table ``mindspore_cann_check``); ``tests/test_ms_cann_check.py``
reads them from the installed wheel, so the data cannot drift from it. Reading the wheel never imports MindSpore.
"""

from __future__ import annotations

import ast
import importlib.metadata
import importlib.util
from dataclasses import dataclass
from pathlib import Path

from npulab.core.i18n import t
from npulab.env import compatibility

CHECKER_FILE = Path("run_check") / "_check_version.py"
CHECKER_CLASS = "AscendEnvChecker"
CUSTOM_OPS_FILE = Path("lib") / "plugin" / "ascend" / "custom_ascendc_910b" / "version.info"
CUSTOM_OPS_KEY = "custom_opp_compiler_version"
TABLE = "mindspore_cann_check"


@dataclass(frozen=True)
class CannCheck:
    """The CANN lines one MindSpore release accepts, and the CANN its bundled custom operators were compiled with."""

    mindspore: str
    lines: tuple[str, ...]
    custom_ops_cann: str | None
    where: str

    @property
    def recommended_line(self) -> str | None:
        """The line that passes both checks (the custom operators' line), e.g. ``"9.1"``."""
        return cann_line(self.custom_ops_cann) if self.custom_ops_cann else None


def cann_line(version: str) -> str:
    """The first two fields of a CANN version, as MindSpore compares them: ``"9.1.0"`` → ``"9.1"``."""
    parts = str(version).strip().split(".")
    if len(parts) < 2 or not parts[0].isdigit() or not parts[1].isdigit():
        raise ValueError(t("compat.ms_not_cann", version=repr(version)))
    return ".".join(parts[:2])


def installed_package_dir() -> Path | None:
    """The folder of the installed ``mindspore`` package, found without importing it (None when absent)."""
    spec = importlib.util.find_spec("mindspore")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def checker_lines(source: str) -> tuple[str, ...]:
    """The ``self.version = [...]`` list of ``AscendEnvChecker.__init__`` in the text of ``_check_version.py``."""
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.ClassDef) and node.name == CHECKER_CLASS):
            continue
        for item in ast.walk(node):
            if (isinstance(item, ast.Assign) and len(item.targets) == 1
                    and isinstance(item.targets[0], ast.Attribute) and item.targets[0].attr == "version"
                    and isinstance(item.targets[0].value, ast.Name) and item.targets[0].value.id == "self"):
                value = ast.literal_eval(item.value)
                if isinstance(value, list) and all(isinstance(v, str) for v in value):
                    return tuple(value)
        raise ValueError(t("compat.ms_no_lines", cls=CHECKER_CLASS))
    raise ValueError(t("compat.ms_no_class", cls=CHECKER_CLASS))


def custom_ops_version(text: str) -> str | None:
    """``custom_opp_compiler_version=9.1.0`` → ``"9.1.0"`` (None when the key is missing)."""
    for line in text.splitlines():
        key, _, value = line.partition("=")
        if key.strip() == CUSTOM_OPS_KEY and value.strip():
            return value.strip()
    return None


def from_wheel(package_dir: Path | str | None = None, version: str | None = None) -> CannCheck:
    """Read the check from an installed MindSpore (this environment's by default). ValueError when it cannot."""
    folder = Path(package_dir) if package_dir is not None else installed_package_dir()
    if folder is None:
        raise ValueError(t("compat.ms_not_installed"))
    checker = folder / CHECKER_FILE
    if not checker.is_file():
        raise ValueError(t("compat.ms_no_checker", path=checker))
    lines = checker_lines(checker.read_text(encoding="utf-8"))
    info = folder / CUSTOM_OPS_FILE
    custom = custom_ops_version(info.read_text(encoding="utf-8")) if info.is_file() else None
    if version is None:
        version = importlib.metadata.version("mindspore") if package_dir is None else t("compat.ms_unknown")
    return CannCheck(version, lines, custom, str(folder))


def from_data(ms_version: str) -> CannCheck | None:
    """The check recorded in ``compatibility.yaml`` for a MindSpore version (None when the data has no row)."""
    wanted = compatibility.parse_version(ms_version)
    for row in compatibility.table(TABLE):
        if any(compatibility.parse_version(v) == wanted for v in row["mindspore"]):
            return CannCheck(ms_version, tuple(row["cann_lines"]), row.get("custom_ops_cann"),
                             compatibility.source_of(TABLE))
    return None


def verdict(check: CannCheck, cann_version: str) -> str:
    """What MindSpore does with a given CANN, in one sentence (the reader's language) chosen from the two checks."""
    line = cann_line(cann_version)
    ms = f"MindSpore {check.mindspore}"
    if line not in check.lines:
        return t("compat.ms_outside", cann=cann_version, ms=ms, lines=t("compat.list_sep").join(check.lines))
    if check.recommended_line is None or line == check.recommended_line:
        return t("compat.ms_recommended", cann=cann_version, ms=ms, custom=check.custom_ops_cann)
    return t("compat.ms_other_line", cann=cann_version, ms=ms, line=check.recommended_line)


def mindformers_for(ms_version: str) -> dict | None:
    """The MindSpore Transformers release paired with a MindSpore version (table ``mindformers_releases``), or None."""
    wanted = compatibility.parse_version(ms_version)
    for row in compatibility.table("mindformers_releases"):
        if any(compatibility.parse_version(v) == wanted for v in row["mindspore"]):
            return row
    return None


def python_satisfies(python: str, requirement: str) -> bool:
    """Whether a Python version meets a ``>=X.Y`` requirement as the data writes it: ``("3.11.7", ">=3.12")`` → False."""
    if not requirement.startswith(">="):
        raise ValueError(t("compat.ms_python_spec", requirement=repr(requirement)))
    have = compatibility.parse_version(python).release_n(2)
    need = compatibility.parse_version(requirement[2:]).release_n(2)
    return have >= need
