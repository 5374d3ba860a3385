"""The CUDA → NPU API map, generated from ``assets/data/cuda_npu_api.yaml``."""

from __future__ import annotations

import html
import re

from npulab.paths import DATA_DIR, load_yaml

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


class ApiTable:
    """Renders the map as an HTML table (Jupyter, book) or text."""

    def __init__(self, rows: list[dict]):
        self.rows = rows

    def _repr_html_(self) -> str:
        def code(s: str) -> str:
            return f"<code>{html.escape(s)}</code>"

        body = "".join(
            f"<tr><td>{html.escape(r['purpose'])}</td><td>{code(r['cuda'])}</td><td>{code(r['npu'])}</td>"
            f"<td>{'原文 10 组' if r.get('seed') else '补充'}</td></tr>"
            for r in self.rows
        )
        return (
            '<table class="npulab-figures"><thead><tr><th>用途</th><th>CUDA</th><th>昇腾 NPU</th><th>出处</th>'
            f"</tr></thead><tbody>{body}</tbody></table>"
        )

    def __repr__(self) -> str:
        return "\n".join(f"{r['purpose']}: {r['cuda']} → {r['npu']}" for r in self.rows)


def table(seed_only: bool = False) -> ApiTable:
    return ApiTable(pairs(seed_only))
