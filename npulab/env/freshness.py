"""``python -m npulab freshness [--json]``: is the course behind PyPI? For every package the course pins or names
(requirements files, npulab/data/stacks.yaml, the flag table's sources, the torch-npu / MindSpore rows of
compatibility.yaml) it asks PyPI's JSON API for the newest final release and compares it with the newest version the
course's data knows. Per stack it compares each pinned package with PyPI's newest final release (a newer release
candidate is shown, labelled, but is not "behind"), and what a stack takes from another index (the Ascend pip mirror:
``outside_pypi`` entries with an ``index``) with that index's page. Exit 0: nothing newer; 1: the course is behind;
2: PyPI unreachable or bad usage.

Network: only this tool (and scripts/extract_cli_flags.py) talks to PyPI; ``.ci/run`` never runs it — a weekly
GitHub Actions workflow does (.github/workflows/freshness.yml). ``--index-url`` / ``$NPULAB_PYPI_URL`` point it at
another index (tests use a stand-in on 127.0.0.1).
"""

from __future__ import annotations

import json
import os
import re
import sys

from npulab.core.cli import EXIT_FAIL, EXIT_OK, EXIT_USAGE
from npulab.core.display import Table
from npulab.core.i18n import t
from npulab.core.paths import DATA_DIR, REPO_ROOT, load_yaml
from npulab.env import pypi, stacks

_PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)\s*==\s*([\w.+!-]+)", re.MULTILINE)


def _add(known: dict[str, dict], name: str, version: str | None, where: str) -> None:
    """Remember ``version`` of ``name`` when it is the newest the data names so far."""
    if not version:
        return
    key = name.lower().replace("_", "-")
    version = version.split("+")[0]
    entry = known.get(key)
    if entry is None or pypi.version_key(version) > pypi.version_key(entry["version"]):
        known[key] = {"version": version, "where": where}
    elif entry and where not in entry["where"] and version == entry["version"]:
        entry["where"] += t("versions.where_sep") + where


def known_versions() -> dict[str, dict]:
    """Package -> {version, where}: the newest version of it the course's files and data tables name."""
    known: dict[str, dict] = {}
    for req in ("requirements.txt", "requirements-npu.txt"):
        try:
            text = (REPO_ROOT / req).read_text(encoding="utf-8")
        except OSError:
            continue
        for name, version in _PIN.findall(text):
            _add(known, name, version, req)
    for stack_name, stack in stacks.load().items():
        outside = {stacks.canonical(e["name"]) for e in stack.get("outside_pypi", [])}
        for name, spec in stack["packages"].items():
            if stacks.canonical(name) in outside:
                continue  # not a PyPI version (e.g. triton-ascend 3.2.2 from the Ascend mirror): stack_report checks it
            _add(known, name, _stack_version(spec), f"stacks.yaml:{stack_name}")
    flags = json.loads((DATA_DIR / "cli_flags.json").read_text(encoding="utf-8"))["tools"]
    for tool, entry in flags.items():
        _add(known, entry["package"], entry["version"], f"cli_flags.json:{tool}")
    tables = load_yaml(DATA_DIR / "compatibility.yaml")["tables"]
    for table in ("torch_npu", "torch_npu_unlisted"):
        for row in tables[table]["rows"]:
            _add(known, "torch-npu", row["torch_npu"], f"compatibility.yaml:{table}")
    for table in ("mindspore_install", "mindspore_releases", "mindspore_mindformers"):
        for row in tables.get(table, {}).get("rows", []):
            for version in row["mindspore"]:
                _add(known, "mindspore", version, f"compatibility.yaml:{table}")
    return known


def _stack_version(spec: str | None) -> str | None:
    match = re.search(r"(?:==|>=)\s*([\w.+!-]+)", spec or "")
    return match.group(1) if match else None


# the package whose release a stack follows (default: the package named like the stack); the stack's other pins go
# with it (vllm-ascend's torch), so a newer release of those is shown as "held", not as the course being behind
LEADS = {"course": "torch-npu"}


def _accepts(spec: str, version: str) -> bool:
    from packaging.specifiers import InvalidSpecifier, SpecifierSet
    from packaging.version import InvalidVersion, Version

    try:
        return SpecifierSet(spec).contains(Version(version), prereleases=True)
    except (InvalidSpecifier, InvalidVersion):
        return False


def _newer(a: str, b: str) -> bool:
    from packaging.version import InvalidVersion, Version

    try:
        return Version(a) > Version(b)
    except InvalidVersion:
        return pypi.version_key(a) > pypi.version_key(b)


def stack_report(only: set[str] | None = None) -> list[dict]:
    """One row per stack and pinned package: the stack's version, PyPI's newest final release (or the named index's
    newest for what comes from elsewhere), a newer pre-release if any, state. OfflineError propagates for PyPI."""
    rows, docs = [], {}
    for stack_name, stack in stacks.load().items():
        elsewhere = {stacks.canonical(e["name"]): e for e in stack.get("outside_pypi", [])}
        for package, spec in stack["packages"].items():
            mine = _stack_version(spec)
            key = stacks.canonical(package)
            if not mine or (only and key not in only):
                continue
            row = {"stack": stack_name, "package": key, "known": mine, "newest": None, "prerelease": None,
                   "index": pypi.index_url()}
            entry = elsewhere.get(key)
            if entry is not None:
                if not entry.get("index"):
                    continue
                row["index"] = os.environ.get("NPULAB_OUTSIDE_INDEX", entry["index"])  # tests: a stand-in
                try:
                    offered = pypi.simple_index_versions(row["index"], package)
                except (pypi.OfflineError, pypi.NotOnIndex) as err:
                    rows.append({**row, "state": "unreachable", "error": str(err)})
                    continue
                finals = [v for v in offered if pypi.is_final(v)]
                row["newest"] = finals[-1] if finals else None
            else:
                if key not in docs:
                    try:
                        docs[key] = pypi.project(package)
                    except pypi.NotOnIndex:
                        docs[key] = None
                if docs[key] is None:
                    rows.append({**row, "state": "absent"})
                    continue
                row["newest"] = pypi.newest_release(docs[key])
                pre = pypi.newest_prerelease(docs[key])
                if pre and _newer(pre, row["newest"] or "0"):  # 3.2.0rc4 is older than 3.2.0
                    row["prerelease"] = pre
            behind = bool(row["newest"]) and pypi.version_key(row["newest"]) > pypi.version_key(mine) \
                and not _accepts(spec, row["newest"])  # 0.23.0.post1 is not "behind" a stack that accepts it
            lead = key in (stacks.canonical(stack_name), LEADS.get(stack_name))
            rows.append({**row, "state": ("behind" if lead else "held") if behind else "current"})
    return rows


