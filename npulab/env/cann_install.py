"""Describe a CANN install on disk (both layouts), the driver, device nodes and the CANN environment of a process.

Layouts (sources: the CANN 8.5 environment-variable reference envref_07_0003 and the CANN install guides):

- legacy (CANN ≤ 8.3): ``<root>/ascend-toolkit/{<version>/, latest/, set_env.sh}`` (``latest`` is a directory of links
  to the installed version's components plus real files, or in older and hand-made trees one symlink); the version is in
  ``latest/version.cfg`` (``runtime_running_version=[7.6.0.1.220:8.0.0]``) and in
  ``latest/<arch>-linux/ascend_toolkit_install.info`` (``version=8.0.0``).
- cann (CANN ≥ 8.5): ``<root>/cann/set_env.sh``; versioned directories ``<root>/cann-<version>/`` also occur.
  The version is recorded in ``<root>/cann/<arch>-linux/ascend_toolkit_install.info`` (CANN 8.5.0 install guide,
  "File Paths", https://www.hiascend.com/document/detail/en/canncommercial/850/softwareinst/instg/instg_0044.html),
  the ops package's in ``ascend_ops_install.info`` next to it.
- pip (``pip install ascend-cann-toolkit==<version>`` from the Ascend pip repository): ``<site-packages>/ascend/cann-<version>/
  set_env.sh`` inside the Python environment (CANN 9.0.0 install guide, "安装CANN（Pip在线安装）",
  https://www.hiascend.com/document/detail/zh/canncommercial/900/softwareinst/instg/instg_0104.html); the
  ``<site-packages>/ascend`` folder is then a root with the cann-<version> layout.
- conda (``conda install ascend::cann-toolkit==<version>``): ``<conda env>/Ascend/cann/set_env.sh`` (same guide,
  "安装CANN（Conda在线安装）", instg_0093): ``$CONDA_PREFIX/Ascend`` is a root like /usr/local/Ascend.
- nnae (runtime-only package): ``<root>/nnae/{latest/, set_env.sh}``, version in ``ascend_nnae_install.info``
  (CANN 8.0.0 install guide, same "File Paths" page for 800).

Nothing here raises on an odd tree: every oddity becomes a sentence in ``problems``, in the reader's language
(catalogue keys ``cann.*``, npulab/data/messages/cann.yaml).
"""

from __future__ import annotations

import os
import platform
import re
import shutil
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from npulab.core.i18n import t
from npulab.env.compatibility import classify_version_string, parse_version, try_parse

DEFAULT_ROOT = Path("/usr/local/Ascend")
ENV_VARS = ("ASCEND_TOOLKIT_HOME", "ASCEND_HOME_PATH", "ASCEND_OPP_PATH")
_READ_LIMIT = 256 * 1024

# ---------------------------------------------------------------------------------------------------------------
# Reading small text files defensively
# ---------------------------------------------------------------------------------------------------------------


