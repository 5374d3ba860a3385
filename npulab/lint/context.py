"""What lint-npu checks cells against beyond names: signatures, environment variables, command-line flags and
features by release — loaded lazily, so a notebook without npu cells costs nothing."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from npulab.core.i18n import t
from npulab.core.paths import DATA_DIR, REPO_ROOT
from npulab.env import env_vars
from npulab.lint import command_flags, env_checker, features, signatures
from npulab.lint.calls import Uncheckable
from npulab.pytorch.torch_npu_names import default_cache_dir

# package roots of a cell's calls -> (import name, distribution, requirements file) of the installed sources
# (torch: the build either file pins — the CPU environment's requirements.txt or an NPU host's requirements-npu.txt,
# a minor release apart at most; messages name the version read)
INSTALLED = {"msprobe": ("msprobe", "mindstudio-probe", ("requirements.txt",)),
             "mindspore": ("mindspore", "mindspore", ("requirements.txt",)),
             "torch": ("torch", "torch", ("requirements.txt", "requirements-npu.txt"))}
# packages whose every public name resolves in their sources (tests/lint/test_lint_frameworks.py checks it against the
# imported package), so a name the sources do not have is an error rather than "not checkable"
NAMES_CHECKED = {"mindspore", "torch"}
# packages read from committed stubs (scripts/extract_signature_stubs.py): root -> stub file
STUBS = {"triton": DATA_DIR / "signature_stubs" / "triton-ascend-3.2.0.json",
         "vllm": DATA_DIR / "signature_stubs" / "vllm-0.23.0.json"}
NOT_CHECKABLE_ROOTS: dict[str, str] = {}


def _triton_alternates(dotted: str) -> list[str]:
    """triton-ascend replaces triton.language functions with triton/triton_patch/language/* at import."""
    if not dotted.startswith("triton.language."):
        return []
    name = dotted.rsplit(".", 1)[-1]
    return [f"triton.triton_patch.language.{m}.{name}" for m in ("core", "math", "standard")]


def requirement_pin(distribution: str, requirements: str = "requirements.txt") -> str | None:
    """``name==X`` of a requirements file of the repository."""
    try:
        text = (REPO_ROOT / requirements).read_text(encoding="utf-8")
    except OSError:
        return None
    name = "[-_]".join(re.escape(part) for part in re.split(r"[-_]", distribution))
    pattern = re.compile(rf"^{name}\s*==\s*([\w.+!-]+)", re.IGNORECASE | re.MULTILINE)
    match = pattern.search(text)
    return match.group(1) if match else None


@dataclass
class Context:
    """Lazily loaded tables and source trees for one lint run."""

    torch_npu_version: str
    cache_dir: Path | None = None
    cann: str = "9.1.0"
    _trees: dict = field(default_factory=dict)
    _tables: command_flags.Tables | None = None
    _env: env_checker.EnvChecker | None = None
    unchecked: set[Uncheckable] = field(default_factory=set)
    unnamed_stacks: list[tuple[str, int, str | None, str]] = field(default_factory=list)

    def wheel(self) -> Path:
        """The cached torch_npu wheel (load_index has downloaded it when a cell names torch_npu)."""
        folder = self.cache_dir or default_cache_dir()
        wheels = sorted(folder.glob(f"torch_npu-{self.torch_npu_version}-*.whl"))
        if not wheels:
            from npulab.pytorch.torch_npu_names import download_wheel

            return download_wheel(self.torch_npu_version, folder)
        return wheels[0]

    def sources(self, root: str):
        """The SourceTree answering for a package root, a reason string when not checkable, None when not ours."""
        if root in ("torch_npu", "torchair", "npugraph_ex"):
            root = "torch_npu"
        if root not in self._trees:
            if root == "torch_npu":
                wheel = self.wheel()
                self._trees[root] = signatures.torch_npu_tree(wheel, wheel.parent)
            elif root in INSTALLED:
                package, dist, files = INSTALLED[root]
                pins = tuple(p for f in files if (p := requirement_pin(dist, f)))
                tree = signatures.installed_tree(package, dist, pins) if pins else \
                    t("lint.tree.no_pin", file=files[0], distribution=dist)
                if isinstance(tree, signatures.SourceTree):
                    tree.names_checked = root in NAMES_CHECKED
                self._trees[root] = tree
            elif root in STUBS:
                tree = signatures.stub_tree(STUBS[root])
                if root == "triton":
                    tree.alternates = _triton_alternates
                self._trees[root] = tree
            elif root in NOT_CHECKABLE_ROOTS:
                self._trees[root] = NOT_CHECKABLE_ROOTS[root]
            else:
                self._trees[root] = None
        return self._trees[root]

    def tables(self) -> command_flags.Tables:
        if self._tables is None:
            self._tables = command_flags.Tables(self.sources)
        return self._tables

    def env(self) -> env_checker.EnvChecker:
        if self._env is None:
            self._env = env_checker.EnvChecker(self.cann, lambda: env_vars.wheel_names(self.wheel(), self.wheel().parent))
        return self._env

    def course_targets(self) -> dict[str, str]:
        targets = features.targets("course")
        targets["torch-npu"] = self.torch_npu_version
        return targets