def report(known: dict[str, dict]) -> list[dict]:
    """One row per package: known, newest on the index, state (current / behind / absent). OfflineError propagates."""
    rows = []
    for name in sorted(known):
        try:
            newest = pypi.newest_release(pypi.project(name))
        except pypi.NotOnIndex:
            rows.append({"package": name, "known": known[name]["version"], "newest": None, "state": "absent",
                         "where": known[name]["where"]})
            continue
        mine = known[name]["version"]
        behind = newest is not None and pypi.version_key(newest) > pypi.version_key(mine)
        rows.append({"package": name, "known": mine, "newest": newest, "state": "behind" if behind else "current",
                     "where": known[name]["where"]})
    return rows


def state_text(state: str) -> str:
    """A row's state in the reader's language."""
    return {"current": lambda: t("versions.state_current"), "behind": lambda: t("versions.state_behind"),
            "absent": lambda: t("versions.state_absent"), "unreachable": lambda: t("versions.state_unreachable"),
            "held": lambda: t("versions.state_held")}[state]()


def build_parser(subparsers, name: str) -> None:
    """Add the ``freshness`` sub-command."""
    parser = subparsers.add_parser(
        name, help=t(f"cli.tool.{name}"),
        description="向 PyPI 的 JSON API 查询课程钉住或提到的每个包的最新正式版，与课程数据表知道的最新版本对比。"
                    "退出码：0 都是最新，1 课程落后，2 连不上 PyPI 或用法错误。")
    parser.add_argument("--json", action="store_true", help="以 JSON 输出")
    parser.add_argument("--index-url", metavar="URL", help="PyPI 的地址（默认 $NPULAB_PYPI_URL 或 https://pypi.org ）")
    parser.add_argument("--package", action="append", metavar="NAME", help="只查这个包（可重复）")
    parser.set_defaults(run=run)


def run(args) -> int:
    """Print the freshness table; 0 current, 1 behind, 2 offline / bad usage."""
    if args.index_url:
        if not re.match(r"^https?://", args.index_url):
            print(t("versions.bad_index", url=repr(args.index_url)), file=sys.stderr)
            return EXIT_USAGE
        os.environ["NPULAB_PYPI_URL"] = args.index_url
    known = known_versions()
    if args.package:
        unknown = [p for p in args.package if p.lower().replace("_", "-") not in known]
        if unknown:
            sep = t("versions.where_sep")
            print(t("versions.unknown_packages", unknown=sep.join(unknown), known=sep.join(sorted(known))), file=sys.stderr)
            return EXIT_USAGE
        known = {k: v for k, v in known.items() if k in {p.lower().replace('_', '-') for p in args.package}}
    try:
        rows = report(known)
        stack_rows = stack_report(set(known) if args.package else None)
    except pypi.OfflineError as err:
        print(t("versions.offline", error=err), file=sys.stderr)
        return EXIT_USAGE
    behind = [r for r in rows if r["state"] == "behind"]
    stacks_behind = [r for r in stack_rows if r["state"] == "behind"]
    if args.json:
        print(json.dumps({"index": pypi.index_url(), "packages": rows, "behind": len(behind), "stacks": stack_rows,
                          "stacks_behind": len(stacks_behind)}, ensure_ascii=False, indent=2))
    else:
        sep = t("versions.where_sep")
        print(Table([t("versions.col_package"), t("versions.col_known"), t("versions.col_newest"), t("versions.col_state"),
                     t("versions.col_where")],
                    [[r["package"], r["known"], r["newest"], state_text(r["state"]), r["where"]] for r in rows],
                    t("versions.fresh_title", index=pypi.index_url()), code_columns=[0]).text())
        print(t("versions.packages_behind", count=len(behind),
                packages=sep.join(f"{r['package']} {r['newest']}" for r in behind))
              if behind else t("versions.all_current"))
        if stack_rows:
            print(Table([t("versions.col_stack"), t("versions.col_package"), t("versions.col_pinned"), t("versions.col_final"),
                         t("versions.col_prerelease"), t("versions.col_state"), t("versions.col_index")],
                        [[r["stack"], r["package"], r["known"], r["newest"], r["prerelease"] or "",
                          state_text(r["state"]), r["index"]] for r in stack_rows],
                        t("versions.stacks_title"), code_columns=[1]).text())
            print(t("versions.stacks_behind", count=len(stacks_behind), packages=sep.join(
                f"{r['stack']}:{r['package']} {r['known']} → {r['newest']}" for r in stacks_behind))
                  if stacks_behind else t("versions.stacks_current"))
    return EXIT_FAIL if behind or stacks_behind else EXIT_OK
