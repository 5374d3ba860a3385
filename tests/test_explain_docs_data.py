"""npulab/data/explain_docs.yaml, the documented troubleshooting entries `explain` matches against logs: its schema,
the link of each family to error_catalog.yaml, both languages, Chinese spacing, and signatures that are specific
enough — long, not hidden inside another entry's signature, and silent on healthy logs."""

from __future__ import annotations

import re

import pytest
import yaml
from english_checks import CJK

from npulab.core.paths import REPO_ROOT

DATA = REPO_ROOT / "npulab" / "data"
ENTRIES = yaml.safe_load((DATA / "explain_docs.yaml").read_text(encoding="utf-8"))["entries"]
FAMILIES = {entry["id"] for entry in yaml.safe_load((DATA / "error_catalog.yaml").read_text(encoding="utf-8"))["entries"]}
PRODUCTS = {"cann", "torch_npu", "mindspore", "hccl", "vllm_ascend", "triton_ascend", "mindspeed", "mindie", "driver"}
REQUIRED = {"id", "product", "signatures", "cause", "fix", "cause_en", "fix_en", "source", "version"}
OPTIONAL = {"family", "generic_signature"}
IDS = [entry["id"] for entry in ENTRIES]

# Chinese next to a Latin letter or digit with no space between, outside `code` spans
CRAMPED = re.compile(r"[\u4e00-\u9fff][A-Za-z0-9]|[A-Za-z0-9][\u4e00-\u9fff]")

# Lines of logs that end well: what no signature may match.
HEALTHY_LOGS = """\
Epoch 1/10: 100%|██████████| 391/391 [00:41<00:00,  9.52it/s, loss=1.2034, acc=0.5612]
[INFO] 2025-06-01 10:00:00 step 100, loss 0.6931, lr 0.001, throughput 1250.3 samples/s
Train Epoch: 3 [51200/60000 (85%)]	Loss: 0.043210
epoch: 1 step: 1875, loss is 0.1123456
Start compiling and it will take a while. Please wait...
End compiling.
The result of multiplication calculation is correct, MindSpore has been installed successfully!
MindSpore version:  2.6.0
torch.npu.is_available(): True
INFO:root:Using device npu:0
[W compiler_depend.ts:133] Warning: Warning: Device do not support double dtype now, dtype cast repalce with float. (function operator())
INFO 06-01 10:00:00 [core.py:58] Initializing a V1 LLM engine (v0.9.1) with config: model='Qwen/Qwen3-0.6B'
INFO 06-01 10:00:05 [gpu_model_runner.py:1595] Model loading took 1.1293 GiB and 3.45 seconds
INFO 06-01 10:00:09 [kv_cache_utils.py:715] GPU KV cache size: 66340 tokens
INFO:     Application startup complete.
+------------------------------------------------------------------------------------------------+
| npu-smi 24.1.rc2                 Version: 24.1.rc2                                             |
+---------------------------+---------------+----------------------------------------------------+
| NPU   Name                | Health        | Power(W)    Temp(C)           Hugepages-Usage(page)|
| Chip                      | Bus-Id        | AICore(%)   Memory-Usage(MB)  HBM-Usage(MB)        |
+===========================+===============+====================================================+
| 0     910B3               | OK            | 96.1        40                0    / 0             |
| 0                         | 0000:C1:00.0  | 0           0    / 0          3402 / 65536         |
+===========================+===============+====================================================+
| No running processes found in NPU 0                                                            |
+===========================+===============+====================================================+
Looking in indexes: https://download.pytorch.org/whl/cpu
Collecting torch==2.6.0
  Downloading torch-2.6.0-cp311-cp311-manylinux_2_28_aarch64.whl (95.1 MB)
Requirement already satisfied: numpy in ./.venv/lib/python3.11/site-packages (from torch-npu==2.6.0) (1.26.4)
Installing collected packages: torch, torch-npu
Successfully installed torch-2.6.0 torch-npu-2.6.0
[INFO] HCCL(12345,python):2025-06-01-10:00:00.000.000 [op_base.cc:1293] Entry-HcclCommInitRootInfoInner:ranks[8], rank[0]
[INFO] RUNTIME(12345,python):2025-06-01-10:00:00.000.000 [runtime.cc:100] init runtime success
""".splitlines()


