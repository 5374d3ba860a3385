"""Benchmark `python -m npulab explain` on a large generated log (default 200 MB): time and peak memory.

    python scripts/bench_explain.py [MEGABYTES] [--keep]

The log looks like a healthy training log (metric lines and progress bars) with one CANN load error on the first
line and one NPU out-of-memory error on the last, so the whole file must be read. Prints lines, findings, seconds,
MB/s and the peak resident memory of the process (ru_maxrss). tests/test_explain.py runs the same on 40 MB.
"""

from __future__ import annotations

import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from npulab.env.explain import explain_file  # noqa: E402

FIRST = b"ImportError: libhccl.so: cannot open shared object file: No such file or directory\n"
LAST = b"RuntimeError: NPU out of memory. Tried to allocate 5.03 GiB (NPU 3; 60.96 GiB total capacity)\n"
BODY = ("{'loss': 0.7321, 'grad_norm': 0.8312, 'learning_rate': 4.9e-06, 'epoch': 0.1}\n"
        "  3%|▎         | 57/1308 [08:13<2:44:51,  7.95s/it]\n").encode()


def main(argv: list[str]) -> int:
    megabytes = int(argv[0]) if argv and argv[0].isdigit() else 200
    folder = Path(tempfile.mkdtemp(prefix="npulab-explain-"))
    log = folder / "big.log"
    block = BODY * ((1 << 20) // len(BODY))
    with log.open("wb") as f:
        f.write(FIRST)
        for _ in range(megabytes):
            f.write(block)
        f.write(LAST)
    size_mb = log.stat().st_size / 1e6
    start = time.perf_counter()
    report = explain_file(log)
    seconds = time.perf_counter() - start
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"log: {size_mb:.0f} MB, {report.lines_read} lines; findings: {', '.join(report.categories)}")
    print(f"time: {seconds:.1f} s ({size_mb / seconds:.0f} MB/s); peak memory of this process: {peak_mb:.0f} MB")
    if "--keep" not in argv:
        log.unlink()
        folder.rmdir()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
