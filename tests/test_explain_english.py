"""`python -m npulab explain` in English (issue 37): the catalogue's English twin is complete and current, the code
tables' prose has an English twin, and an English run prints English around the log's own lines."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from english_checks import CJK

from npulab.core.paths import load_yaml
from npulab.env import explain as ex
from npulab.env.explain import catalog, codes

REPO = Path(__file__).resolve().parent.parent
PLACEHOLDER = re.compile(r"{\w+}")
# lines of the text report that quote the log itself (a Chinese log line may stay Chinese there)
QUOTED = re.compile(r"^(?:     line \d+: |Root error line: line \d+: )")


def example(family: str, index: int = 0) -> str:
    (entry,) = [e for e in ex.load_catalog(lang="zh") if e.id == family]
    return entry.examples[index]["log"]


def test_every_family_has_a_current_english_twin():
    """A family without a twin, or whose Chinese text changed after it was translated, fails here: retranslate the
    entry in npulab/data/error_catalog_en.yaml and write the new stamp into its `source` (docs/english_edition.md)."""
    raw = {e["id"]: e for e in load_yaml(catalog.CATALOG_PATH)["entries"]}
    twin = catalog.english_twin()
    assert sorted(twin) == sorted(raw), "the English twin's families are exactly the catalog's"
    stale = {family: (str(twin[family]["source"]), catalog.source_hash(r["title"], r["cause"], r["fix"]))
             for family, r in raw.items() if str(twin[family]["source"]) != catalog.source_hash(r["title"], r["cause"], r["fix"])}
    assert stale == {}, f"Chinese changed since the translation (recorded, current): {stale}"
    for family, words in twin.items():
        for part in ("title", "cause", "fix"):
            assert not CJK.search(words[part]), (family, part)
            assert set(PLACEHOLDER.findall(words[part])) == set(PLACEHOLDER.findall(raw[family][part])), (family, part)


def test_source_hash_sees_a_change_of_the_chinese_but_not_of_its_line_breaks():
    entry = load_yaml(catalog.CATALOG_PATH)["entries"][0]
    stamp = catalog.source_hash(entry["title"], entry["cause"], entry["fix"])
    assert re.fullmatch(r"[0-9a-f]{12}", stamp)
    assert catalog.source_hash(entry["title"], entry["cause"].replace("，", "，\n  "), entry["fix"]) == stamp
    assert catalog.source_hash(entry["title"], entry["cause"] + "另一句。", entry["fix"]) != stamp
    assert ex.load_catalog(lang="zh")[0].source == stamp == ex.load_catalog(lang="en")[0].source


def test_the_catalog_speaks_the_language_of_the_moment(monkeypatch):
    zh = {e.id: e for e in ex.load_catalog()}
    monkeypatch.setenv("NPULAB_LANG", "en")
    en = {e.id: e for e in ex.load_catalog()}
    assert list(en) == list(zh) == list(ex.CATEGORIES)
    assert en["npu_oom"].title == "NPU device memory (HBM) is exhausted" and CJK.search(zh["npu_oom"].title)
    assert en["two_accelerators"].fix.count("--index-url") == zh["two_accelerators"].fix.count("--index-url") > 0, \
        "placeholders are filled in English too"
    assert "torch==<matching-version> --index-url" in en["version_mismatch"].fix
    assert not any(CJK.search(e.cause + e.fix) for e in en.values())
    assert en["npu_oom"].patterns == zh["npu_oom"].patterns and en["npu_oom"].sources == zh["npu_oom"].sources


def test_a_family_without_a_twin_stays_chinese(tmp_path):
    raw = load_yaml(catalog.CATALOG_PATH)
    first = raw["entries"][0]
    path = tmp_path / "error_catalog.yaml"
    path.write_text(json.dumps({"entries": raw["entries"][:2]}, ensure_ascii=False), encoding="utf-8")
    catalog.twin_path(path).write_text(json.dumps({"entries": {first["id"]: {
        "source": "0", "title": "English title", "cause": "English cause.", "fix": "English fix."}}}), encoding="utf-8")
    one, two = ex.load_catalog(path, lang="en")
    assert (one.title, one.cause, one.fix) == ("English title", "English cause.", "English fix.")
    assert two.title == raw["entries"][1]["title"]


def test_every_chinese_string_of_the_code_tables_has_a_current_english_twin():
    zh = dict(codes.chinese_strings())
    twin = codes.english_strings()
    assert sorted(twin) == sorted(zh), "one English string per Chinese string of error_codes.yaml, by dotted path"
    stale = sorted(path for path, text in zh.items() if str(twin[path]["source"]) != catalog.source_hash(text))
    assert stale == [], f"Chinese changed since the translation: {stale}"
    assert [p for p, w in twin.items() if CJK.search(w["en"])] == []
    assert not any(CJK.search(text) for _, text in codes.chinese_strings(codes.tables("en")))


def test_codes_decode_in_english(monkeypatch):
    monkeypatch.setenv("NPULAB_LANG", "en")
    for code, hccl in [("EZ1001", False), ("EZ1999", False), ("ERR01100", False), ("ERR09999", False),
                       ("507015", False), ("107999", False), ("-8005", False), ("-8999", False), ("11", True)]:
        text = codes.decode(code, hccl=hccl).describe()
        assert text.startswith(f"`{code}`: ") and not CJK.search(text), text
    assert "CANN error code, module Z" in codes.decode("EZ1001").module
    assert codes.decode("507015").describe(source=False).endswith("AI Core execution exception (aicore execution is abnormal)")
    monkeypatch.setenv("NPULAB_LANG", "zh")
    full = codes.decode("EZ1001").describe()
    assert codes.decode("EZ1001").describe(source=False) == full.split("（http")[0] and full.endswith("）")


@pytest.mark.parametrize("family", ["aicore_exception", "device_setup_failed"])
def test_an_english_run_prints_english_around_the_log(monkeypatch, family):
    """Two catalogue examples (an AI Core exception with its codes; a device that did not start): the English text
    report has no Chinese outside the lines it quotes from the log, and finds what the Chinese run finds."""
    log = example(family)
    chinese = ex.explain_text(log)
    monkeypatch.setenv("NPULAB_LANG", "en")
    report = ex.explain_text(log)
    assert report.categories == chinese.categories and report.categories[0] == family
    text = ex.render(report)
    assert text.startswith(f"Read {report.lines_read} lines; recognised ") and "Fix: " in text
    assert f"Casebook: en/{ex.CASEBOOK}#" in text
    assert [line for line in text.splitlines() if CJK.search(line) and not QUOTED.match(line)] == []
    findings = report.to_dict()["findings"]
    assert not any(CJK.search(f[k]) for f in findings for k in ("title", "cause", "fix"))


def test_the_command_line_in_english():
    env = {**os.environ, "PYTHONPATH": str(REPO), "NPULAB_LANG": "en"}
    run = subprocess.run([sys.executable, "-m", "npulab", "explain", "--no-env", "--json", "-"],
                         input=example("device_setup_failed").encode(), capture_output=True, env=env, timeout=120)
    assert run.returncode == 1
    first = json.loads(run.stdout)["findings"][0]
    assert first["category"] == "device_setup_failed" and first["title"].startswith("The device failed to start")
    empty = subprocess.run([sys.executable, "-m", "npulab", "explain", "--no-env", "-"], input=b"", capture_output=True,
                           env=env, timeout=120)
    assert empty.returncode == 0 and empty.stdout.decode().startswith("The input is empty")
    missing = subprocess.run([sys.executable, "-m", "npulab", "explain", str(REPO / "no-such.log")],
                             capture_output=True, env=env, timeout=120)
    assert missing.returncode == 2 and "not found" in missing.stderr.decode()


# --- the general rules in English (issue 37, the older rules of rounds 1–4 and the joiners) ---
# Quoted log text may stay Chinese, and only that: a finding's text in English is checked after removing what it
# copies from the log verbatim — the root error line the generic finding names (``report.root_error.text``) and each
# piece quoted between “ and ” whose content is in the log itself (the message's own advice). Whatever Chinese is
# left is npulab's own words, and there must be none.
_QUOTED = re.compile(r"“([^”]*)”")


def _own_words(text: str, report: ex.Report, log: str) -> str:
    """``text`` without the log's own words it quotes."""
    if report.root_error is not None:
        text = text.replace(report.root_error.text, "")
    return _QUOTED.sub(lambda m: "" if m.group(1) and m.group(1) in log else m.group(0), text)


