"""The decision table "how to get a computation onto an Ascend NPU", kept as data in ``npulab/data/kernel_paths.yaml``.

Six paths from plain torch ops to Ascend C, each with what the author writes, how it reaches the NPU, when to use
it, a 1–5 rating of effort and of control (the course's qualitative judgement, labelled so), what limits its
performance, its debugging tools and public sources. ``table()`` gives Markdown, ``draw()`` a chart.

>>> [p["id"] for p in paths()][:3]
['torch_ops', 'torch_compile', 'triton_ascend']
"""

from __future__ import annotations

from npulab.core.i18n import language, localized, t
from npulab.core.paths import DATA_DIR, load_yaml

DATA_FILE = DATA_DIR / "kernel_paths.yaml"
FIELDS = ("id", "name", "level", "on_npu", "when", "effort", "control", "ceiling", "debugging", "sources")


def data() -> dict:
    return load_yaml(DATA_FILE)


def paths() -> list[dict]:
    """The paths in order, least effort first."""
    return list(data()["paths"])


def check() -> list[str]:
    """Problems in the data file (missing fields, ratings outside 1–5, sources without a URL); empty when fine."""
    problems = []
    seen = set()
    for i, p in enumerate(paths()):
        pid = p.get("id", f"#{i}")
        problems += [t("kernel.missing_field", pid=pid, field=f) for f in FIELDS if f not in p]
        if pid in seen:
            problems.append(t("kernel.duplicate_id", pid=pid))
        seen.add(pid)
        for rating in ("effort", "control"):
            if not isinstance(p.get(rating), int) or not 1 <= p[rating] <= 5:
                problems.append(t("kernel.rating", pid=pid, rating=rating))
        for s in p.get("sources", []):
            if not str(s.get("url", "")).startswith("https://"):
                problems.append(t("kernel.no_https", pid=pid, title=repr(s.get("title"))))
        if not p.get("sources"):
            problems.append(t("kernel.no_source", pid=pid))
    return problems


def table(columns: tuple[str, ...] = ("name", "level", "when", "effort", "control", "ceiling", "debugging")) -> str:
    """The table as Markdown (one row per path), ratings marked as the course's qualitative ratings."""
    heads = {"name": lambda: t("kernel.head_name"), "level": lambda: t("kernel.head_level"),
             "on_npu": lambda: t("kernel.head_on_npu"), "when": lambda: t("kernel.head_when"),
             "effort": lambda: t("kernel.head_effort"), "control": lambda: t("kernel.head_control"),
             "ceiling": lambda: t("kernel.head_ceiling"), "debugging": lambda: t("kernel.head_debugging"),
             "sources": lambda: t("kernel.head_sources")}
    english = language() == "en"
    lines = ["| " + " | ".join(heads[c]() for c in columns) + " |", "|" + "---|" * len(columns)]
    for p in paths():
        cells = []
        for c in columns:
            if c == "sources":
                cells.append(("; " if english else "；").join(f"[{localized(s, 'title')}]({s['url']})"
                                                              for s in p["sources"]))
            else:
                cells.append(str(localized(p, c)).replace("|", "\\|"))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def draw(ax=None):
    """Effort and control of each path as paired bars (qualitative ratings, not measurements)."""
    import matplotlib.pyplot as plt

    ps = paths()
    if ax is None:
        _, ax = plt.subplots(figsize=(10, 3.6))
    xs = range(len(ps))
    ax.bar([x - 0.2 for x in xs], [p["effort"] for p in ps], width=0.4, label=t("kernel.effort"), color="#E0A040")
    ax.bar([x + 0.2 for x in xs], [p["control"] for p in ps], width=0.4, label=t("kernel.control"), color="#4080C0")
    ax.set_xticks(list(xs), [localized(p, "name").split("（")[0].split(" (")[0] for p in ps], fontsize=8.5)
    ax.set_ylim(0, 5.5)
    ax.set_yticks(range(1, 6))
    ax.set_ylabel(t("kernel.ylabel"))
    ax.set_title(t("kernel.title"), fontsize=9.5)
    ax.legend(loc="upper left", fontsize=8.5)
    return ax.figure
