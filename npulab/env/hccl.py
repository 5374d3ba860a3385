"""HCCL's documented settings (npulab/data/hccl_settings.yaml), each with its source: shared by the multi-card lesson
(npulab.pytorch.distributed) and by ``explain``'s communication-timeout rule."""

from __future__ import annotations

from npulab.core.paths import DATA_DIR, load_yaml

HCCL_FILE = DATA_DIR / "hccl_settings.yaml"


def hccl_settings() -> list[dict]:
    """The HCCL settings of the data file, each with its source title (and the title's English twin) and address."""
    data = load_yaml(HCCL_FILE)
    return [dict(s, source_title=data["sources"][s["source"]]["title"],
                 source_title_en=data["sources"][s["source"]].get("title_en"), source_url=data["sources"][s["source"]]["url"])
            for s in data["settings"]]


def hccl_setting(name: str) -> dict:
    """One setting by name (``HCCL_CONNECT_TIMEOUT``); KeyError when the data file does not list it."""
    for setting in hccl_settings():
        if setting["name"] == name:
            return setting
    raise KeyError(name)
