"""``python -m npulab kernelspec``: a Jupyter kernel per software stack that loads that stack's own CANN.

Two CANN toolkits can live side by side (8.5.0 for the PyPI-only Triton-Ascend stack, 9.1.0 for the course); what picks one is
the ``set_env.sh`` a process sourced before it started. A Jupyter kernel is a process that JupyterLab starts, so the
kernel spec written here runs a small launcher: it drops the paths of a CANN the server may have loaded, sources the
stack's ``set_env.sh`` (and NNAL's, for a stack whose data names ``nnal``), then ``exec``-s the stack venv's
``ipykernel``. ``doctor --stack`` run inside the kernel then says which CANN it has loaded and whether the stack
wants it.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from npulab.core.cli import EXIT_FAIL, EXIT_OK, UsageError
from npulab.core.i18n import localized, t
from npulab.env import cann_install

LAUNCHER = "launch.sh"


@dataclass(frozen=True)
class KernelPlan:
    """What one kernel spec will hold: its name, the stack, the CANN it loads and the venv it runs."""

    name: str
    stack: str
    set_env: Path
    cann_version: str | None
    venv_python: Path
    nnal_set_env: Path | None = None  # NNAL's set_env.sh (ATB), sourced after CANN's

    @property
    def display_name(self) -> str:
        cann = f"CANN {self.cann_version}" if self.cann_version else t("kernelspec.cann_unknown")
        return t("kernelspec.display_name", stack=self.stack, cann=cann)


def resolve_set_env(path: Path | str) -> tuple[Path, cann_install.Install | None]:
    """The set_env.sh that ``path`` names: the script itself, a CANN folder (``…/cann-8.5.0``, ``…/ascend-toolkit/latest``)
    or an install root (``/usr/local/Ascend``: its newest usable toolkit). UsageError when there is none."""
    path = Path(path).expanduser()
    if path.is_file() and path.name == "set_env.sh":
        return path, cann_install.install_at(path.parent)
    if not path.is_dir():
        raise UsageError(t("kernelspec.no_dir", path=path))
    if (path / "set_env.sh").is_file():
        inst = cann_install.install_at(path)
        return path / "set_env.sh", inst
    report = cann_install.describe(path)
    inst = report.primary
    if inst is not None and inst.set_env is not None:
        return inst.set_env, inst
    raise UsageError(t("kernelspec.no_set_env", path=path))


def nnal_candidates(set_env: Path, stack: dict) -> list[Path]:
    """Where NNAL's set_env.sh may be: beside the CANN (``<install root>/nnal/atb``), then where the stack's data
    says (the default install path)."""
    found = [set_env.parent.parent / "nnal" / "atb" / "set_env.sh"]
    if stack.get("nnal"):
        found.append(Path(stack["nnal"]["set_env"]))
    return list(dict.fromkeys(found))


def _nnal_lines(plan: KernelPlan) -> str:
    if plan.nnal_set_env is None:
        return ""
    script, bindir = shlex.quote(str(plan.nnal_set_env)), shlex.quote(str(plan.venv_python.parent))
    return f"""if [ ! -f {script} ]; then
  echo "npulab kernel {plan.name}: {t('kernelspec.nnal_gone', path=plan.nnal_set_env)}" >&2
  exit 1
