"""Should this project move from GPU to NPU? The decision tree of chapter 06 as data, as a function and as a tool.

The tree lives in ``npulab/data/migration_tree.yaml``: one question after another, each option either going on
or ending the walk, and adding a row of the porting cost table (``npulab/data/migration_costs.yaml``, shared
with the chapter-03 analyzer), a step, a risk, or a more cautious verdict. ``assess(answers)`` walks it and
returns an ``Assessment``: recommendation, steps, risks and an effort range — the seed article's estimate for
that row, a reported figure, not a measurement. ``answers_from_scan`` fills the answers a scan by
``npulab.migrate`` can detect; ``draw`` plots the tree; ``walkthrough`` is an ipywidgets form.

Command line: ``python -m npulab strategy --answer framework=pytorch ... [--scan PATH] [--json]``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass

from npulab.core.cli import EXIT_OK, UsageError
from npulab.core.i18n import in_language, t
from npulab.core.paths import DATA_DIR, load_yaml

TREE_FILE = DATA_DIR / "migration_tree.yaml"


class StrategyError(ValueError):
    """Answers that do not fit the tree (unknown question or option, a question on the path left open)."""


def tree(lang: str | None = None) -> dict:
    """The decision tree as loaded from its data file, its texts in the reader's language (``lang``, default
    :func:`npulab.core.i18n.language`)."""
    return in_language(load_yaml(TREE_FILE), lang)


def _costs() -> dict:
    from npulab.migrate.effort import costs

    return costs()


def scenario_order() -> list[str]:
    """Cost-table row ids from the least to the most work."""
    return [row["id"] for row in _costs()["scenarios"]]


def verdict_order() -> list[str]:
    return list(tree()["verdicts"])


def questions() -> list[tuple[str, str, list[tuple[str, str]]]]:
    """(question id, question, [(option id, label)]) in the order a walk meets them."""
    data = tree()
    out, seen, todo = [], set(), [data["start"]]
    while todo:
        node_id = todo.pop(0)
        if node_id in seen:
            continue
        seen.add(node_id)
        node = data["nodes"][node_id]
        out.append((node_id, node["question"], [(k, v["label"]) for k, v in node["options"].items()]))
        todo += [o["next"] for o in node["options"].values() if o.get("next")]
    return out


def check_tree() -> list[str]:
    """Problems in the data file (dangling links, unknown rows, verdicts or sources); empty when it is sound."""
    data, problems = tree(), []
    rows, verdicts, sources = set(scenario_order()), set(data["verdicts"]), set(data["sources"])
    effects = [(f"{n}.{o}", opt) for n, node in data["nodes"].items() for o, opt in node["options"].items()]
    effects += [(f"leaf {k}", leaf) for k, leaf in data["leaves"].items()]
    for where, effect in effects:
        if effect.get("next") and effect["next"] not in data["nodes"]:
            problems.append(f"{where}: next → 不存在的问题 {effect['next']}")
        if effect.get("leaf") and effect["leaf"] not in data["leaves"]:
            problems.append(f"{where}: leaf → 不存在的结论 {effect['leaf']}")
        if effect.get("scenario") and effect["scenario"] not in rows:
            problems.append(f"{where}: 成本表里没有 {effect['scenario']}")
        if effect.get("verdict") and effect["verdict"] not in verdicts:
            problems.append(f"{where}: 未知结论 {effect['verdict']}")
        problems += [f"{where}: 未知来源 {s}" for s in effect.get("sources", []) if s not in sources]
    problems += [f"scenario_verdicts: {k}" for k in data["scenario_verdicts"] if k not in rows]
    reached = {q for q, _, _ in questions()}
    problems += [f"问题 {n} 从起点走不到" for n in data["nodes"] if n not in reached]
    return problems


@dataclass(frozen=True)
class Assessment:
    """The outcome of a walk through the tree."""

    verdict: str  # id in the tree's `verdicts`
    recommendation: str  # the verdict's label and summary, one sentence
    steps: tuple[str, ...]
    risks: tuple[str, ...]
    scenario: dict | None  # the cost-table row: id, label, seed_row, seed_estimate, days
    path: tuple[tuple[str, str], ...]  # (question id, option id) in walk order
    sources: tuple[str, ...]  # source keys of the tree

    @property
    def effort_days(self) -> tuple[int, int] | None:
        """The seed's estimate for the row, in days (reported, not measured); None when the table has no row."""
        return tuple(self.scenario["days"]) if self.scenario else None

    def describe(self) -> str:
        """The assessment as text in the reader's language (what the page shows when no kernel is running)."""
        data = tree()
        lines = [t("strategy.verdict", text=self.recommendation)]
        if self.scenario:
            lo, hi = self.effort_days
            lines.append(t("strategy.effort", label=self.scenario["label"], seed_row=self.scenario["seed_row"],
                           estimate=self.scenario["seed_estimate"], lo=lo, hi=hi))
        else:
            lines.append(t("strategy.effort_none"))
        lines += [t("strategy.steps")] + [f"  {i}. {s}" for i, s in enumerate(self.steps, 1)]
        lines += [t("strategy.risks")] + ([f"  - {r}" for r in self.risks] or [t("strategy.no_risks")])
        nodes = data["nodes"]
        lines.append(t("strategy.path") + " → ".join(
            t("strategy.path_step", topic=nodes[q]["topic"], label=nodes[q]["options"][o]["label"]) for q, o in self.path))
        if self.sources:
            lines.append(t("strategy.sources") + t("migrate.semi_sep").join(data["sources"][s]["title"] for s in self.sources))
        return "\n".join(lines)

    def to_dict(self) -> dict:
        return {"verdict": self.verdict, "recommendation": self.recommendation, "steps": list(self.steps),
                "risks": list(self.risks), "scenario": self.scenario, "effort_days": self.effort_days,
                "path": [list(p) for p in self.path], "sources": list(self.sources)}


