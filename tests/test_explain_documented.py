"""The reader of documented troubleshooting entries (npulab.env.explain.documented), on a small fixture knowledge base.

The real entries (npulab/data/explain_docs.yaml) are written elsewhere; these tests use invented signatures that no
real log holds, so that they say how the reader behaves, not what the data knows. Without the packaged file,
``explain`` behaves exactly as before (the last tests).
"""

from __future__ import annotations

import io
import json
import random
import time

import pytest
from english_checks import CJK
from explain_heldout_eval import evaluate

from npulab.env import explain as ex
from npulab.env.explain import documented
from npulab.env.explain.catalog import CatalogError
from npulab.env.explain.documented import (
    CATEGORY,
    MAX_FINDINGS,
    DocEntry,
    DocScanner,
    fold,
    load_documented,
    normalise,
    pattern,
)
from npulab.env.explain.reader import iter_blocks

KB = """
entries:
  - id: zorble_quantiser
    product: cann
    signatures: ["Zorbleflux quantiser exploded"]
    cause: 量化器的状态文件损坏。
    fix: 删除 zorble_cache 目录后重跑。
    cause_en: The quantiser's state file is corrupt.
    fix_en: Delete the zorble_cache folder and run again.
    source: https://www.hiascend.com/document/zorble.html
    version: 8.1.RC1
  - id: gizmo_ring
    product: hccl
    signatures:
      - "gizmo ring handshake refused"
      - "握手被 gizmo 环拒绝"
    family: hccl_timeout
    cause: 环上的一个节点没有准备好。
    fix: 先在所有节点上设置 GIZMO_RING_READY=1。
    cause_en: One node of the ring was not ready.
    fix_en: Set GIZMO_RING_READY=1 on every node first.
    source: https://www.hiascend.com/document/gizmo.html
    version: 8.0.0
  - id: wobble_library
    product: driver
    signatures: "wobble firmware checksum mismatch"
    family: no_such_family
    cause: 固件校验和不一致。
    fix: 重新安装 wobble 固件包。
    source: https://support.huawei.com/wobble.html
  - id: libhccl_documented
    product: cann
    signatures: ["libhccl.so: cannot open shared object file"]
    family: env_not_loaded
    cause: 没有加载 CANN 的环境变量。
    fix: 执行 source set_env.sh 后再运行，并确认 LD_LIBRARY_PATH 含 gizmo_lib64。
    cause_en: CANN's environment was not loaded.
    fix_en: Run source set_env.sh first and check that LD_LIBRARY_PATH holds gizmo_lib64.
    source: https://www.hiascend.com/document/libhccl.html
    version: 8.0.0
  - id: plain_linux
    product: mindspore
    generic_signature: true
    signatures: ["cannot allocate memory in static TLS block"]
    family: cann_python_deps
    cause: 先导入的库占满了静态 TLS。
    fix: 先导入 mindspore。
    cause_en: A library imported first used up the static TLS block.
    fix_en: Import mindspore first.
    source: https://www.mindspore.cn/docs/faq.html
    version: master
"""
ZORBLE = "[ERROR] ascend: Zorbleflux quantiser exploded at step 3\n"
HCCL_LIB = "ImportError: libhccl.so: cannot open shared object file: No such file or directory\n"


@pytest.fixture
def kb(tmp_path):
    path = tmp_path / "explain_docs.yaml"
    path.write_text(KB, encoding="utf-8")
    return path


def docs(path, lang: str = "zh") -> tuple[DocEntry, ...]:
    return load_documented(path, lang)


def kinds(report: ex.Report) -> list[tuple[str, str]]:
    return [(f.kind, f.category) for f in report.findings]


# normalising and matching ---------------------------------------------------------------------------------------------

def test_normalise_folds_case_spacing_and_full_width_forms():
    assert normalise("Error  Code ： 507015，设备 ID\tＸ") == "error code:507015,设备id x"
    assert normalise("“HCCL”  【超时】。") == '"hccl"[超时].'
    assert fold("ＡＢＣ。") == "abc." and "\n" in normalise("a \n b")


@pytest.mark.parametrize("line", ["RuntimeError: zorbleflux quantiser exploded",
                                  "RuntimeError: ZORBLEFLUX   Quantiser\texploded!",
                                  "RuntimeError: ＺＯＲＢＬＥＦＬＵＸ　ｑｕａｎｔｉｓｅｒ exploded"])
