"""The reported-cases reader of ``explain`` (issue 36, round 10): features, the case base, the vote, the finding."""

from __future__ import annotations

import importlib.util
import time
from pathlib import Path

from english_checks import CJK
from explain_heldout_eval import DATA, evaluate
from explain_loso import BLIND, folders

from npulab.env import explain as ex
from npulab.env.explain import casebase, neighbours
from npulab.env.explain.casebase import LACKING, NONE, Case, CaseIndex
from npulab.env.explain.features import line_tokens, log_tokens
from npulab.env.explain.vote import decide

ROOT = Path(__file__).resolve().parent.parent


def case(label, words: str, url: str = "https://github.com/o/r/issues/1", fix: str = "") -> Case:
    families = tuple(label) if isinstance(label, list) else ()
    return Case("s", "x.log", url, families, "family" if families else label, fix, tuple(words.split()))


# features ------------------------------------------------------------------------------------------------------------

def test_paths_keep_their_file_name_and_numbers_addresses_and_short_words_go():
    words = line_tokens("ImportError: /usr/local/Ascend/latest/lib64/libhccl.so: cannot open at 0x7ffd12 on 2024-01-01")
    assert words == ["importerror", "libhccl.so", "libhccl", "cannot", "open"]


def test_identifiers_are_kept_whole_and_split_and_digits_leave_words():
    words = line_tokens("call aclnnConv3d failed in torch_npu.npu_format_cast (float16)")
    assert {"aclnnconvd", "torch_npu.npu_format_cast", "torch_npu", "npu_format_cast", "format", "cast", "float"} <= set(words)
    assert "call" in words and not any(ch.isdigit() for w in words for ch in w)


def test_chinese_text_gives_its_character_pairs():
    assert line_tokens("找不到设备") == ["找不", "不到", "到设", "设备"]


def test_log_tokens_read_each_line_once_and_add_codes_and_packages():
    words = log_tokens(["RuntimeError: boom", "RuntimeError: boom", ""], ["EZ1001"], ["vllm_ascend"])
    assert words == ["runtimeerror", "boom", "code:ez1001", "pkg:vllm_ascend"]


def test_any_line_is_read_in_linear_time():
    start = time.perf_counter()
    for line in ("/a" * 20000 + "/libx.so", "a." * 20000, "pkg==1.0 " * 5000 + "pkg-" * 5000, "0x" + "f" * 20000):
        line_tokens(line)
    assert time.perf_counter() - start < 1.0


# the index and the vote ----------------------------------------------------------------------------------------------

def test_the_nearest_case_shares_the_rarest_words():
    index = CaseIndex([case(["npu_oom"], "runtimeerror out memory npu"), case(["hccl_timeout"], "runtimeerror hccl timeout"),
                       case(NONE, "")])
    assert len(index.cases) == 2  # a case with no words is no neighbour
    (s1, first), (s2, second) = index.nearest(["hccl", "timeout", "runtimeerror"], 5)
    assert first.families == ("hccl_timeout",) and s1 > s2 > 0 and second.families == ("npu_oom",)
    assert index.nearest(["unseen"], 5) == []


def test_the_family_with_the_most_similarity_wins_and_cites_its_cases():
    a, b, c = case(["npu_oom"], "a", "u1"), case(["npu_oom", "vllm_startup_memory"], "b", "u2"), case(NONE, "c", "u3")
    verdict = decide([(0.9, a), (0.6, b), (0.8, c)], k=3, min_similarity=0.5)
    assert verdict.family == "npu_oom" and [x.url for x in verdict.cases] == ["u1", "u2"] and verdict.similarity == 0.9


def test_healthy_neighbours_vote_for_silence_and_a_tie_goes_to_silence():
    fam, healthy = case(["npu_oom"], "a"), case(NONE, "b")
    assert decide([(0.9, healthy), (0.8, fam)], k=3, min_similarity=0.5) is None
    assert decide([(0.7, fam), (0.7, healthy)], k=3, min_similarity=0.5) is None


def test_only_close_enough_neighbours_vote():
    fam = case(["npu_oom"], "a")
    assert decide([(0.4, fam)], k=3, min_similarity=0.5) is None
    assert decide([(0.4, case(NONE, "b")), (0.6, fam)], k=1, min_similarity=0.5) is None  # only the k nearest


def test_a_lacking_cause_gives_the_nearest_cases_fix_only_when_very_similar():
    lacking = case(LACKING, "a", "u1", fix="pin vllm 0.9.1")
    assert decide([(0.95, lacking)], k=3, min_similarity=0.5, min_fix_similarity=0.9).fix == "pin vllm 0.9.1"
    assert decide([(0.7, lacking)], k=3, min_similarity=0.5, min_fix_similarity=0.9) is None
    assert decide([(0.95, case(LACKING, "a"))], k=3, min_similarity=0.5, min_fix_similarity=0.9) is None  # no fix known


