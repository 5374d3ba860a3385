#!/usr/bin/env python3
"""Regenerate npulab/data/mindspore_api.json: what MindSpore's sources cannot tell lint-npu without running it.

Most of MindSpore is read by lint-npu straight from the installed wheel's Python sources (names, ``def``
signatures, the lists its validation code tests values against: npulab.lint.signatures, api_values). Two
things only exist at run time, so this script imports the installed ``mindspore`` (the version requirements.txt
pins) and records them:

- ``tensor_members``: the public attributes of ``mindspore.Tensor`` (half of its methods are defined in C++ on
  ``TensorPy``, so ``t.asnumpy()`` or ``t.add(...)`` cannot be checked from the Python sources alone);
- ``keywords``: the keywords ``set_context(**kwargs)`` accepts — its ``@args_type_check`` list, ``_Context.setters``,
  the context's (non-method) attributes and the public members of the C++ enum ``ms_ctx_param``, minus the keys its own checks
  refuse (``_check_key``: "set it through ascend_config"; ``_check_context_deprecated``: removed keys).

Usage: ``python scripts/extract_mindspore_api.py`` in the course venv. CI never runs it: lint-npu reads the
committed JSON. Re-run it when the MindSpore pin changes, and commit the result.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("GLOG_v", "4")

from npulab.lint.context import requirement_pin  # noqa: E402

OUT = Path(__file__).resolve().parent.parent / "npulab" / "data" / "mindspore_api.json"


def _refused(check, key: str) -> bool:
    try:
        check(key)
    except ValueError:
        return True
    return False


def set_context_keywords(ms) -> list[str]:
    """The keys ``mindspore.set_context`` accepts, by its own code."""
    from mindspore import _checkparam, context  # noqa: F401 (context is the module that defines set_context)

    wrapped = context.set_context
    checked: set[str] = set()
    for cell in wrapped.__closure__ or ():  # args_type_check keeps the keyword -> type table in its closure
        value = cell.cell_contents
        if isinstance(value, dict):
            checked |= set(value.get("kwargs", value))
    ctx = context._context()
    attributes = {n for n in dir(ctx) if not n.startswith("_") and n != "setters" and not callable(getattr(ctx, n, None))}
    candidates = checked | set(context._Context.setters) | attributes
    candidates |= {n for n in context.ms_ctx_param.__members__ if not n.startswith("_")}
    return sorted(k for k in candidates
                  if not _refused(context._check_key, k) and not _refused(context._check_context_deprecated, k))


def main() -> int:
    import mindspore as ms

    pin = requirement_pin("mindspore")
    if ms.__version__ != pin:
        print(f"installed mindspore {ms.__version__} is not the pinned {pin}", file=sys.stderr)
        return 1
    data = {
        "generated_by": "scripts/extract_mindspore_api.py",
        "package": "mindspore",
        "version": ms.__version__,
        "tensor_members": sorted(n for n in dir(ms.Tensor) if not n.startswith("_")),
        "keywords": {"mindspore.context.set_context": set_context_keywords(ms)},
    }
    OUT.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {OUT}: {len(data['tensor_members'])} Tensor members, "
          f"{len(data['keywords']['mindspore.context.set_context'])} set_context keywords")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