def test_a_signature_matches_regardless_of_case_spacing_and_full_width(line):
    assert pattern(normalise("Zorbleflux quantiser exploded")).search(fold(line))


def test_spaces_next_to_punctuation_and_chinese_do_not_matter_but_words_stay_whole():
    p = pattern(normalise("握手被 gizmo 环拒绝: code 7"))
    assert p.search(fold("错误：握手被gizmo环 拒绝 ：code 7"))
    assert not p.search(fold("握手被 gizmo 环拒绝: code 77")) and not p.search(fold("握手被 gizmo 环拒绝: xcode 7"))
    assert not pattern(normalise("gizmo ring handshake")).search(fold("gizmoring handshake"))


def test_an_error_line_gets_the_documented_finding_with_cause_fix_source_and_version(kb):
    report = ex.explain_text(ZORBLE, documented=docs(kb))
    assert kinds(report) == [("docs", CATEGORY), ("generic", ex.GENERIC)]
    found = report.findings[0]
    assert found.evidence[0].line == 1 and found.sources == ["https://www.hiascend.com/document/zorble.html"]
    assert "CANN" in found.title and "Zorbleflux quantiser exploded" in found.title
    assert "量化器的状态文件损坏" in found.cause and "8.1.RC1" in found.cause and found.source in found.cause
    assert "删除 zorble_cache 目录" in found.fix
    assert ex.explain_text(ZORBLE, documented=()).categories == [ex.GENERIC]


def test_lines_that_are_not_errors_are_not_read(kb):
    entries = docs(kb)
    for log in ("[INFO] ascend: zorbleflux quantiser exploded (expected in this test)\n",  # an info line
                "step 3 ascend zorbleflux quantiser exploded\n",  # plain output, no error word
                "$ python run.py --grep 'zorbleflux quantiser exploded' # ascend error\n",  # an echoed command
                "[root@node1 ~]# grep 'zorbleflux quantiser exploded' ascend_error.log\n",
                "  --quiet-zorble   hide 'zorbleflux quantiser exploded' errors on ascend\n"):  # a help text
        report = ex.explain_text(log, documented=entries)
        assert "docs" not in [f.kind for f in report.findings], log
        assert report.to_dict() == ex.explain_text(log, documented=()).to_dict(), log
    healthy = "torch_npu ascend training finished\nzorbleflux quantiser exploded\n"
    assert ex.explain_text(healthy, documented=entries).findings == []


def test_an_indented_line_under_an_error_counts_as_an_error_line(kb):
    log = "EZ9999: Inner Error!\n        zorbleflux quantiser exploded in the ascend kernel\n"
    assert ("docs", CATEGORY) in kinds(ex.explain_text(log, documented=docs(kb)))


def test_the_generic_finding_is_the_same_with_or_without_documented_entries(kb):
    log = "EZ9999: Inner Error!\n        zorbleflux quantiser exploded in the ascend kernel\n"
    with_docs, without = ex.explain_text(log, documented=docs(kb)), ex.explain_text(log, documented=())
    assert with_docs.findings[-1].to_dict() == without.findings[-1].to_dict() and "EZ9999" in without.findings[-1].fix


def test_a_warning_line_counts_only_in_a_log_with_an_error(kb):
    warning = "[WARNING] ascend: zorbleflux quantiser exploded, retrying\n"
    assert ex.explain_text(warning, documented=docs(kb)).findings == []
    report = ex.explain_text(warning + "RuntimeError: torch_npu step failed\n", documented=docs(kb))
    assert ("docs", CATEGORY) in kinds(report)


def test_another_accelerators_log_gets_nothing_and_a_match_is_ascend_evidence_otherwise(kb):
    bare = "RuntimeError: zorbleflux quantiser exploded\n"  # no Ascend word: the documented signature says it
    assert kinds(ex.explain_text(bare, documented=docs(kb))) == [("docs", CATEGORY), ("generic", ex.GENERIC)]
    assert ex.explain_text(bare, documented=()).findings == []
    foreign = "Tue Mar  5 nvidia-smi 535.104\n" + bare
    assert ex.explain_text(foreign, documented=docs(kb)).findings == []
    warning_only = "[WARNING] zorbleflux quantiser exploded\nValueError: bad shape\n"  # a warning line is no evidence
    assert ex.explain_text(warning_only, documented=docs(kb)).findings == []