def read_text(path: Path) -> tuple[str | None, str | None]:
    """Return (text, problem): text of a small UTF-8 file, or None and a reason in the reader's language (None, None if absent)."""
    try:
        with open(path, "rb") as fh:
            data = fh.read(_READ_LIMIT)
    except FileNotFoundError:
        if path.is_symlink():
            return None, t("cann.read.dangling", path=path, target=_readlink(path))
        return None, None
    except IsADirectoryError:
        return None, t("cann.read.is_dir", path=path)
    except PermissionError:
        return None, t("cann.read.no_permission", path=path)
    except OSError as err:
        return None, t("cann.read.os_error", path=path, error=err.strerror or err)
    if b"\0" in data:
        return None, t("cann.read.binary", path=path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None, t("cann.read.not_utf8", path=path)
    if not text.strip():
        return None, t("cann.read.empty", path=path)
    if any(ord(ch) < 32 and ch not in "\t\r\n\f\v" for ch in text):
        return None, t("cann.read.control", path=path)
    return text, None


def _readlink(path: Path) -> str:
    try:
        return os.readlink(path)
    except OSError:
        return "?"


def parse_kv(text: str) -> dict[str, str]:
    """``key=value`` lines → dict with lower-cased keys (``Version=`` and ``version=`` both become ``version``)."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, _, value = line.partition("=")
        out.setdefault(key.strip().lower(), value.strip())
    return out


_RUNNING = re.compile(r"^\s*(\w+?)_running_version\s*=\s*\[([^:\]]*):([^\]]*)\]", re.MULTILINE)


def parse_version_cfg(text: str) -> tuple[str | None, str | None]:
    """``runtime_running_version=[7.6.0.1.220:8.0.0]`` → (inner, commercial); runtime first, then toolkit, then any."""
    found = {m.group(1): (m.group(2).strip(), m.group(3).strip()) for m in _RUNNING.finditer(text)}
    for name in ("runtime", "toolkit", *found):
        if name in found:
            inner, commercial = found[name]
            commercial = re.sub(r"^CANN-", "", commercial, flags=re.IGNORECASE)
            return inner or None, commercial or None
    return None, None


def _checked_version(value: str | None, where: Path, problems: list[str]) -> str | None:
    """Keep ``value`` if it parses as a version; otherwise record why and return None."""
    if value is None:
        return None
    if try_parse(value) is None:
        problems.append(t("cann.version.unrecognised", path=where, value=repr(value[:40])))
        return None
    return value


# ---------------------------------------------------------------------------------------------------------------
# Installs
# ---------------------------------------------------------------------------------------------------------------


@dataclass
class Install:
    """One CANN package found under a root: where it is, how to load it, its version and any problems."""

    kind: str  # toolkit | nnae
    layout: str  # legacy | cann
    path: Path  # the path users see: .../ascend-toolkit/latest, .../cann, .../cann-8.5.0, .../nnae/latest
    home: Path | None = None  # the real directory behind ``path`` (None when missing or dangling)
    set_env: Path | None = None
    version: str | None = None
    inner_version: str | None = None
    version_file: Path | None = None
    ops_version: str | None = None
    problems: list[str] = field(default_factory=list)

    @property
    def source_command(self) -> str | None:
        """The shell line that loads this install's environment."""
        return f"source {self.set_env}" if self.set_env else None

    @property
    def usable(self) -> bool:
        """True when the directory exists and its set_env.sh was found."""
        return self.home is not None and self.set_env is not None


@dataclass
class Driver:
    """The NPU driver under ``<root>/driver``: version from version.info and any problems."""

    path: Path
    version: str | None = None
    inner_version: str | None = None
    problems: list[str] = field(default_factory=list)


@dataclass
class CannReport:
    """Everything found under one install root."""

    root: Path
    exists: bool
    installs: list[Install] = field(default_factory=list)
    driver: Driver | None = None
    problems: list[str] = field(default_factory=list)

    @property
    def primary(self) -> Install | None:
        """The install a learner should load: usable toolkits before nnae, newest version first."""
        if not self.installs:
            return None

        def rank(inst: Install) -> tuple:
            v = try_parse(inst.version)
            return (inst.usable, inst.kind == "toolkit", v is not None, v.key if v else ())

        return max(self.installs, key=rank)

    def as_dict(self) -> dict:
        """Flat summary: root, layout, version, inner_version, set_env, driver_version, problems."""
        inst = self.primary
        return {
            "root": str(self.root),
            "layout": inst.layout if inst else None,
            "version": inst.version if inst else None,
            "inner_version": inst.inner_version if inst else None,
            "set_env": str(inst.set_env) if inst and inst.set_env else None,
            "driver_version": self.driver.version if self.driver else None,
            "problems": self.all_problems,
        }

    def get(self, key: str, default=None):
        """Dict-style access to ``as_dict()`` (``report.get("version")``), as npulab.course.record uses it."""
        value = self.as_dict().get(key)
        return default if value is None else value

    @property
    def all_problems(self) -> list[str]:
        """Root, install and driver problems in one list."""
        out = list(self.problems)
        for inst in self.installs:
            out += inst.problems
        if self.driver:
            out += self.driver.problems
        return out


def _arch_dirs(home: Path) -> list[Path]:
    """``<home>/<arch>-linux`` directories, this machine's architecture first."""
    try:
        found = sorted(p for p in home.glob("*-linux") if p.is_dir())
    except OSError:
        return []
    mine = f"{platform.machine()}-linux"
    return sorted(found, key=lambda p: p.name != mine)


def _read_install_info(home: Path, name: str, inst: Install) -> tuple[str | None, str | None, Path | None]:
    """Look for ``name`` in ``<home>/<arch>-linux/`` then ``<home>/``: (version, innerversion, file)."""
    for folder in [*_arch_dirs(home), home]:
        path = folder / name
        text, problem = read_text(path)
        if problem:
            inst.problems.append(problem)
        if text is None:
            continue
        kv = parse_kv(text)
        if "version" not in kv:
            inst.problems.append(t("cann.version.no_line", path=path, name="version"))
            continue
        return _checked_version(kv["version"], path, inst.problems), kv.get("innerversion"), path
    return None, None, None


def _inspect(inst: Install, set_env_candidates: list[Path], info_name: str, name_hint: str | None) -> Install:
    """Fill in home, set_env, versions and problems of an install entry."""
    path = inst.path
    if path.is_symlink() and not path.exists():
        inst.problems.append(t("cann.install.dangling", path=path, target=_readlink(path)))
        return inst
    if not path.exists():
        inst.problems.append(t("cann.install.missing", path=path))
        return inst
    if not path.is_dir():
        inst.problems.append(t("cann.install.file_not_dir", path=path))
        return inst
    try:
        inst.home = path.resolve()
    except (OSError, RuntimeError) as err:  # RuntimeError: symlink loop on older Pythons
        inst.problems.append(t("cann.install.unresolvable", path=path, error=err))
        return inst
    inst.set_env = next((p for p in set_env_candidates if p.is_file()), None)
    if inst.set_env is None:
        inst.problems.append(t("cann.install.no_set_env",
                               paths=t("doctor.list_sep").join(str(p) for p in set_env_candidates)))

    version, inner, info_file = _read_install_info(inst.home, info_name, inst)
    cfg_inner = cfg_version = None
    cfg_path = inst.home / "version.cfg"
    text, problem = read_text(cfg_path)
    if problem:
        inst.problems.append(problem)
    elif text is not None:
        cfg_inner, cfg_version = parse_version_cfg(text)
        if cfg_version is None:
            inst.problems.append(t("cann.version.no_running_line", path=cfg_path))
        cfg_version = _checked_version(cfg_version, cfg_path, inst.problems)
    if version and cfg_version and parse_version(version) != parse_version(cfg_version):
        inst.problems.append(t("cann.version.mismatch", info=info_file, version=version, cfg=cfg_path,
                               cfg_version=cfg_version))
    inst.version = version or cfg_version
    inst.version_file = info_file if version else (cfg_path if cfg_version else None)
    inst.inner_version = cfg_inner or inner
    if inst.version is None and name_hint and try_parse(name_hint):
        inst.version = name_hint
        inst.problems.append(t("cann.version.from_dirname", version=name_hint))
    elif inst.version is None:
        inst.problems.append(t("cann.version.no_file", path=path, info=info_name))
    if inst.version and classify_version_string(inst.version).kind != "cann":
        inst.problems.append(t("cann.version.not_cann", version=inst.version,
                               why=classify_version_string(inst.version).explanation))
    if inst.layout == "cann" and inst.kind == "toolkit":
        inst.ops_version = _read_install_info(inst.home, "ascend_ops_install.info", inst)[0]
    return inst


def _versioned_dirs(folder: Path) -> list[Path]:
    """Sub-directories of ``folder`` whose name is a version (8.0.0, 8.0.RC3), newest first."""
    try:
        subdirs = [p for p in folder.iterdir() if p.is_dir() and not p.is_symlink() and try_parse(p.name)]
    except OSError:
        return []
    return sorted(subdirs, key=lambda p: parse_version(p.name), reverse=True)


def _legacy(root: Path, package: str, kind: str, info_name: str) -> Install | None:
    """The ``latest`` entry of ``<root>/<package>`` (ascend-toolkit or nnae), falling back to the newest version dir."""
    base = root / package
    if not (base.exists() or base.is_symlink()):
        return None
    latest = base / "latest"
    candidates = [base / "set_env.sh", latest / "set_env.sh"]
    if not base.is_dir():
        return Install(kind, "legacy", base, problems=[t("cann.install.not_dir", path=base)])
    if not latest.exists() and not latest.is_symlink():
        versions = _versioned_dirs(base)
        if not versions:
            return Install(kind, "legacy", latest, problems=[t("cann.install.no_latest_no_versions", path=base)])
        inst = _inspect(Install(kind, "legacy", versions[0]), candidates, info_name, versions[0].name)
        inst.problems.insert(0, t("cann.install.no_latest", path=base, version=versions[0].name))
        return inst
    hint = _readlink(latest) if latest.is_symlink() else None
    return _inspect(Install(kind, "legacy", latest), candidates, info_name, Path(hint).name if hint else None)


def _new_layout(root: Path) -> list[Install]:
    """``<root>/cann`` and ``<root>/cann-<version>`` entries (CANN ≥ 8.5), one per real directory."""
    entries: list[Path] = []
    cann = root / "cann"
    if cann.exists() or cann.is_symlink():
        entries.append(cann)
    try:
        entries += sorted((p for p in root.glob("cann-*") if p.is_dir() or p.is_symlink()), key=lambda p: p.name)
    except OSError:
        pass
    out: list[Install] = []
    seen: set[Path] = set()
    for entry in entries:
        hint = entry.name[len("cann-"):] if entry.name.startswith("cann-") else (
            Path(_readlink(entry)).name.removeprefix("cann-") if entry.is_symlink() else None)
        inst = _inspect(Install("toolkit", "cann", entry), [entry / "set_env.sh"], "ascend_toolkit_install.info", hint)
        if inst.home is not None and inst.home in seen:
            continue  # cann -> cann-8.5.0: report the documented path once
        if inst.home is not None:
            seen.add(inst.home)
        out.append(inst)
    return out


def _driver(root: Path) -> Driver | None:
    """``<root>/driver/version.info`` (``Version=24.1.0.3``)."""
    folder = root / "driver"
    if not (folder.exists() or folder.is_symlink()):
        return None
    drv = Driver(folder)
    info = folder / "version.info"
    text, problem = read_text(info)
    if problem:
        drv.problems.append(problem)
    elif text is None:
        drv.problems.append(t("cann.driver.no_info", path=folder))
    else:
        kv = parse_kv(text)
        if "version" not in kv:
            drv.problems.append(t("cann.version.no_line", path=info, name="Version"))
        drv.version = _checked_version(kv.get("version"), info, drv.problems)
        drv.inner_version = kv.get("innerversion")
    return drv


def describe(root: Path | str | None = None) -> CannReport:
    """Describe the CANN installs, driver and oddities under ``root`` (default /usr/local/Ascend)."""
    root = Path(root) if root is not None else DEFAULT_ROOT
    report = CannReport(root=root, exists=root.exists())
    if root.is_symlink() and not root.exists():
        report.problems.append(t("cann.root.dangling", path=root, target=_readlink(root)))
        return report
    if not report.exists:
        return report
    if not root.is_dir():
        report.problems.append(t("cann.root.not_dir", path=root))
        return report
    try:
        next(root.iterdir(), None)
    except PermissionError:
        report.problems.append(t("cann.root.no_list_permission", path=root))
        return report
    except OSError as err:
        report.problems.append(t("cann.root.no_list", path=root, error=err.strerror or err))
        return report
    try:
        for package, kind, info in (("ascend-toolkit", "toolkit", "ascend_toolkit_install.info"),
                                    ("nnae", "nnae", "ascend_nnae_install.info")):
            inst = _legacy(root, package, kind, info)
            if inst:
                report.installs.append(inst)
        report.installs += _new_layout(root)
        report.driver = _driver(root)
    except OSError as err:  # e.g. a sub-directory that cannot be searched: report, never raise
        report.problems.append(t("cann.root.error", path=root, error=err.strerror or err,
                                  filename=getattr(err, "filename", "")))
    return report


def pip_roots() -> list[Path]:
    """``<site-packages>/ascend`` of this interpreter: where ``pip install ascend-cann-toolkit`` puts CANN."""
    import site
    import sysconfig

    folders = [sysconfig.get_paths().get("purelib", ""), *getattr(site, "getsitepackages", list)()]
    return list(dict.fromkeys(Path(f) / "ascend" for f in folders if f))


def candidate_roots(environ: Mapping[str, str] | None = None) -> list[Path]:
    """Install roots to probe: the one a loaded environment points at, /usr/local/Ascend, the conda environment's
    Ascend folder, this interpreter's pip install (``<site-packages>/ascend``), then ~/Ascend."""
    env = os.environ if environ is None else environ
    roots: list[Path] = []
    for var in ("ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME"):
        value = env.get(var)
        if not value:
            continue
        home = Path(value)
        if home.name == "latest":
            roots.append(home.parent.parent)  # <root>/ascend-toolkit/latest
        elif home.name == "cann" or home.name.startswith("cann-"):
            roots.append(home.parent)
    roots.append(DEFAULT_ROOT)
    if env.get("CONDA_PREFIX"):
        roots.append(Path(env["CONDA_PREFIX"]) / "Ascend")
    roots += pip_roots()
    if env.get("HOME"):
        roots.append(Path(env["HOME"]) / "Ascend")
    return list(dict.fromkeys(roots))


def install_at(home: Path | str) -> Install:
    """Inspect one CANN folder as a learner names it: ``…/cann``, ``…/cann-8.5.0``, ``…/ascend-toolkit/latest`` or
    ``…/ascend-toolkit/8.0.0`` (set_env.sh is looked for in the folder, then in its parent)."""
    home = Path(home)
    layout = "legacy" if home.parent.name in ("ascend-toolkit", "nnae") else "cann"
    kind = "nnae" if home.parent.name == "nnae" else "toolkit"
    info = "ascend_nnae_install.info" if kind == "nnae" else "ascend_toolkit_install.info"
    hint = home.name.removeprefix("cann-") if home.name.startswith("cann-") else (
        Path(_readlink(home)).name.removeprefix("cann-") if home.is_symlink() else home.name)
    return _inspect(Install(kind, layout, home), [home / "set_env.sh", home.parent / "set_env.sh"], info, hint)


def loaded_install(environ: Mapping[str, str] | None = None) -> Install | None:
    """The CANN whose set_env.sh this environment has sourced (ASCEND_HOME_PATH, else ASCEND_TOOLKIT_HOME), or None."""
    env = os.environ if environ is None else environ
    value = env.get("ASCEND_HOME_PATH") or env.get("ASCEND_TOOLKIT_HOME")
    return install_at(value) if value else None


def locate(environ: Mapping[str, str] | None = None) -> CannReport | None:
    """The first candidate root that holds a CANN install, or None (a CPU-only machine)."""
    for root in candidate_roots(environ):
        report = describe(root)
        if report.installs:
            return report
    return None


def summary_line(environ: Mapping[str, str] | None = None) -> str:
    """One line, in the reader's language, about the CANN found on this machine (for the lessons' environment summary)."""
    report = locate(environ)
    if report is None:
        return t("env.no_cann")
    inst = report.primary
    version = inst.version or t("doctor.version_unknown")
    if inst.layout == "cann":
        layout = t("cann.summary.layout_cann")
    else:
        layout = "nnae" if inst.kind == "nnae" else t("cann.summary.layout_legacy")
    extra = t("cann.summary.problems", count=len(report.all_problems)) if report.all_problems else ""
    return t("cann.summary.line", version=version, layout=layout, path=inst.path, extra=extra)


# ---------------------------------------------------------------------------------------------------------------
# The environment of a process
# ---------------------------------------------------------------------------------------------------------------


@dataclass
class CannEnv:
    """Whether a CANN environment (set_env.sh) is loaded in a process, judged from its environment variables."""

    loaded: bool
    variables: dict[str, str | None]
    home: Path | None
    lib_in_ld_path: bool
    problems: list[str] = field(default_factory=list)

    def points_to(self, inst: Install) -> bool:
        """True when the loaded environment belongs to ``inst`` (same real directory)."""
        if self.home is None or inst.home is None:
            return False
        try:
            return self.home.resolve() == inst.home
        except OSError:
            return False


def _same_dir(a: str, b: Path) -> bool:
    if not a:
        return False
    if os.path.normpath(a) == os.path.normpath(str(b)):
        return True
    try:
        return Path(a).resolve() == b.resolve()
    except OSError:
        return False


def env_status(environ: Mapping[str, str] | None = None) -> CannEnv:
    """Check ASCEND_TOOLKIT_HOME / ASCEND_HOME_PATH / ASCEND_OPP_PATH and LD_LIBRARY_PATH of an environment."""
    env = os.environ if environ is None else environ
    variables = {name: env.get(name) or None for name in ENV_VARS}
    problems: list[str] = []
    if not any(variables.values()):
        return CannEnv(False, variables, None, False, [t("cann.env.none_set", names=" / ".join(ENV_VARS))])
    for name, value in variables.items():
        if value is None:
            problems.append(t("cann.env.unset", name=name))
        elif not Path(value).exists():
            problems.append(t("cann.env.missing_path", name=name, value=value))
    raw_home = variables["ASCEND_HOME_PATH"] or variables["ASCEND_TOOLKIT_HOME"]
    home = Path(raw_home) if raw_home else None
    lib_ok = False
    if home is not None:
        lib64 = home / "lib64"
        lib_ok = any(_same_dir(entry, lib64) for entry in env.get("LD_LIBRARY_PATH", "").split(":"))
        if not lib_ok:
            problems.append(t("cann.env.no_lib", lib64=lib64))
    return CannEnv(not problems, variables, home, lib_ok, problems)


def device_nodes(dev_dir: Path | str = "/dev") -> list[Path]:
    """``/dev/davinci0``, ``/dev/davinci1`` … in numeric order (davinci_manager and friends excluded)."""
    folder = Path(dev_dir)
    try:
        names = [p.name for p in folder.iterdir()]
    except OSError:
        return []
    ids = sorted(int(m.group(1)) for n in names if (m := re.fullmatch(r"davinci(\d+)", n)))
    return [folder / f"davinci{i}" for i in ids]


def find_npu_smi(environ: Mapping[str, str] | None = None) -> str | None:
    """Path of ``npu-smi`` on the environment's PATH, or None."""
    env = os.environ if environ is None else environ
    return shutil.which("npu-smi", path=env.get("PATH", os.defpath))