fi
export PATH={bindir}:"$PATH"  # NNAL's script asks python3 for torch's C++ ABI: this venv's python
source {script}
"""


def launcher_text(plan: KernelPlan) -> str:
    """The bash launcher: forget a CANN (and NNAL) loaded before, source this stack's set_env.sh (then NNAL's),
    run the venv's ipykernel."""
    set_env, python = shlex.quote(str(plan.set_env)), shlex.quote(str(plan.venv_python))
    return f"""#!/usr/bin/env bash
# Jupyter kernel "{plan.name}" of software stack {plan.stack}: CANN from {plan.set_env}, Python from {plan.venv_python}.
# Written by `python -m npulab kernelspec`; run it again to change it.
_npulab_drop() {{  # print the colon list $1 without the entries under $2 or $3
  local entry out="" IFS=:
  for entry in $1; do
    case "$entry" in "$2"|"$2"/*|"$3"|"$3"/*) ;; *) out="${{out:+$out:}}$entry" ;; esac
  done
  printf '%s' "$out"
}}
previous="${{ASCEND_HOME_PATH:-${{ASCEND_TOOLKIT_HOME:-}}}}"
if [ -n "$previous" ]; then  # the server's shell had another CANN loaded: drop its paths first
  real=$(readlink -f "$previous" 2>/dev/null || printf '%s' "$previous")
  for name in LD_LIBRARY_PATH PYTHONPATH PATH; do
    export "$name=$(_npulab_drop "${{!name:-}}" "$previous" "$real")"
  done
  unset ASCEND_HOME_PATH ASCEND_TOOLKIT_HOME ASCEND_OPP_PATH ASCEND_AICPU_PATH TOOLCHAIN_HOME
fi
if [ -n "${{ATB_HOME_PATH:-}}" ]; then  # and an NNAL (ATB) it had loaded
  export LD_LIBRARY_PATH="$(_npulab_drop "${{LD_LIBRARY_PATH:-}}" "$ATB_HOME_PATH" "$ATB_HOME_PATH")"
  unset ATB_HOME_PATH
fi
unset -f _npulab_drop
if [ ! -f {set_env} ]; then
  echo "npulab kernel {plan.name}: {t('kernelspec.cann_gone', path=plan.set_env)}" >&2
  exit 1
fi
source {set_env}
{_nnal_lines(plan)}export NPULAB_STACK={shlex.quote(plan.stack)}
exec {python} -m ipykernel_launcher "$@"
"""


def kernel_json(plan: KernelPlan, folder: Path) -> dict:
    """The kernel.json document: argv runs the launcher in ``folder``."""
    return {
        "argv": [shutil.which("bash") or "/bin/bash", str(folder / LAUNCHER), "-f", "{connection_file}"],
        "display_name": plan.display_name,
        "language": "python",
        "metadata": {"npulab": {"stack": plan.stack, "set_env": str(plan.set_env), "cann": plan.cann_version,
                                "nnal_set_env": str(plan.nnal_set_env) if plan.nnal_set_env else None,
                                "python": str(plan.venv_python)}},
    }


def write_kernelspec(plan: KernelPlan, kernels_dir: Path | str) -> Path:
    """Write ``<kernels_dir>/<name>/{kernel.json, launch.sh}`` and return the folder."""
    folder = Path(kernels_dir) / plan.name
    folder.mkdir(parents=True, exist_ok=True)
    launcher = folder / LAUNCHER
    launcher.write_text(launcher_text(plan), encoding="utf-8")
    launcher.chmod(0o755)
    (folder / "kernel.json").write_text(json.dumps(kernel_json(plan, folder), ensure_ascii=False, indent=1) + "\n",
                                        encoding="utf-8")
    return folder


def default_kernels_dir() -> Path:
    """The user's Jupyter kernels folder (``jupyter --data-dir``/kernels; JUPYTER_DATA_DIR moves it)."""
    try:
        from jupyter_core.paths import jupyter_data_dir

        return Path(jupyter_data_dir()) / "kernels"
    except ImportError:
        return Path(os.environ.get("JUPYTER_DATA_DIR", Path.home() / ".local/share/jupyter")) / "kernels"


def venv_python(venv: Path | str) -> Path:
    """``<venv>/bin/python``; UsageError when the folder is not a virtual environment."""
    python = Path(venv).expanduser() / "bin" / "python"
    if not python.exists():
        raise UsageError(t("kernelspec.not_venv", venv=venv, python=python))
    return python


def has_ipykernel(python: Path, timeout: float = 60.0) -> bool:
    """Whether ``python`` can import ipykernel (the kernel would not start otherwise)."""
    try:
        return subprocess.run([str(python), "-c", "import ipykernel"], capture_output=True, timeout=timeout).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


# ---------------------------------------------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------------------------------------------