def test_a_generic_signature_is_no_ascend_evidence_and_speaks_only_with_other_evidence(kb):
    line = "ImportError: /usr/lib/libgomp.so.1: cannot allocate memory in static TLS block\n"
    assert ex.explain_text(line, documented=docs(kb)).findings == []
    report = ex.explain_text("import mindspore\n" + line, documented=docs(kb))
    assert ("docs", "cann_python_deps") in kinds(report)


# the findings among the others ----------------------------------------------------------------------------------------

def test_at_most_two_findings_the_root_line_first(kb, tmp_path):
    many = tmp_path / "many.yaml"
    many.write_text(json.dumps({"entries": [
        {"id": f"e{i}", "product": "cann", "signatures": [f"frobnicator stage {i} overheated"], "cause": f"原因 {i}。",
         "fix": f"办法 {i}。", "source": f"https://www.hiascend.com/document/e{i}.html"} for i in range(4)]}),
        encoding="utf-8")
    log = "".join(f"[ERROR] ascend: frobnicator stage {i} overheated\n" for i in (1, 2, 3)) + \
        "RuntimeError: frobnicator stage 0 overheated\n"
    report = ex.explain_text(log, documented=load_documented(many, "zh"))
    found = [f for f in report.findings if f.kind == "docs"]
    assert len(found) == MAX_FINDINGS == 2
    assert report.root_error.line == 4 and found[0].entry == "e0" and found[1].entry == "e1"


def test_documented_findings_come_after_the_rules_findings(kb):
    log = "import torch_npu\nModuleNotFoundError: No module named 'vllm_ascend'\n" + ZORBLE
    plain = ex.explain_text(log, documented=())
    report = ex.explain_text(log, documented=docs(kb))
    assert plain.findings[0].kind == "rule"
    assert [f.category for f in report.findings if f.kind != "docs"] == plain.categories
    assert [f.kind for f in report.findings] == [f.kind for f in plain.findings[:-1]] + ["docs", "generic"]


def test_an_entry_of_a_family_not_found_gives_that_family_and_an_unknown_family_the_documented_category(kb):
    report = ex.explain_text("RuntimeError: ascend gizmo ring handshake refused by rank 3\n", documented=docs(kb))
    found = report.findings[0]
    assert (found.kind, found.category) == ("docs", "hccl_timeout") and "HCCL" in found.title
    assert next(e.title for e in ex.load_catalog() if e.id == "hccl_timeout") in found.title
    chinese = ex.explain_text("RuntimeError: 握手被gizmo环拒绝\n", documented=docs(kb))
    assert chinese.findings[0].category == "hccl_timeout"
    wobble = ex.explain_text("[ERROR] npu-smi: Wobble firmware checksum mismatch\n", documented=docs(kb))
    assert wobble.findings[0].category == CATEGORY and "昇腾 NPU 驱动" in wobble.findings[0].title
    assert "（" not in wobble.findings[0].cause.split("官方文档")[1][:1]  # no version given: none said


def test_an_entry_of_a_family_already_found_adds_its_fix_to_that_finding_once(kb, tmp_path):
    plain = ex.explain_text(HCCL_LIB, documented=())
    report = ex.explain_text(HCCL_LIB, documented=docs(kb))
    assert report.categories == plain.categories and report.categories[0] == "env_not_loaded"
    family, before = report.findings[0], plain.findings[0]
    assert family.fix.startswith(before.fix) and "gizmo_lib64" in family.fix and "libhccl.html" in family.fix
    assert family.sources == before.sources + ["https://www.hiascend.com/document/libhccl.html"]
    cited = tmp_path / "cited.yaml"  # an entry whose page the finding already cites adds nothing
    cited.write_text(KB.replace("https://www.hiascend.com/document/libhccl.html", before.sources[0]), encoding="utf-8")
    again = ex.explain_text(HCCL_LIB, documented=load_documented(cited, "zh"))
    assert again.findings[0].fix == before.fix and again.findings[0].sources == before.sources