def _row(scenario_id: str | None) -> dict | None:
    if scenario_id is None:
        return None
    row = next(r for r in _costs()["scenarios"] if r["id"] == scenario_id)
    return {key: row[key] for key in ("id", "label", "seed_row", "seed_estimate", "days")}


def _option_list(node_id: str) -> str:
    node = tree()["nodes"][node_id]
    return t("migrate.list_sep").join(t("strategy.option", option=k, label=v["label"]) for k, v in node["options"].items())


def assess(answers: Mapping[str, str]) -> Assessment:
    """Walk the tree with ``answers`` (question id → option id) and return the assessment.

    Every question on the path must be answered; answers to questions after an early end are ignored.
    StrategyError (in the reader's language) names an unknown question or option, or the first open question and its options.

    >>> a = assess({"framework": "pytorch", "kernels": "simple", "compile": "eager", "libraries": "none",
    ...             "distributed": "ddp", "stage": "stable", "latency": "normal"})
    >>> a.verdict, a.scenario["id"], a.effort_days
    ('go_with_work', 'simple_kernel', (7, 14))
    """
    data = tree()
    sep = t("migrate.list_sep")
    unknown = [q for q in answers if q not in data["nodes"]]
    if unknown:
        raise StrategyError(t("strategy.unknown_questions", unknown=sep.join(map(str, unknown)), known=sep.join(data["nodes"])))
    verdicts = verdict_order()
    rows = scenario_order()
    verdict, scenario = verdicts[0], None
    steps, risks, sources, path = [], [], [], []

    def apply(effect: dict) -> None:
        nonlocal verdict, scenario
        row = effect.get("scenario")
        if row and (scenario is None or rows.index(row) > rows.index(scenario)):
            scenario = row
        if effect.get("verdict") and verdicts.index(effect["verdict"]) > verdicts.index(verdict):
            verdict = effect["verdict"]
        for key, bucket in (("step", steps), ("risk", risks)):
            if effect.get(key) and effect[key] not in bucket:
                bucket.append(effect[key])
        sources.extend(s for s in effect.get("sources", []) if s not in sources)

    node_id = data["start"]
    while node_id:
        node = data["nodes"][node_id]
        if node_id not in answers or answers[node_id] in (None, ""):
            raise StrategyError(t("strategy.unanswered", question=node["question"], node=node_id, options=_option_list(node_id)))
        choice = answers[node_id]
        if choice not in node["options"]:
            raise StrategyError(t("strategy.no_option", node=node_id, choice=repr(choice), options=_option_list(node_id)))
        option = node["options"][choice]
        path.append((node_id, choice))
        apply(option)
        if option.get("leaf"):
            apply(data["leaves"][option["leaf"]])
            break
        node_id = option.get("next")
    if scenario is not None:
        floor = data["scenario_verdicts"][scenario]
        if verdicts.index(floor) > verdicts.index(verdict):
            verdict = floor
    info = data["verdicts"][verdict]
    return Assessment(verdict, t("strategy.recommendation", label=info["label"], summary=info["summary"]), tuple(steps), tuple(risks), _row(scenario),
                      tuple(path), tuple(sources))