def build_parser(subparsers, name: str) -> None:
    """Add the ``kernelspec`` sub-command."""
    parser = subparsers.add_parser(
        name, help=t(f"cli.tool.{name}"),
        description="两套 CANN 并存时，每个栈一个内核：内核启动脚本先去掉服务器已加载的 CANN 路径，再 source 该栈的 "
                    "set_env.sh，然后运行该栈 venv 里的 ipykernel。")
    parser.add_argument("--stack", required=True, help="软件栈名（npulab/data/stacks.yaml，例如 triton-ascend）")
    parser.add_argument("--cann", required=True, metavar="DIR",
                        help="该栈用的 CANN：目录（如 /usr/local/Ascend/cann-8.5.0）或它的 set_env.sh")
    parser.add_argument("--venv", required=True, metavar="DIR", help="该栈的虚拟环境（里面要装 ipykernel）")
    parser.add_argument("--nnal", default="", metavar="FILE",
                        help="NNAL 的 set_env.sh（要 NNAL 的栈，如 vllm-ascend；默认找 CANN 安装根目录下的 nnal/atb/set_env.sh，"
                             "再找 /usr/local/Ascend/nnal/atb/set_env.sh）")
    parser.add_argument("--name", default="", help="内核名（默认 npulab-<stack>）")
    parser.add_argument("--kernels-dir", default="", metavar="DIR",
                        help="写到哪个 kernels 目录（默认用户的 Jupyter 数据目录，即 jupyter --data-dir 下的 kernels）")
    parser.add_argument("--force", action="store_true", help="CANN 版本与栈的要求不符、或 venv 里没有 ipykernel 时也照写")
    parser.set_defaults(run=run)


def _cann_matches(stack: str, version: str | None) -> tuple[bool, str]:
    from npulab.env import stack_check

    wanted = stack_check.stacks()[stack].get("cann")
    if not wanted:
        return True, t("kernelspec.no_requirement", stack=stack)
    if version is None:
        return False, t("kernelspec.version_unreadable", stack=stack, wanted=wanted)
    row = next(c for c in stack_check.check_stack(stack, versions=lambda name: None, cann=version) if c.id == "CANN")
    return row.status == "ok", t("kernelspec.versions", version=version, stack=stack, wanted=wanted)


def _nnal_script(args, set_env: Path, stack: dict) -> tuple[Path | None, str]:
    """(NNAL's set_env.sh to source or None, a problem or ""): ``--nnal``, else one found for a stack that needs it."""
    if args.nnal:
        given = Path(args.nnal).expanduser()
        if not given.is_file():
            raise UsageError(t("kernelspec.nnal_missing", path=args.nnal))
        return given.resolve(), ""
    if not stack.get("nnal"):
        return None, ""
    found = next((p for p in nnal_candidates(set_env, stack) if p.is_file()), None)
    if found:
        return found.resolve(), ""
    nnal = stack["nnal"]
    return None, t("kernelspec.nnal_not_found", stack=args.stack, version=nnal["version"], why=localized(nnal, "why"),
                   searched=t("kernelspec.list_sep").join(map(str, nnal_candidates(set_env, stack))))


def run(args) -> int:
    from npulab.env import stack_check

    known = stack_check.stacks()
    if args.stack not in known:
        raise UsageError(t("kernelspec.unknown_stack", name=repr(args.stack), known=t("kernelspec.list_sep").join(known)))
    set_env, inst = resolve_set_env(args.cann)
    python = venv_python(args.venv)
    nnal, nnal_problem = _nnal_script(args, set_env, known[args.stack])
    plan = KernelPlan(args.name or f"npulab-{args.stack}", args.stack, set_env.resolve(),
                      inst.version if inst else None, python.absolute(), nnal)
    matches, detail = _cann_matches(args.stack, plan.cann_version)
    problems = [] if matches else [t("kernelspec.cann_mismatch", detail=detail)]
    problems += [nnal_problem] if nnal_problem else []
    if not has_ipykernel(python):
        problems.append(t("kernelspec.no_ipykernel", python=python))
    if problems and not args.force:
        print(t("kernelspec.not_written", problems=t("kernelspec.problem_sep").join(problems)))
        return EXIT_FAIL
    folder = write_kernelspec(plan, args.kernels_dir or default_kernels_dir())
    print(t("kernelspec.written", name=plan.name, display=plan.display_name, folder=folder))
    nnal_text = t("kernelspec.with_nnal", path=plan.nnal_set_env) if plan.nnal_set_env else ""
    print(t("kernelspec.starts", set_env=plan.set_env, nnal=nnal_text, python=plan.venv_python, detail=detail))
    print(t("kernelspec.check_it", stack=args.stack, python=python))
    for problem in problems:
        print(t("kernelspec.note", problem=problem))
    return EXIT_FAIL if problems else EXIT_OK
