"""A synthetic CANN install (both layouts) and the environment its set_env.sh sets: a test double for tests and lessons.

The trees are empty directories plus the files npulab reads (install info, version.cfg, set_env.sh, a driver
version file); no library in them is real.
"""

from __future__ import annotations

import platform
import shlex
from collections.abc import Mapping
from pathlib import Path

from npulab.env.cann_install import describe
from npulab.env.compatibility import parse_version

_SUBDIRS = (
    "lib64", "lib64/plugin/opskernel", "lib64/plugin/nnengine", "python/site-packages", "bin", "opp",
    "opp/built-in/op_impl/ai_core/tbe", "compiler/ccec_compiler/bin", "tools/ccec_compiler/bin",
    "tools/aml/lib64/plugin", "toolkit",
)


def _set_env_text(root: Path, home: Path) -> str:
    """A set_env.sh exporting what the documented CANN 8.0.0 script exports, with paths under the fake root."""
    drv = root / "driver" / "lib64"
    libs = shlex.quote(f"{drv}:{drv}/common:{drv}/driver")
    return f"""# Synthetic CANN environment script written by npulab.testing.synthetic_cann.make_synthetic_install.
# It is a teaching fake: the directories are empty and no library is real.
# It exports the same variables as the set_env.sh of CANN 8.0 (legacy layout; CANN environment-variable reference), rooted at {root}.
# Unlike the real script it adds no empty entry (":") when a variable was unset before.
_npulab_prepend() {{ if [ -n "${{2}}" ]; then printf '%s:%s' "$1" "$2"; else printf '%s' "$1"; fi; }}
export LD_LIBRARY_PATH="$(_npulab_prepend {libs} "${{LD_LIBRARY_PATH:-}}")"
export ASCEND_TOOLKIT_HOME={shlex.quote(str(home))}
export LD_LIBRARY_PATH="$(_npulab_prepend "${{ASCEND_TOOLKIT_HOME}}/lib64:${{ASCEND_TOOLKIT_HOME}}/lib64/plugin/opskernel:${{ASCEND_TOOLKIT_HOME}}/lib64/plugin/nnengine:${{ASCEND_TOOLKIT_HOME}}/opp/built-in/op_impl/ai_core/tbe/op_tiling/lib/linux/$(uname -m)" "${{LD_LIBRARY_PATH}}")"
export LD_LIBRARY_PATH="$(_npulab_prepend "${{ASCEND_TOOLKIT_HOME}}/tools/aml/lib64:${{ASCEND_TOOLKIT_HOME}}/tools/aml/lib64/plugin" "${{LD_LIBRARY_PATH}}")"
export PYTHONPATH="$(_npulab_prepend "${{ASCEND_TOOLKIT_HOME}}/python/site-packages:${{ASCEND_TOOLKIT_HOME}}/opp/built-in/op_impl/ai_core/tbe" "${{PYTHONPATH:-}}")"
export PATH="$(_npulab_prepend "${{ASCEND_TOOLKIT_HOME}}/bin:${{ASCEND_TOOLKIT_HOME}}/compiler/ccec_compiler/bin:${{ASCEND_TOOLKIT_HOME}}/tools/ccec_compiler/bin" "${{PATH:-}}")"
export ASCEND_AICPU_PATH="${{ASCEND_TOOLKIT_HOME}}"
export ASCEND_OPP_PATH="${{ASCEND_TOOLKIT_HOME}}/opp"
export TOOLCHAIN_HOME="${{ASCEND_TOOLKIT_HOME}}/toolkit"
export ASCEND_HOME_PATH="${{ASCEND_TOOLKIT_HOME}}"
unset -f _npulab_prepend
"""


