"""CANN's error-code registry (``npulab/data/cann_error_registry.yaml``, extracted by
``scripts/extract_cann_error_registry.py``): each registered code's class title, message template, documented cause
and solution. ``codes.py`` names a code's class from it; ``rules/registry.py`` reads its solution and family."""

from __future__ import annotations

import functools

from npulab.core.paths import DATA_DIR, shared_yaml

REGISTRY_PATH = DATA_DIR / "cann_error_registry.yaml"


@functools.cache
def registry() -> dict[str, dict]:
    """The registered codes (``{"EI0008": {"title": …, "solution": …, "source": …}}``), parsed once per process."""
    return shared_yaml(REGISTRY_PATH)["codes"]


INTERNAL_FROM = 9000  # a module's numbers from here on are its internal errors (error_codes.yaml, cann.ranges)


def is_internal(code: str) -> bool:
    """Whether a CANN code is an internal error: its number is in the internal band, or the registry files it as one
    below that band (46 operator-check codes, ``Inner_Error_Tiling_Fail`` …) — the registry's own word decides."""
    return int(code[2:]) >= INTERNAL_FROM or registry().get(code, {}).get("title", "").startswith("Inner_Error")
