"""The decision table "how to get a computation onto an Ascend NPU", kept as data in ``npulab/data/kernel_paths.yaml``.

Six paths from plain torch ops to Ascend C, each with what the author writes, how it reaches the NPU, when to use
it, a 1–5 rating of effort and of control (the course's qualitative judgement, labelled so), what limits its
performance, its debugging tools and public sources. ``table()`` gives Markdown, ``draw()`` a chart.

>>> [p["id"] for p in paths()][:3]
['torch_ops', 'torch_compile', 'triton_ascend']
"""

from __future__ import annotations

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
        problems += [f"{pid}：缺少字段 {f}" for f in FIELDS if f not in p]
        if pid in seen:
            problems.append(f"{pid}：id 重复")
        seen.add(pid)
        for rating in ("effort", "control"):
            if not isinstance(p.get(rating), int) or not 1 <= p[rating] <= 5:
                problems.append(f"{pid}：{rating} 须是 1–5 的整数")
        for s in p.get("sources", []):
            if not str(s.get("url", "")).startswith("https://"):
                problems.append(f"{pid}：来源 {s.get('title')!r} 没有 https 地址")
        if not p.get("sources"):
            problems.append(f"{pid}：没有来源")
    return problems


def table(columns: tuple[str, ...] = ("name", "level", "when", "effort", "control", "ceiling", "debugging")) -> str:
    """The table as Markdown (one row per path), ratings marked as the course's qualitative ratings."""
    heads = {"name": "路线", "level": "你写什么", "on_npu": "怎样到达 NPU", "when": "什么时候用", "effort": "努力程度（定性 1–5）",
             "control": "控制力（定性 1–5）", "ceiling": "性能上限受什么限制", "debugging": "调试工具", "sources": "来源"}
    lines = ["| " + " | ".join(heads[c] for c in columns) + " |", "|" + "---|" * len(columns)]
    for p in paths():
        cells = []
        for c in columns:
            if c == "sources":
                cells.append("；".join(f"[{s['title']}]({s['url']})" for s in p["sources"]))
            else:
                cells.append(str(p[c]).replace("|", "\\|"))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def draw(ax=None):
    """Effort and control of each path as paired bars (qualitative ratings, not measurements)."""
    import matplotlib.pyplot as plt

    ps = paths()
    if ax is None:
        _, ax = plt.subplots(figsize=(10, 3.6))
    xs = range(len(ps))
    ax.bar([x - 0.2 for x in xs], [p["effort"] for p in ps], width=0.4, label="努力程度", color="#E0A040")
    ax.bar([x + 0.2 for x in xs], [p["control"] for p in ps], width=0.4, label="控制力", color="#4080C0")
    ax.set_xticks(list(xs), [p["name"].split("（")[0] for p in ps], fontsize=8.5)
    ax.set_ylim(0, 5.5)
    ax.set_yticks(range(1, 6))
    ax.set_ylabel("定性评级（1–5）")
    ax.set_title("写核函数的六条路线：从左到右，努力更多、控制更细（课程的定性评级，不是测量值）", fontsize=9.5)
    ax.legend(loc="upper left", fontsize=8.5)
    return ax.figure
