"""On a real CUDA machine: what torch.accelerator answers with the GPU visible and hidden, and whether lesson 03/01's
device-choosing cell (id ``acc02``) runs in both cases.

Run from the repository root:  python scripts/device_checks/accelerator_cuda.py
It runs itself twice in child processes, once as started and once with ``CUDA_VISIBLE_DEVICES=`` (no GPU visible,
the same torch build), and prints for each: current_accelerator() with check_available False and True,
is_available(), device_count(), the device the lesson's cell chose, and whether the cell finished.
Exit code 0 when the cell finished in both children, 1 otherwise.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LESSON = ROOT / "chapters" / "03_pytorch_npu" / "01_cuda_to_npu_migration.ipynb"
CHILD = "--child"


def lesson_cell(cell_id: str = "acc02") -> str:
    """The source of one cell of lesson 03/01."""
    cells = json.loads(LESSON.read_text(encoding="utf-8"))["cells"]
    return next("".join(c["source"]) for c in cells if c.get("id") == cell_id)


def child() -> int:
    """Print what torch.accelerator answers here, then run the lesson's cell; 0 when it finished."""
    import torch

    from npulab.core.device import pick_device

    acc = torch.accelerator
    print(f"torch {torch.__version__} (CUDA build: {torch.version.cuda}), "
          f"CUDA_VISIBLE_DEVICES={os.environ.get('CUDA_VISIBLE_DEVICES', '<unset>')!r}")
    print(f"  current_accelerator()                     = {acc.current_accelerator()}")
    print(f"  current_accelerator(check_available=True) = {acc.current_accelerator(check_available=True)}")
    print(f"  is_available() = {acc.is_available()}, device_count() = {acc.device_count()}")
    device = pick_device()
    print(f"  npulab.pick_device() = {device.torch}")
    namespace = {"torch": torch, "device": device}
    try:
        exec(compile(lesson_cell(), "03_01_acc02", "exec"), namespace)
    except Exception as err:  # the point of the check: report any failure of the cell, then exit 1
        print(f"  LESSON CELL FAILED: {type(err).__name__}: {err}")
        return 1
    print(f"  lesson cell finished on {namespace['target']}")
    return 0


def main() -> int:
    """Run the child with the GPU visible and hidden; 0 when the lesson cell finished both times."""
    sys.path.insert(0, str(ROOT))
    results = []
    for label, extra in (("as started", {}), ("no GPU visible", {"CUDA_VISIBLE_DEVICES": ""})):
        print(f"=== {label} ===", flush=True)
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
               **extra}
        results.append(subprocess.run([sys.executable, __file__, CHILD], env=env, cwd=ROOT).returncode)
    print("RESULT:", "both runs finished" if not any(results) else f"child exit codes {results}")
    return 0 if not any(results) else 1


if __name__ == "__main__":
    if CHILD in sys.argv:
        sys.path.insert(0, str(ROOT))
        sys.exit(child())
    sys.exit(main())
