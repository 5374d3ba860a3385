"""Fake ``triton`` packages on disk (community-like or Triton-Ascend-like) and a guard that keeps them out of other tests.

Only the module layout is faked — the modules torch_npu's inductor imports (``npulab.env.triton_ascend``) — so the real
import machinery decides what is importable.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def make_fake_triton(root: Path | str, *, libdevice: str | None, ascend_backend: bool) -> Path:
    """Write ``<root>/triton``: ``libdevice`` "cann" or "ascend" adds ``triton/language/extra/<it>/libdevice.py``;
    ``ascend_backend`` adds ``triton/backends/ascend``. Without both it looks like community Triton. Returns ``root``."""
    root = Path(root)
    files = ["triton/__init__.py", "triton/language/__init__.py", "triton/language/extra/__init__.py",
             "triton/backends/__init__.py"]
    if libdevice:
        files += [f"triton/language/extra/{libdevice}/__init__.py", f"triton/language/extra/{libdevice}/libdevice.py"]
    if ascend_backend:
        files.append("triton/backends/ascend/__init__.py")
    for rel in files:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text('"""Fake module written by npulab.testing.fake_triton."""\n', encoding="utf-8")
    return root


@contextmanager
def forgotten_modules(package: str = "triton") -> Iterator[None]:
    """Remove ``package`` and its submodules from ``sys.modules`` for the block; afterwards drop what the block imported
    and put the originals back."""
    def names() -> list[str]:
        return [n for n in sys.modules if n == package or n.startswith(package + ".")]

    saved = {n: sys.modules.pop(n) for n in names()}
    try:
        yield
    finally:
        for n in names():
            del sys.modules[n]
        sys.modules.update(saved)