def test_english_entries_speak_english_and_an_entry_without_english_stays_chinese(kb, en):
    report = ex.explain_text(ZORBLE, documented=docs(kb, "en"))
    found = report.findings[0]
    assert "The quantiser's state file is corrupt." in found.cause and "zorble_cache folder" in found.fix
    assert found.title.startswith("An error CANN's documentation describes")
    assert not CJK.search(found.title + found.cause + found.fix)
    assert "a product's troubleshooting documentation describes this error" in ex.render(report)
    wobble = ex.explain_text("[ERROR] Wobble firmware checksum mismatch\n", documented=docs(kb, "en"))
    assert "the Ascend NPU driver" in wobble.findings[0].title and CJK.search(wobble.findings[0].fix)


def test_the_language_of_the_moment_is_the_default(kb, en):
    assert load_documented(kb)[0].cause == "The quantiser's state file is corrupt."
    assert load_documented(kb, "zh")[0].cause == "量化器的状态文件损坏。"


# the knowledge base file ----------------------------------------------------------------------------------------------

def test_a_missing_file_gives_no_entries_and_explain_is_unchanged(tmp_path):
    assert load_documented(tmp_path / "absent.yaml", "zh") == ()
    log = HCCL_LIB + ZORBLE
    assert ex.explain_text(log, documented=load_documented(tmp_path / "absent.yaml")).to_dict() == \
        ex.explain_text(log, documented=()).to_dict()


def test_without_the_packaged_file_explain_reads_as_it_did(monkeypatch, tmp_path):
    monkeypatch.setattr(documented, "DOCS_PATH", tmp_path / "absent.yaml")
    log = HCCL_LIB + ZORBLE
    assert ex.explain_text(log).to_dict() == ex.explain_text(log, documented=()).to_dict()


@pytest.mark.parametrize("broken", [
    {"product": "pytorch"}, {"signatures": ["too short"]}, {"signatures": []}, {"source": ""}, {"fix": None}])
def test_a_malformed_entry_is_refused(tmp_path, broken):
    raw = {"id": "x", "product": "cann", "signatures": ["long enough signature"], "cause": "c", "fix": "f",
           "source": "https://x", **broken}
    path = tmp_path / "bad.yaml"
    path.write_text(json.dumps({"entries": [raw]}), encoding="utf-8")
    with pytest.raises(CatalogError):
        load_documented(path, "zh")


def test_the_packaged_entries_if_any_load_in_both_languages():
    """The packaged knowledge base (written apart from this reader; its content is checked by
    tests/test_explain_docs_data.py) is accepted by the reader, and in English every entry speaks English."""
    if not documented.DOCS_PATH.exists():
        pytest.skip("no packaged knowledge base yet")
    zh, en = load_documented(lang="zh"), load_documented(lang="en")
    assert zh and [e.id for e in zh] == [e.id for e in en]
    assert not [e.id for e in en if CJK.search(e.cause + e.fix)]


# speed ----------------------------------------------------------------------------------------------------------------

def test_a_50000_line_log_and_pathological_lines_are_read_quickly():
    rng = random.Random(36)
    words = "device stream memory kernel launch rank tensor graph compile aclnn hccl timeout error 设备 超时".split()
    entries = tuple(DocEntry(f"e{i}", "cann", (s,), (normalise(s),), "", "c", "f", "https://x", "")
                    for i in range(300) for s in [" ".join(rng.choice(words) for _ in range(5)) + f" z{i}"])
    line = "[ERROR] 2026-12-06 rank {i} device stream memory kernel failed: tensor graph 设备 超时 timeout error\n"
    log = "".join(line.format(i=i) for i in range(50_000)).encode()
    shapes = ("device " * 20000, "device" + " " * 50000 + "x", "设备" + " " * 50000, "z1" * 30000, "。" * 30000)
    blocks = list(iter_blocks(io.BytesIO(log))) + [(1, f"RuntimeError: {s}".encode()) for s in shapes]
    start = time.process_time()  # CPU time: what the scanner spends, however busy the machine is
    scanner = DocScanner(entries)
    for first_line, block in blocks:
        scanner.feed(first_line, block)
    assert time.process_time() - start < 1.0


# the command line and the measurement ---------------------------------------------------------------------------------