def _signatures(entry: dict) -> list[str]:
    value = entry["signatures"]
    return [value] if isinstance(value, str) else list(value)


def test_entries_have_the_schema_and_unique_snake_case_ids():
    assert len(ENTRIES) >= 120
    assert len(IDS) == len(set(IDS)), sorted({i for i in IDS if IDS.count(i) > 1})
    for entry in ENTRIES:
        assert REQUIRED <= entry.keys() <= REQUIRED | OPTIONAL, entry["id"]
        assert re.fullmatch(r"[a-z][a-z0-9]*(_[a-z0-9]+)*", entry["id"]), entry["id"]
        assert entry["product"] in PRODUCTS, entry["id"]
        assert all(isinstance(entry[key], str) and entry[key].strip() for key in REQUIRED - {"signatures"}), entry["id"]
        assert entry.get("generic_signature", True) is True, entry["id"]


def test_families_exist_in_the_error_catalogue():
    unknown = {entry["id"]: entry["family"] for entry in ENTRIES if "family" in entry and entry["family"] not in FAMILIES}
    assert not unknown


def test_sources_are_public_urls():
    for entry in ENTRIES:
        assert re.fullmatch(r"https://[^\s]+", entry["source"]), entry["id"]


def test_signatures_are_long_and_not_inside_another_entrys_signature():
    owners = [(sig, entry["id"]) for entry in ENTRIES for sig in _signatures(entry)]
    for sig, owner in owners:
        assert isinstance(sig, str) and len(sig.strip()) >= 12 and sig == sig.strip(), (owner, sig)
    nested = [(inner_owner, inner, outer_owner) for inner, inner_owner in owners for outer, outer_owner in owners
              if inner_owner != outer_owner and inner.lower() in outer.lower()]
    assert not nested


@pytest.mark.parametrize("line", [line for line in HEALTHY_LOGS if line.strip()])
def test_no_signature_matches_a_healthy_log_line(line):
    hits = [entry["id"] for entry in ENTRIES for sig in _signatures(entry) if sig.lower() in line.lower()]
    assert not hits, line


def test_both_languages_are_present():
    for entry in ENTRIES:
        assert CJK.search(entry["cause"]) and CJK.search(entry["fix"]), entry["id"]
        assert not CJK.search(entry["cause_en"]) and not CJK.search(entry["fix_en"]), entry["id"]


def test_chinese_text_spaces_latin_words_and_digits_and_uses_chinese_quotes():
    for entry in ENTRIES:
        for key in ("cause", "fix"):
            prose = re.sub(r"`[^`]*`", " ", entry[key])
            assert not CRAMPED.search(prose), (entry["id"], key, CRAMPED.findall(prose))
            assert not re.search(r"[\"']", prose), (entry["id"], key, prose)


def test_every_product_of_the_reader_is_allowed_here_and_named_in_findings():
    from npulab.env.explain.documented import PRODUCTS as READER_PRODUCTS

    assert set(READER_PRODUCTS) == PRODUCTS
    assert {entry["product"] for entry in ENTRIES} <= PRODUCTS


def test_a_mindie_message_from_its_faq_is_named_with_its_product_and_source():
    # the log line as MindIE LLM's FAQ prints it (docs/en/faq/faq.md at 613aab5), in a MindIE service log
    from npulab.env import explain as ex

    line = ("[2025-04-16 03:55:44.394090] [75026] [281472793677824] [llm] [ERROR] [model_deploy_config.cpp:159] "
            "Failed to get vocab size from tokenizer wrapper with exception: ...\n")
    found = [f for f in ex.explain_text(line).findings if f.kind == "docs"]
    assert found and "MindIE" in found[0].title
    assert found[0].sources == ["https://github.com/Ascend/MindIE-LLM/blob/613aab547384ff249c391f9769401304874c1e24/docs/en/faq/faq.md"]


def test_a_generic_faq_message_alone_says_nothing_without_ascend_evidence():
    # requests' own message: MindIE's FAQ explains it, but alone it shows no Ascend software
    from npulab.env import explain as ex

    line = "requests.exceptions.ConnectionError: HTTPSConnectionPool(host='x', port=443): Max retries exceeded with url: /a\n"
    assert not [f for f in ex.explain_text(line).findings if f.kind == "docs"]
