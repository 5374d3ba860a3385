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