def make_synthetic_install(
    root: Path | str,
    layout: str = "legacy",
    version: str = "8.0.0",
    *,
    inner_version: str = "7.6.0.1.220",
    driver_version: str | None = "24.1.0.3",
    arch: str | None = None,
    latest_dir: bool = False,
) -> Path:
    """Build a small fake CANN tree under ``root`` (legacy ``ascend-toolkit/`` or ≥8.5 ``cann/``) and return ``root``.

    ``latest_dir=True`` (legacy layout only) builds ``ascend-toolkit/latest`` as the installer does: a real directory
    whose entries are symlinks to the components of the installed version (``compiler -> ../8.0.0/compiler``), plus
    real files (``version.cfg``); the default keeps ``latest`` a single symlink, which the tests of broken links use.
    """
    if layout not in ("legacy", "cann"):
        raise ValueError(f"layout 只能是 'legacy' 或 'cann'，收到 {layout!r}")
    parse_version(version)  # reject nonsense early
    root = Path(root)
    arch = arch or platform.machine() or "x86_64"
    if layout == "legacy":
        real = root / "ascend-toolkit" / version
        link, target = root / "ascend-toolkit" / "latest", version
        home = link
        set_env = root / "ascend-toolkit" / "set_env.sh"
    else:
        real = root / f"cann-{version}"
        link, target = root / "cann", f"cann-{version}"
        home = link
        set_env = link / "set_env.sh"
    for sub in _SUBDIRS:
        (real / sub).mkdir(parents=True, exist_ok=True)
    (real / "python" / "site-packages" / "npulab_synthetic_cann.py").write_text(
        f'"""Marker module of a synthetic CANN tree: importable only when set_env.sh put it on PYTHONPATH."""\n'
        f'VERSION = "{version}"\n', encoding="utf-8")
    info_dir = real / f"{arch}-linux"
    info_dir.mkdir(parents=True, exist_ok=True)
    (info_dir / "ascend_toolkit_install.info").write_text(
        f"package_name=Ascend-cann-toolkit\nversion={version}\narch={arch}\nos=linux\npath={real}/{arch}-linux\n",
        encoding="utf-8")
    if layout == "legacy":
        components = ("runtime", "compiler", "hccl", "opp", "toolkit")
        lines = ["# version: 1.0"] + [f"{c}_{stage}_version=[{inner_version}:{version}]"
                                     for stage in ("running", "upgrade", "installed") for c in components]
        (real / "version.cfg").write_text("\n".join(lines) + "\n", encoding="utf-8")
    else:
        (info_dir / "ascend_ops_install.info").write_text(
            f"package_name=Ascend-cann-ops\nversion={version}\narch={arch}\nos=linux\n", encoding="utf-8")
    if link.is_symlink() or link.exists():
        link.unlink()
    if latest_dir and layout == "legacy":
        link.mkdir()
        for entry in sorted(real.iterdir()):
            if entry.is_dir():
                (link / entry.name).symlink_to(Path("..") / version / entry.name)
            else:
                (link / entry.name).write_bytes(entry.read_bytes())
    else:
        link.symlink_to(target)
    set_env.write_text(_set_env_text(root, home), encoding="utf-8")
    if driver_version is not None:
        for sub in ("lib64/common", "lib64/driver"):
            (root / "driver" / sub).mkdir(parents=True, exist_ok=True)
        (root / "driver" / "version.info").write_text(f"Version={driver_version}\n", encoding="utf-8")
    return root


def _nnal_home(root: Path) -> Path:
    return root / "nnal" / "atb" / "latest" / "atb" / "cxx_abi_1"


def make_synthetic_nnal(root: Path | str, version: str = "9.1.0") -> Path:
    """A fake NNAL (ATB) beside a synthetic CANN: ``<root>/nnal/atb/{<version>/atb/cxx_abi_1/lib/libatb.so, latest,
    set_env.sh}``, the layout of the NNAL run package; its set_env.sh exports ATB_HOME_PATH. Returns the script."""
    atb = Path(root) / "nnal" / "atb"
    lib = atb / version / "atb" / "cxx_abi_1" / "lib"
    lib.mkdir(parents=True, exist_ok=True)
    (lib / "libatb.so").write_bytes(b"")  # an empty stand-in: nothing loads it
    latest = atb / "latest"
    if latest.is_symlink() or latest.exists():
        latest.unlink()
    latest.symlink_to(version)
    script = atb / "set_env.sh"
    home = shlex.quote(str(_nnal_home(Path(root))))
    script.write_text(f"# Synthetic NNAL environment script (npulab.testing.synthetic_cann.make_synthetic_nnal).\n"
                      f"export ATB_HOME_PATH={home}\n"
                      f'export LD_LIBRARY_PATH="$ATB_HOME_PATH/lib${{LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}}"\n',
                      encoding="utf-8")
    return script


def loaded_environ(root: Path | str, base: Mapping[str, str] | None = None, *, nnal: bool = False) -> dict[str, str]:
    """The environment variables a synthetic (or real) install's set_env.sh would set, computed without a shell
    (``nnal``: then NNAL's set_env.sh too, after make_synthetic_nnal)."""
    report = describe(root)
    inst = report.primary
    if inst is None or inst.home is None:
        raise ValueError(f"{root} 下没有可用的 CANN 安装")
    env = dict(base or {})
    home = str(inst.path)
    drv = Path(root) / "driver" / "lib64"
    libs = [str(drv), f"{drv}/common", f"{drv}/driver", f"{home}/lib64"]
    env.update({
        "ASCEND_TOOLKIT_HOME": home, "ASCEND_HOME_PATH": home, "ASCEND_OPP_PATH": f"{home}/opp",
        "ASCEND_AICPU_PATH": home, "TOOLCHAIN_HOME": f"{home}/toolkit",
        "LD_LIBRARY_PATH": ":".join(libs + ([env["LD_LIBRARY_PATH"]] if env.get("LD_LIBRARY_PATH") else [])),
        "PYTHONPATH": f"{home}/python/site-packages" + (f":{env['PYTHONPATH']}" if env.get("PYTHONPATH") else ""),
        "PATH": f"{home}/bin" + (f":{env['PATH']}" if env.get("PATH") else ""),
    })
    if nnal:
        env["ATB_HOME_PATH"] = str(_nnal_home(Path(root)))
        env["LD_LIBRARY_PATH"] = f"{env['ATB_HOME_PATH']}/lib:{env['LD_LIBRARY_PATH']}"
    return env