@pytest.mark.parametrize("folder", ["explain_dev_2026_12b", "explain_heldout"])
def test_every_finding_of_two_development_sets_is_english(monkeypatch, folder):
    """Every log of two development sets, explained in English: no Chinese in any finding's title, cause or fix
    outside the log lines it quotes; the same findings as in Chinese."""
    logs = sorted((REPO / "tests" / "data" / folder).rglob("*.log"))
    assert len(logs) >= 20
    chinese = {log.name: ex.explain_file(log).categories for log in logs}
    monkeypatch.setenv("NPULAB_LANG", "en")
    left, rules_seen = [], set()
    for log in logs:
        report = ex.explain_file(log)
        assert report.categories == chinese[log.name], log.name
        text = "\n".join(ex.decode_line(raw) for raw in ex.clean(log.read_bytes()).split(b"\n"))
        for f in report.findings:
            rules_seen.add(f.rule or f.category)
            left += [(log.name, f.category, part) for part in ("title", "cause", "fix")
                     if CJK.search(_own_words(getattr(f, part), report, text))]
    assert left == []
    assert len(rules_seen) >= 6, "the sets exercise several rules"


def test_the_older_rules_speak_english(monkeypatch):
    """One line per older rule: the English finding names the line's own nouns, and its Chinese twin is unchanged."""
    lines = {
        "python_exception": ("import torch_npu\nTypeError: forward() got an unexpected keyword argument 'block_size'\n",
                             "A call does not fit the function's signature: forward()", "keyword argument `block_size`"),
        "missing_module": ("import torch_npu\nModuleNotFoundError: No module named 'vllm_ascend'\n",
                           "The Python module vllm_ascend is missing", "pip install vllm-ascend"),
        "missing_library": ("import torch_npu\nOSError: libfoo.so.1: cannot open shared object file: No such file or "
                            "directory\n", "The shared library libfoo.so.1 cannot be found", "LD_LIBRARY_PATH"),
        "requirement": ("import torch_npu\nfoo-bar 1.0 has requirement x, torchvision 0.20.1 requires torch==2.5.1, "
                        "but you have torch 2.4.0 which is incompatible.\n", None, "torch==2.5.1"),
        "resource_limit": ("import torch_npu\nERROR: ub overflow, requires 300000 bits while 196608 bits available\n",
                           "Not enough on-chip Unified Buffer (UB)", "300000 bits"),
        "graph_capture": ("import torch_npu\nRuntimeError: aclgraph capture failed at op call_function aten.nonzero\n",
                          "Graph mode / graph capture failed: aten.nonzero", "run without capture (eager) first"),
    }
    for rule, (log, title, phrase) in lines.items():
        zh = next(f for f in ex.explain_text(log).findings if f.rule == rule)
        monkeypatch.setenv("NPULAB_LANG", "en")
        en = next(f for f in ex.explain_text(log).findings if f.rule == rule)
        monkeypatch.delenv("NPULAB_LANG")
        monkeypatch.setenv("NPULAB_LANG", "zh")
        again = next(f for f in ex.explain_text(log).findings if f.rule == rule)
        assert (again.title, again.cause, again.fix) == (zh.title, zh.cause, zh.fix) and CJK.search(zh.title + zh.fix)
        for part in (en.title, en.cause, en.fix):
            assert not CJK.search(part), (rule, part)
        assert title is None or en.title == title, (rule, en.title)
        assert phrase in en.title + en.cause + en.fix, (rule, phrase)