def test_cli_text_and_json(kb, monkeypatch, tmp_path, capsys):
    from npulab.__main__ import main

    monkeypatch.setattr(documented, "DOCS_PATH", kb)
    log = tmp_path / "run.log"
    log.write_text(ZORBLE, encoding="utf-8")
    assert main(["explain", str(log), "--no-env"]) == 1
    text = capsys.readouterr().out
    assert text.startswith("读取了 1 行，知识库的规则没有认出它，但产品文档的故障处理里记载了这条报错")
    assert "[documented_case] CANN 文档记载的报错" in text and "https://www.hiascend.com/document/zorble.html" in text
    assert main(["explain", str(log), "--no-env", "--json"]) == 1
    first = json.loads(capsys.readouterr().out)["findings"][0]
    assert first["kind"] == "docs" and first["source"] == "https://www.hiascend.com/document/zorble.html"
    assert (first["entry"], first["product"], first["version"]) == ("zorble_quantiser", "cann", "8.1.RC1")
    log.write_text(HCCL_LIB + ZORBLE, encoding="utf-8")
    assert main(["explain", str(log), "--no-env"]) == 1
    assert "识别出 2 类问题" in capsys.readouterr().out  # a family, and the documented entry


def test_evaluate_passes_the_documented_entries_through(kb, tmp_path):
    (tmp_path / "a.log").write_text(ZORBLE, encoding="utf-8")
    (tmp_path / "sources.yaml").write_text(
        "a.log: {url: 'https://github.com/o/r/issues/1', expect: [], fix_any: [zorble_cache]}\n", encoding="utf-8")
    assert evaluate(tmp_path, documented=())["rates"]["unanticipated"] == (0, 1)
    assert evaluate(tmp_path, documented=docs(kb))["rates"]["unanticipated"] == (1, 1)


def test_the_measurement_lists_the_logs_whose_verdict_changed(kb, monkeypatch, tmp_path):
    import explain_docs_measure as measure

    monkeypatch.setattr(documented, "DOCS_PATH", kb)
    (tmp_path / "a.log").write_text(ZORBLE, encoding="utf-8")
    (tmp_path / "b.log").write_text(HCCL_LIB, encoding="utf-8")
    (tmp_path / "sources.yaml").write_text(
        "a.log: {url: 'https://github.com/o/r/issues/1', expect: [], fix_any: [zorble_cache]}\n"
        "b.log: {url: 'https://github.com/o/r/issues/2', expect: [env_not_loaded]}\n", encoding="utf-8")
    results = measure.measure(measure.folders([str(tmp_path)]))
    rows = measure.table(results)
    assert rows[-2].split()[:4] == ["TOTAL", "rules", "1/1", "0/1"]
    assert rows[-1].split()[:4] == ["TOTAL", "docs", "1/1", "1/1"]
    verdicts, findings = measure.changes(results)
    assert len(verdicts) == 1 and verdicts[0].startswith("GAINED") and "a.log" in verdicts[0] and findings == []


def test_a_pythons_traceback_frames_and_source_lines_are_not_messages(kb):
    log = ("Traceback (most recent call last):\n  File \"run.py\", line 3, in <module>\n"
           "    if 'zorbleflux quantiser exploded' in str(err):\nValueError: torch_npu shape mismatch\n")
    assert "docs" not in [f.kind for f in ex.explain_text(log, documented=docs(kb)).findings]
    assert ("docs", CATEGORY) in kinds(ex.explain_text(log + ZORBLE, documented=docs(kb)))


def test_the_evidence_of_a_long_line_shows_the_signature(kb):
    log = "[ERROR] ascend: " + "padding " * 100 + "Zorbleflux quantiser exploded\n"
    found = ex.explain_text(log, documented=docs(kb)).findings[0]
    assert "Zorbleflux quantiser exploded" in found.evidence[0].text and len(found.evidence[0].text) < 300


def test_with_the_reported_cases_the_documented_findings_still_follow_every_rule_finding(kb):
    from npulab.env.explain.casebase import Case, CaseIndex
    from npulab.env.explain.features import line_tokens

    log = "import torch_npu\nModuleNotFoundError: No module named 'vllm_ascend'\n" + ZORBLE
    words = " ".join(line_tokens(log))
    case = Case("s", "x.log", "https://github.com/o/r/issues/7", ("npu_oom",), "family", "", tuple(words.split()))
    cases = CaseIndex([case])
    report = ex.explain_text(log, cases=cases, documented=docs(kb))
    kinds_found = [f.kind for f in report.findings]
    assert "case" in kinds_found and kinds_found[-1] == "generic"
    assert kinds_found.index("docs") == max(i for i, k in enumerate(kinds_found) if k == "rule") + 1