# --- answers a scan can detect ---------------------------------------------------------------------------


def _detect(result) -> dict[str, tuple[str, str]]:
    """Question id → (option id, the evidence in the reader's language) for what a ``npulab.migrate`` scan shows."""
    from npulab.migrate import tables

    found: dict[str, tuple[str, str]] = {}
    sep = t("migrate.list_sep")
    rules = {f.rule for f in result.findings}
    limit = _costs()["complex_kernel_threshold"]
    kernels = sum(s.kernels for s in result.cuda_sources)
    lines = sum(s.lines for s in result.cuda_sources)
    builds = sum(1 for f in result.findings if f.rule == "cpp-extension")
    packages = sorted({f.detail for f in result.findings if f.rule == "cuda-package" and f.detail})
    spec = {p: tables.load()["packages"].get(p, {}) for p in packages}
    kernel_packages = [p for p in packages if spec[p].get("scenario") == "simple_kernel" and p != "triton"]
    if kernels + builds >= limit["kernels"] or lines >= limit["cuda_lines"]:
        found["kernels"] = ("complex", t("strategy.kernels_complex", files=len(result.cuda_sources), lines=lines,
                                          kernels=kernels, builds=builds))
    elif kernels or builds or kernel_packages:
        what = t("strategy.kernels_simple", kernels=kernels, builds=builds) + (
            t("strategy.kernel_packages", packages=sep.join(kernel_packages)) if kernel_packages else "")
        found["kernels"] = ("simple", what)
    elif "triton" in packages:
        found["kernels"] = ("triton", t("strategy.triton"))
    else:
        found["kernels"] = ("none", t("strategy.no_kernels"))
    found["compile"] = ("graph", t("strategy.compile")) if "compile" in rules else ("eager", t("strategy.no_compile"))
    by_row = {row: [p for p in packages if spec[p].get("scenario") == row] for row in ("complex_kernel", "full_pipeline")}
    replaceable = [p for p in packages if spec[p].get("scenario") == "env_debugging"]
    if by_row["complex_kernel"]:
        found["libraries"] = ("no_equivalent", t("strategy.depends", packages=sep.join(by_row["complex_kernel"])))
    elif by_row["full_pipeline"]:
        found["libraries"] = ("deploy", t("strategy.depends", packages=sep.join(by_row["full_pipeline"])))
    elif replaceable or rules & {"env-var", "env-var-manual", "nvidia-tool", "nccl-api"}:
        found["libraries"] = ("replaceable", t("strategy.depends", packages=sep.join(replaceable) or t("strategy.nvidia_env_tools")))
    else:
        found["libraries"] = ("none", t("strategy.no_libraries"))
    if rules & {"nccl-backend", "nccl-api"}:
        found["distributed"] = ("ddp", t("strategy.nccl"))
    return found