# the finding in explain ----------------------------------------------------------------------------------------------

LOG = "[ERROR] torch_npu ascend: zorbleflux quantiser exploded while frobnicating the gizmo\n"


def _index(label, fix: str = "") -> CaseIndex:
    words = " ".join(line_tokens(LOG))
    return CaseIndex([case(label, words, "https://github.com/o/r/issues/7", fix), case(NONE, "nothing alike here")])


def test_an_unrecognised_log_gets_the_family_of_its_nearest_cases_before_the_generic_finding():
    assert ex.explain_text(LOG, cases=CaseIndex(())).categories == [ex.GENERIC]
    report = ex.explain_text(LOG, cases=_index(["npu_oom"]))
    assert report.categories == ["npu_oom", ex.GENERIC]
    found = report.findings[0]
    assert found.kind == "case" and found.sources[0] == "https://github.com/o/r/issues/7"
    assert "已报告" in found.title and "相似度 1.00" in found.cause and found.evidence[0].line == 1
    assert "与它相近的已报告案例" in ex.render(report)


def test_a_lacking_cause_quotes_the_threads_fix_and_cites_it(en):
    report = ex.explain_text(LOG, cases=_index(LACKING, fix="rebuild the gizmo with the quantiser off"))
    found = next(f for f in report.findings if f.kind == "case")
    assert "rebuild the gizmo" in found.fix and "https://github.com/o/r/issues/7" in found.fix
    assert not CJK.search(found.title + found.cause + found.fix) and "similar reported cases" in ex.render(report)


def test_a_recognised_family_a_healthy_and_a_foreign_log_are_left_alone():
    known = "ImportError: libhccl.so: cannot open shared object file: No such file or directory\n"
    assert "case" not in [f.kind for f in ex.explain_text(known, cases=_index(["npu_oom"])).findings]
    assert ex.explain_text("training finished, loss 0.1\n", cases=_index(["npu_oom"])).findings == []
    foreign = "nvidia-smi\n" + LOG.replace("torch_npu ascend", "cuda")
    assert ex.explain_text(foreign, cases=_index(["npu_oom"])).findings == []


def test_explain_consults_the_packaged_cases_only_when_asked_and_stays_fast():
    log = DATA / "explain_fresh_2026_12k" / "abi_paddlecustomdevice2452.log"
    assert "case" not in [f.kind for f in ex.explain_file(log).findings]  # the default: the rules alone
    casebase.load_cases.cache_clear()
    casebase.packaged_index.cache_clear()
    start = time.perf_counter()
    report = ex.explain_file(log, cases=casebase.packaged_index())  # what ``explain --similar`` does
    assert time.perf_counter() - start < 1.0
    kinds = [f.kind for f in report.findings if f.category != "failing_component"]  # round 18's finding beside them
    assert kinds == ["rule", "case", "generic"] and neighbours.POSITION == 1


def test_cli_similar_adds_the_reported_cases_finding(capsys):
    from npulab.__main__ import main

    log = str(DATA / "explain_fresh_2026_12k" / "abi_paddlecustomdevice2452.log")
    assert main(["explain", log, "--no-env", "--json"]) == 1
    plain = capsys.readouterr().out
    assert main(["explain", log, "--no-env", "--json", "--similar"]) == 1
    similar = capsys.readouterr().out
    assert '"case"' not in plain and '"case"' in similar


# the case base and the measurement -----------------------------------------------------------------------------------

def test_the_case_file_is_generated_from_every_labelled_set():
    spec = importlib.util.spec_from_file_location("build_explain_cases", ROOT / "scripts" / "build_explain_cases.py")
    build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build)
    entries = build.cases()
    assert casebase.CASES_PATH.read_text(encoding="utf-8") == build.render(entries), \
        "run scripts/build_explain_cases.py and commit npulab/data/explain_cases.yaml"
    assert len(entries) == len(casebase.load_cases()) >= 500


def test_leave_one_set_out_the_cases_never_lower_a_blind_sets_rates():
    """The blind sets (never used to choose the vote's numbers), each judged with the cases of the other sets only."""
    for top in BLIND:
        for folder in folders(top):
            rules, cases = evaluate(folder, cases=CaseIndex(()))["rates"], evaluate(folder)["rates"]
            assert cases["known"][0] >= rules["known"][0] and cases["unanticipated"][0] >= rules["unanticipated"][0]
            assert cases["healthy"][0] >= rules["healthy"][0] and cases["silent"][0] <= rules["silent"][0]
