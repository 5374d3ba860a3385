"""The CUDA → NPU API map, generated from ``npulab/data/cuda_npu_api.yaml``."""

from __future__ import annotations

import re

from npulab.core.display import Table
from npulab.core.i18n import localized, t
from npulab.core.paths import DATA_DIR, load_yaml

API_FILE = DATA_DIR / "cuda_npu_api.yaml"


def load() -> dict:
    return load_yaml(API_FILE)


def pairs(seed_only: bool = False) -> list[dict]:
    """Rows of the map: purpose, cuda, npu, seed (True for the seed article's ten pairs)."""
    rows = load()["pairs"]
    return [dict(r) for r in rows if r.get("seed") or not seed_only]


def npu_api_names() -> set[str]:
    """Dotted ``torch.npu.*`` names the map mentions (checked against the real torch_npu wheel)."""
    return {m for row in pairs() for m in re.findall(r"torch\.npu(?:\.\w+)+", row["npu"])}


def table(seed_only: bool = False) -> Table:
    """The map as a table: purpose, CUDA, NPU, and whether the pair is one of the seed article's ten."""
    rows = [(localized(r, "purpose"), localized(r, "cuda"), localized(r, "npu"), t("migrate.api_seed") if r.get("seed") else t("migrate.api_added"))
            for r in pairs(seed_only)]
    return Table((t("migrate.api_purpose"), "CUDA", t("migrate.api_npu"), t("migrate.api_source")), rows, code_columns={1, 2})
