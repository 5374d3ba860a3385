"""Record the outputs of NPU-only cells on real Ascend hardware (``make record-npu``).

Runs each notebook top to bottom with nbclient, NPU cells included, then keeps the outputs of
the ``npu`` cells only (every other cell is stripped, as in git) and stamps the notebook
metadata with the device, driver, CANN and torch_npu versions and the date. It refuses to run
where no NPU is usable, so no NPU output can come from anywhere else.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable
from pathlib import Path

from npulab.core.cli import EXIT_FAIL, EXIT_OK, UsageError
from npulab.core.i18n import t
from npulab.core.notebook_cells import is_npu_cell, iter_notebooks, read

RECORD_KEY = "npu_recording"


def ascend_environment() -> dict[str, str]:
    """Device, driver, CANN and package versions of this Ascend host (for the notebook stamp)."""
    from npulab.core.device import pick_device
    from npulab.env import cann_install
    from npulab.env.environment_summary import package_version

    device = pick_device("npu")
    if device.kind != "npu":
        raise UsageError(t("record.no_npu"))
    info = cann_install.locate() or cann_install.describe()
    return {
        "device": device.name,
        "driver": str(info.get("driver_version") or "unknown"),
        "cann": str(info.get("version") or "unknown"),
        "torch": package_version("torch") or "unknown",
        "torch_npu": package_version("torch_npu") or "unknown",
        "date": dt.date.today().isoformat(),
    }


def execute_all_cells(nb, cwd: Path, timeout: int = 1800):
    """Execute every cell, including those tagged ``skip-execution`` (the NPU cells)."""
    from nbclient import NotebookClient

    client = NotebookClient(nb, timeout=timeout, skip_cells_with_tag="__npulab_never__",
                            resources={"metadata": {"path": str(cwd)}})
    client.execute()
    return nb


def keep_npu_outputs(executed, stamp: dict[str, str]):
    """Strip every output except those of NPU cells; stamp the notebook metadata."""
    for cell in executed.cells:
        if cell.cell_type != "code":
            continue
        if is_npu_cell(cell):
            cell.metadata[RECORD_KEY] = True
        else:
            cell.outputs = []
            cell.execution_count = None
    executed.metadata.setdefault("course", {})[RECORD_KEY] = stamp
    return executed


def record(path: Path, stamp: dict[str, str], execute: Callable = execute_all_cells) -> int:
    """Record one notebook in place; return the number of NPU cells whose outputs were kept."""
    nb = read(path)
    if not any(is_npu_cell(c) for c in nb.cells):
        return 0
    import nbformat

    start = time.perf_counter()
    executed = execute(nb, path.parent)
    # the run time on the NPU, for the workshop agenda (npulab.workshop.agenda reads it as "recorded")
    seconds = round(time.perf_counter() - start, 1)
    nbformat.write(keep_npu_outputs(executed, {**stamp, "seconds": seconds}), str(path))
    return sum(is_npu_cell(c) for c in executed.cells)


def build_parser(subparsers, name: str) -> None:
    parser = subparsers.add_parser(
        name, help=t(f"cli.tool.{name}"),
        description="在昇腾 NPU 上执行笔记本，只保留 npu 单元的输出，并在元数据中记录设备与版本。",
    )
    parser.add_argument("paths", nargs="*", help="笔记本或目录（默认：chapters/ 与 notebooks/）")
    parser.set_defaults(run=run)


def run(args) -> int:
    missing = [p for p in args.paths if not Path(p).exists()]
    if missing:
        raise UsageError(t("record.missing", paths=", ".join(missing)))
    stamp = ascend_environment()
    failed = 0
    for path in iter_notebooks(args.paths or None):
        try:
            kept = record(path, stamp)
        except Exception as err:  # report and continue with the next notebook
            failed += 1
            print(f"✗ {path}: {type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}")
            continue
        if kept:
            print(t("record.kept", path=path, count=kept, device=stamp["device"], cann=stamp["cann"]))
    return EXIT_FAIL if failed else EXIT_OK