def answers_from_scan(result) -> dict[str, str]:
    """The answers a ``npulab.migrate.scan`` result can fill in: kernels, compile, libraries, and distributed when
    the code uses NCCL. Framework, project stage and latency needs are for people to answer."""
    return {q: option for q, (option, _) in _detect(result).items()}


def scan_evidence(result) -> dict[str, str]:
    """Why ``answers_from_scan`` chose each answer (in the reader's language, one line per question)."""
    return {q: evidence for q, (_, evidence) in _detect(result).items()}


# --- the diagram and the widget ---------------------------------------------------------------------------

_COLORS = {"plain": "#F2F2F2", "row": "#FFF2CC", "evaluate_first": "#F8CBAD", "not_now": "#E6B8B7", "question": "#DDEBF7"}


_CLOSING = set("，。、；：？！）」")


def _wrap(text: str, width: float) -> str:
    """Break ``text`` into lines of about ``width`` CJK characters, keeping Latin words whole."""
    lines, line, used = [], "", 0.0
    for token in re.findall(r"[A-Za-z0-9_.+/-]+|\s+|.", text):
        size = sum(0.55 if ord(ch) < 128 else 1.0 for ch in token)
        if used + size > width and line.strip() and token not in _CLOSING:  # closing marks never start a line
            lines.append(line.rstrip())
            line, used = "", 0.0
            if token.isspace():
                continue
        line, used = line + token, used + size
    lines.append(line.rstrip())
    return "\n".join(lines)


def _color(option: dict) -> str:
    data = tree()
    verdict = option.get("verdict") or (data["leaves"][option["leaf"]]["verdict"] if option.get("leaf") else None)
    if verdict in _COLORS:
        return _COLORS[verdict]
    return _COLORS["row"] if option.get("scenario") else _COLORS["plain"]


