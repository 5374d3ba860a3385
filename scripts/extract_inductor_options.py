#!/usr/bin/env python3
"""Regenerate npulab/data/inductor_options.json: the names ``torch.compile(options={…})`` accepts and the type torch
checks each value against, read from the installed (pinned) torch.

``torch.compile`` hands ``options`` to ``_TorchCompileInductorWrapper.apply_options`` (torch/__init__.py), which takes
``torch._inductor.config.get_config_copy()`` as the known names (a ``-`` in a key read as ``_``), refuses any other
("Unexpected optimization option"), and checks ``isinstance(value, config.get_type(name))`` where that type is not a
subscripted generic ("Unexpected type of attr"). Importing ``torch._inductor.config`` takes seconds (it imports the
compiler), so lint reads this file instead. Only the builtin types are written; a generic or another class is null
(not checked by lint).

Usage: ``python scripts/extract_inductor_options.py``
"""

from __future__ import annotations

import json
import typing
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "npulab" / "data" / "inductor_options.json"
_BUILTINS = {t.__name__: t for t in (bool, int, float, str, list, dict, tuple, set)}


def main() -> None:
    import torch
    from torch._inductor import config

    options = {}
    for name in sorted(config.get_config_copy()):
        kind = config.get_type(name)
        plain = typing.get_origin(kind) is None and getattr(kind, "__name__", None) in _BUILTINS \
            and _BUILTINS[kind.__name__] is kind
        options[name] = kind.__name__ if plain else None
    data = {"torch": torch.__version__.split("+")[0],
            "source": "torch._inductor.config.get_config_copy() and get_type(), as torch/__init__.py "
                      "_TorchCompileInductorWrapper.apply_options reads them",
            "options": options}
    OUT.write_text(json.dumps(data, indent=0, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