def draw(ax=None, path: tuple[tuple[str, str], ...] | list | None = None):
    """Draw the tree from its data file, one row per question; options on ``path`` get a thick outline."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import FancyBboxPatch

    data = tree()
    qs = questions()
    chosen = set(map(tuple, path or ()))
    step, width, first = 2.35, 2.15, 5.55  # option spacing, option width, x of the first option
    columns = max(len(opts) for _, _, opts in qs)
    leaf_x = first + columns * step + 0.6
    if ax is None:
        _, ax = plt.subplots(figsize=(13, 1.25 * len(qs) + 0.8))

    def box(x, y, w, h, text, color, bold=False, size=8):
        ax.add_patch(FancyBboxPatch((x - w / 2, y - h / 2), w, h, boxstyle="round,pad=0.03", facecolor=color,
                                    edgecolor="black" if bold else "#909090", linewidth=2.4 if bold else 0.6))
        ax.text(x, y, text, ha="center", va="center", fontsize=size)

    for row, (qid, question, options) in enumerate(qs):
        y = -row * 1.3
        box(2.35, y, 4.5, 0.9, _wrap(f"{row + 1}．{question}", 15), _COLORS["question"], size=8.5)
        for k, (oid, _) in enumerate(options):
            option = data["nodes"][qid]["options"][oid]
            x = first + k * step
            text = _wrap(option["short"], 9) + (f"\n[{option['scenario']}]" if option.get("scenario") else "")
            box(x, y, width, 0.9, text, _color(option), bold=(qid, oid) in chosen, size=7.5)
            if option.get("leaf"):
                leaf = data["leaves"][option["leaf"]]
                box(leaf_x + 1.0, y, 2.0, 0.9, _wrap(data["verdicts"][leaf["verdict"]]["label"], 7) + "\n" + t("strategy.end"),
                    _COLORS[leaf["verdict"]], size=8)
                ax.annotate("", xy=(leaf_x, y), xytext=(x + width / 2 + 0.05, y),
                            arrowprops=dict(arrowstyle="->", color="#B04040", linewidth=1.2))
        if row + 1 < len(qs):
            ax.annotate("", xy=(2.35, y - 0.85), xytext=(2.35, y - 0.45), arrowprops=dict(arrowstyle="->", color="#606060"))
    ax.set_xlim(0, leaf_x + 2.1)
    ax.set_ylim(-(len(qs) - 1) * 1.3 - 0.6, 0.6)
    ax.axis("off")
    ax.set_title(t("strategy.title"), fontsize=9.5)
    return ax.figure


def walkthrough(initial: Mapping[str, str] | None = None):
    """An ipywidgets form: one row of buttons per question, the assessment below, updated on every click."""
    import ipywidgets as widgets

    initial = dict(initial or {})
    output = widgets.Output()
    rows, buttons = [], {}
    for qid, question, options in questions():
        spec = tree()["nodes"][qid]["options"]
        toggle = widgets.ToggleButtons(options=[(spec[oid]["short"], oid) for oid, _ in options],
                                       tooltips=[label for _, label in options],
                                       value=initial.get(qid, options[0][0]), style={"button_width": "auto"})
        buttons[qid] = toggle
        rows.append(widgets.VBox([widgets.HTML(f"<b>{question}</b>"), toggle]))

    def refresh(_=None) -> None:
        a = assess({q: b.value for q, b in buttons.items()})
        on_path = {q for q, _ in a.path}
        for (qid, _, _), row in zip(questions(), rows, strict=True):
            row.layout.display = "" if qid in on_path else "none"
        output.clear_output()
        with output:
            print(a.describe())

    for toggle in buttons.values():
        toggle.observe(refresh, names="value")
    refresh()
    return widgets.VBox(rows + [output])


# --- command line -----------------------------------------------------------------------------------------


def _parse_answers(items: list[str]) -> dict[str, str]:
    answers = {}
    for item in items:
        question, sep, option = item.partition("=")
        if not sep or not question.strip() or not option.strip():
            raise UsageError(t("strategy.bad_answer", item=repr(item)))
        answers[question.strip()] = option.strip()
    return answers


def build_parser(subparsers, name: str) -> None:
    parser = subparsers.add_parser(name, help=t(f"cli.tool.{name}"),
                                   description="GPU → NPU 迁移决策（第 06 章的决策树）：回答问题或扫描代码，得到结论、风险与工作量。")
    parser.add_argument("--answer", action="append", default=[], metavar="问题=选项", help="回答一个问题（可重复）")
    parser.add_argument("--scan", action="append", default=[], metavar="PATH",
                        help="先用 npulab migrate 扫描代码，自动填入能检测到的答案（可重复）")
    parser.add_argument("--list", action="store_true", help="列出全部问题与选项")
    parser.add_argument("--json", action="store_true", help="输出 JSON")
    parser.set_defaults(run=run)


def run(args) -> int:
    if args.list:
        for qid, question, options in questions():
            print(t("strategy.list_question", node=qid, question=question))
            for oid, label in options:
                print(f"    {oid:<14} {label}")
        return EXIT_OK
    answers, evidence = {}, {}
    if args.scan:
        from npulab.migrate import scan

        result = scan(args.scan)
        if not result.files_scanned:
            raise UsageError(t("strategy.nothing_to_scan", paths=t("migrate.list_sep").join(args.scan)))
        answers.update(answers_from_scan(result))
        evidence = scan_evidence(result)
    answers.update(_parse_answers(args.answer))
    try:
        assessment = assess(answers)
    except StrategyError as err:
        raise UsageError(t("strategy.how_to_answer", error=err)) from None
    if args.json:
        print(json.dumps({"answers": answers, "from_scan": evidence, **assessment.to_dict()}, ensure_ascii=False, indent=2))
    else:
        if evidence:
            print(t("strategy.from_scan"))
            for q, why in evidence.items():
                print(t("strategy.scan_answer", question=q, answer=answers[q], why=why))
        print(assessment.describe())
    return EXIT_OK
