"""lint-npu in English (issue 37): the planted errors of the linter's own tests — the fixture notebooks
(tests/lint/lint_npu_fixtures) and the value cases (tests/data/lint_values_dev, lint_values_heldout, lint_values_heldout_c) —
give findings with no Chinese in them and the same facts as the Chinese run: kinds, cells, line numbers, the names
in backticks, versions and guesses. Together they use every ``lint.`` catalogue entry except the few listed in
NOT_PLANTED, each with the reason no planted error reaches it."""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import io
import json
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

import pytest
import yaml
from english_checks import CJK, no_cjk

from npulab.core import i18n
from npulab.core.paths import REPO_ROOT, load_yaml
from npulab.lint import command, signatures
from npulab.lint.context import Context
from npulab.lint.notebook import check_notebook
from npulab.pytorch.torch_npu_names import pinned_index, pinned_version

TESTS = Path(__file__).parent
FIXTURES = sorted((TESTS / "lint" / "lint_npu_fixtures").glob("*.ipynb"))
DEV = load_yaml(TESTS / "data" / "lint_values_dev" / "cases.yaml")["cases"]
_spec = importlib.util.spec_from_file_location("lint_frameworks", TESTS / "lint" / "test_lint_frameworks.py")
FRAMEWORKS = importlib.util.module_from_spec(_spec)
sys.path.insert(0, str(TESTS / "lint"))  # it imports its neighbour notebook_trees
_spec.loader.exec_module(FRAMEWORKS)  # its PLANTED framework errors and the notebook it puts each in
HELDOUT = yaml.safe_load((TESTS / "data" / "lint_values_heldout" / "cases.yaml").read_text(encoding="utf-8"))["cases"]
HELDOUT_C = yaml.safe_load((TESTS / "data" / "lint_values_heldout_c" / "cases.yaml").read_text(encoding="utf-8"))["cases"]

# Keys no planted error reaches, and why; a key that a planted error comes to use must leave this list.
NOT_PLANTED = {
    "lint.what.unparsable": "a released source file that does not parse",
    "lint.grammar.list_count": "a variable read as exactly n items (torch_npu's NPU_ASD_*_THRESH): planted in sets E and F, "
                               "which this test does not lint",
    "lint.what.declared_all": "a name in __all__ defined only at run time, none called by the planted cells",
    "lint.what.reexport": "a re-export from another package, none called by the planted cells",
    "lint.what.module_alias": "a call through `import x` inside a package module",
    "lint.what.function_attribute": "a call of a function's attribute",
    "lint.what.decorated_function": "a function whose decorator hides its signature",
    "lint.what.decorated_method": "a method whose decorator hides its signature",
    "lint.what.decorated_init": "an __init__ whose decorator hides its signature",
    "lint.what.member": "a class member that is not a method",
    "lint.what.method_overloads": "a method with overloads",
    "lint.what.c_extension": "a call into a C extension module",
    "lint.tree.not_installed": "the pinned frameworks are installed here (the tests skip without them)",
    "lint.tree.other_version": "the installed frameworks are the pinned ones",
    "lint.tree.no_sources": "an installed package without sources",
    "lint.tree.no_pin": "a requirements file that does not pin a framework",
    "lint.report.unreadable": "a notebook the operating system refuses to read",
    "lint.uncheckable.not_found": "a name missing from the sources of a package whose names are not checked",
    "lint.env.since": "no variable of npulab/data/env_vars.yaml is newer than the course's CANN",
    "lint.env.until": "no variable of npulab/data/env_vars.yaml was removed before the course's CANN",
    "lint.feature.removed": "the one removed feature (swift --train_type) is reported by its flag (lint.flag.renamed)",
    "lint.feature.unreleased": "the one unreleased feature (a MindSpore method) is not outside the course's pins",
    "lint.option.range": "an IntRangeValue torchair option, none set by the planted cells",
}


def _notebook(code: str) -> dict:
    """One planted cell after a setup cell, as tests/lint/test_lint_values.py builds it."""
    setup = "a = b = x = q = k = v = g = net = gen = model = None"
    first = "" if code.startswith("%%bash") else "%%npu 预期：打印结果（依据：本测试）\n"
    return {"cells": [{"cell_type": "code", "id": "setup", "metadata": {}, "source": setup},
                      {"cell_type": "code", "id": "c", "metadata": {"tags": ["npu", "skip-execution"]},
                       "source": first + code}]}


TORCHAIR = "import torch\nimport torch_npu\nimport torchair\nconfig = torchair.CompilerConfig()\n"

# one extra planted cell for the findings neither the fixtures nor the value cases hold
EXTRA = {
    "bare-npu": {"cells": [{"cell_type": "code", "id": "c", "metadata": {"tags": ["npu", "skip-execution"]},
                            "source": "%%npu\nimport torch_npu"}]},
    "leaf": {"cells": [{"cell_type": "code", "id": "n", "metadata": {"tags": ["npu", "skip-execution"]},
                        "source": "%%npu 预期：打印结果（依据：本测试）\nresult = 1"},
                       {"cell_type": "code", "id": "p", "metadata": {}, "source": "print(result)"}]},
    "syntax": _notebook("def (:\n"),
    "stack": _notebook("# stack: no-such-stack\nimport torch"),
    "torch-npu-name": _notebook("import torch_npu\ntorch_npu.npu.synchronise()"),
    "switch": _notebook("import torch\nimport torch_npu\ntorch.npu.matmul.allow_hf32 = 'False'"),
    "device-type": _notebook("import torch\nwith torch.autocast(device_type='npu:0'):\n    pass\n"
                             "d = torch.device('npu', '0')"),
    "torchair-value": _notebook(TORCHAIR + "config.mode = 'reduce_overhead'"),
    "torchair-option": _notebook(TORCHAIR + "config.experimental_config.frozen_paramter = True"),
    "env-types": _notebook("import os\nos.environ['HCCL_CONNECT_TIMEOUT'] = 600\nos.environ['MASTER_ADDR'] = 'eth0'\n"
                           "os.environ['HCCL_IF_IP'] = '10.0.0.x'\nos.environ['HCCL_SOCKET_IFNAME'] = '10.0.0.1'\n"
                           "os.environ['TP_SOCKET_IFNAME'] = '-'\nos.environ['HCCL_SOCKET_IFNAME'] = 'eth0,,eth1'\n"
                           "os.environ['PYTORCH_NPU_ALLOC_CONF'] = 'expandable_segments: True'\n"
                           "os.environ['MASTER_ADDR'] = '-bad'\nos.environ['HCCL_EXEC_TIMEOUT'] = 'x'\n"
                           "os.environ['CPU_AFFINITY_CONF'] = '1, force:1'\n"
                           "os.environ['PYTORCH_NPU_ALLOC_CONF'] = 'garbage_collection_threshold:abc'"),
    # a parser's own separator and format (scripts/extract_env_value_parsers.py: a split on "+", an anchored pattern)
    "env-parsers": _notebook("import os\nos.environ['TORCHINDUCTOR_NPU_EXT_DEBUG'] = 'cpu,lowering'\n"
                             "os.environ['TORCH_NPU_DEVICE_CAPABILITY'] = 'v9'"),
    "env-requires": _notebook("import os\nos.environ['TASK_QUEUE_ENABLE'] = '0'\nos.environ['TORCH_NPU_LAZY_FUSION'] = 'True'"),
    # (round 22) the Hugging Face stack: an import the installed release lacks, a class built in a forked child
    "hf-stack": _notebook("from transformers.trainer_args import TrainingArguments\n"
                          "from transformers import BitsAndBytesConfig\n"
                          "q = BitsAndBytesConfig(load_in_4bit=True, load_in_8bit=True)"),
    # (round 24t) a Triton kernel run under Triton's interpreter in a forked child (npulab.lint.triton_run)
    "triton-kernel": _notebook("import torch\nimport triton\nimport triton.language as tl\n\n@triton.jit\n"
                               "def t_kernel(x_ptr, N: tl.constexpr):\n"
                               "    idx = tl.arange(0, N)[:, None] * N + tl.arange(0, N)[None, :]\n"
                               "    tl.store(x_ptr + idx, tl.permute(tl.load(x_ptr + idx), (1, 2)))\n\n"
                               "x = torch.randn(16, 16, device='npu')\nt_kernel[(1,)](x, N=16)"),
    # (round 25) a torch_npu operator's meta function in the wheel refuses the call (npulab.lint.op_meta)
    "operator-meta": _notebook("import torch\nimport torch_npu\nx = torch.randn(8, 64, dtype=torch.float16).npu()\n"
                               "w = torch.randint(-8, 8, (32, 48), dtype=torch.int8).npu()\ns = torch.ones(32).npu()\n"
                               "y = torch_npu.npu_quant_matmul_dequant(x, w, s)"),
    # (round 25t) a kernel the interpreter runs but Triton's front end refuses (npulab.lint.triton_front_end)
    "triton-front-end": _notebook("import torch\nimport triton\nimport triton.language as tl\n\n@triton.jit\n"
                                  "def c_kernel(x_ptr, N: tl.constexpr):\n"
                                  "    i = tl.program_id(0)\n"
                                  "    if 0 < i < tl.num_programs(0):\n"
                                  "        tl.store(x_ptr + tl.arange(0, N), tl.cos(tl.load(x_ptr + tl.arange(0, N))))\n\n"
                                  "x = torch.randn(16, device='npu')\nc_kernel[(2,)](x, N=16)"),
    "operator-rank": _notebook("import torch\nimport torch_npu\nb = torch.randn(4).npu()\ng = torch.randn(3, 4).npu()\n"
                               "y = torch_npu.npu_giou(b, g)"),
    # the three forms of a named axis's limit (npulab.lint.op_axes: a set, a multiple, an upper bound)
    "operator-axis-set": _notebook("import torch\nimport torch_npu\nx = torch.rand(1, 128, 5, 5).npu()\n"
                                   "y = torch_npu.npu_mhc_sinkhorn(x)\n"),
    "operator-axis-multiple": _notebook("import torch\nimport torch_npu\ni = torch.randn(8, 2, 96, dtype=torch.float16).npu()\n"
                                        "w = torch.randn(3, 96, dtype=torch.float16).npu()\n"
                                        "o = torch_npu.npu_masked_causal_conv1d(i, w)\n"),
    "operator-axis-bound": _notebook(
        "import torch\nimport torch_npu\nq = torch.randn(4, 2, 512, dtype=torch.bfloat16).npu()\n"
        "v = torch.randn(4, 2, 128, dtype=torch.bfloat16).npu()\n"
        "s = torch.randn(1, 2, 128, 512, dtype=torch.bfloat16).npu()\n"
        "o = torch_npu.npu_recurrent_gated_delta_rule(q, q, v, s)\n"),
    # (round 15) a tensor's dtype, a named axis's range, an integer below a tensor's axis, a setting under "X is not None"
    "operator-dtype": _notebook("import torch\nimport torch_npu\nx = torch.randint(0, 10, (4, 128), dtype=torch.int32).npu()\n"
                                "y = torch_npu.npu_fast_gelu(x)\n"),
    "operator-dtype-tie": _notebook("import torch\nimport torch_npu\nx1 = torch.randn(4, 64, dtype=torch.float16).npu()\n"
                                    "x2 = torch.randn(4, 64, dtype=torch.bfloat16).npu()\n"
                                    "g = torch.randn(64, dtype=torch.float16).npu()\n"
                                    "y1, y2, r, x = torch_npu.npu_add_rms_norm_cast(x1, x2, g)\n"),
    "operator-axis-range": _notebook("import torch\nimport torch_npu\nq = torch.randn(1, 2, 8, 16, 16, dtype=torch.float16).npu()\n"
                                     "o = torch_npu.npu_fused_floyd_attention(q, q, q, q, q)\n"),
    "operator-axis-below": _notebook(
        "import torch\nimport torch_npu\nx = torch.randn(32, 16, dtype=torch.float16).npu()\n"
        "y = torch.zeros(32, 64, dtype=torch.float16).npu()\ni = torch.zeros(32, dtype=torch.int32).npu()\n"
        "a = torch.randn(2, 1, 64, 16, dtype=torch.float16).npu()\nb = torch.randn(2, 1, 32, 64, dtype=torch.float16).npu()\n"
        "o = torch_npu.npu_batch_gather_matmul(y, x, b, i, a, layer_idx=1)\n"),
    "operator-docs-given": _notebook(
        "import torch\nimport torch_npu\nx = torch.randn(64, 512, dtype=torch.bfloat16).npu()\n"
        "g = torch.tensor([32, 32], dtype=torch.int64).npu()\n"
        "y, s = torch_npu.npu_dequant_swiglu_quant(x, group_index=g, quant_mode=0)\n"),
    "given-twice": _notebook("import torch\ny = torch.nn.functional.relu(x, input=x)"),
    "module-home": _notebook("from mindspore.ops import mint"),
    "unit-unwritten": _notebook("!msprof --output=/tmp/prof --storage-limit=1024 python train.py"),
    "tools": _notebook("!npu-smi infoo\n!msprof --bogus-flag=1 ./app\n!python convert_ckpt_x.py --a 1\n"
                       "!bash MindSpeed-LLM/examples/mcore/llama2/unknown_script.sh"),
    "own-parser": _notebook("!torchrun --nproc-per-node=2 --tee=both train.py\n"
                            "!torchrun --nproc-per-node=2 --numa-binding=NODE train.py\n"
                            "!torchrun --nproc-per-node=2 --no-python -m train"),
    "operator-docs": _notebook("import torch\nimport torch_npu\ny = torch_npu.npu_prefetch(w, None, 0)\n"
                               "y = torch_npu.npu_weight_quant_batchmatmul(x, w, s, antiquant_group_size=48)\n"
                               "y = torch_npu.npu_weight_quant_batchmatmul(x, w, s, quant_offset=torch.ones(1))\n"
                               "y = torch_npu.npu_moe_gating_top_k(x, k=2, k_group=4, group_count=2)\n"
                               "y = torch_npu.npu_quantize(x, s, None, torch.quint4x2, -1, True)\n"
                               "y = torch_npu.npu_top_k_top_p(x, p=None, k=None)"),
    "torch-docstrings": _notebook("import torch\nx = torch.rand(4)\nq = torch.nanquantile(x, 1.5)\n"
                                  "loss = torch.nn.SmoothL1Loss(beta=-1.0)"),
    "meta-kernel": _notebook("import torch\nx = torch.randn(4, 2).npu()\ny = torch.cross(x, x, dim=1)"),
    "cpu-values": _notebook("import torch\nx = torch.randn(4, 3).npu()\ny = x.index_select(0, torch.tensor([0, 9]).npu())"),
    "deprecated-call": _notebook("import torch\na = torch.randn(3).npu()\nm = torch.ger(a, a)"),
    "child-refused": _notebook('import torch\ntorch.set_deterministic_debug_mode("loud")'),
    "child-warned": _notebook('import torch\ntorch.set_float32_matmul_precision("fp32")'),
    "meta-warned": _notebook("import torch\nlayer = torch.nn.TransformerEncoderLayer(d_model=32, nhead=4)\n"
                             "enc = torch.nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=True)"),
    "flag-refused": _notebook("!vllm serve m --enable-eplb"),  # (round 19) a validator's test over two flags
    # (round 23) JSON configs (a test, null, a bound, an extra key), LLM's keywords as flags, a built tokenizer called
    "flag-json": _notebook("!vllm serve m --kv-transfer-config '{\"kv_connector\": \"X\", \"kv_load_failure_policy\": null}'\n"
                           "!vllm serve m --profiler-config '{\"profiler\": \"torch\", \"active_iterations\": 0, \"activ\": 1}'"),
    "engine-args": _notebook("from vllm import LLM\nllm = LLM(model=\"m\", numa_bind_nodes=[0])"),
    "hf-called": _notebook("from tokenizers import Tokenizer, models\nfrom transformers import PreTrainedTokenizerFast\n"
                           "core = Tokenizer(models.WordLevel({\"[UNK]\": 0, \"a\": 1}, unk_token=\"[UNK]\"))\n"
                           "tok = PreTrainedTokenizerFast(tokenizer_object=core, unk_token=\"[UNK]\")\n"
                           "ids = tok.encode(\"a\", padding=\"max\")"),
    # (round 21) Inductor's option names and types, a companion variable off until set, torch's parsing of a device
    "compile-options": _notebook("import torch\nnet = torch.compile(m, options={'triton.cudagraph': True})\n"
                                 "net = torch.compile(m, options={'coordinate_descent_tuning': 1})"),
    "env-requires-unset": _notebook("import os\nos.environ['DUMP_GRAPH_FORMAT'] = 'readable'"),
    "meta-device": _notebook('import torch\ndev = torch.device("npu:one")'),
    # (round 23c) HCCL's port ranges (a span, its bounds, overlapping items), pair rules of atc and msprof op flags
    "cann-value-spaces": _notebook("import os\nos.environ['HCCL_NPU_SOCKET_PORT_RANGE'] = '61050-61000'\n"
                                   "os.environ['HCCL_NPU_SOCKET_PORT_RANGE'] = '61000-70000'\n"
                                   "os.environ['HCCL_HOST_SOCKET_PORT_RANGE'] = '60000-60050,60040-60100'\n"
                                   "!atc --model=m.onnx --framework=5 --output=o --soc_version=Ascend910B1 "
                                   "--precision_mode=force_fp16 --precision_mode_v2=fp16\n"
                                   "!msprof op --mstx-include=range_a ./app"),
    "markdown": {"cells": [{"cell_type": "markdown", "id": "m", "metadata": {},
                            "source": "```bash\nexport ASCEND_LAUNCH_BLOCKING=true\nexport HCCL_CONECT_TIMEOUT=600\n"
                                      "vllm serve m --max-model-length 8\n```\n\nSet `TORCH_NPU_FALLBACK_CPU_DISABLE=1`.\n"}]},
}


def _facts(message: str) -> tuple[Counter, set]:
    """What a finding must say in both languages: its code spans (names, flags, values, guesses), each as often,
    and its numbers (lines, versions, counts, bounds). A Chinese document's sentence that the Chinese message quotes
    (op_docs: "（原文：“…”）") is not a fact the English one repeats: it cites the page instead."""
    message = re.sub(r"（原文：“[^”]*”）", "", message)
    spans = [s for s in re.findall(r"`([^`]+)`", message) if not CJK.search(s)]  # `npu:<编号>`: a placeholder
    return Counter(spans), set(re.findall(r"\d+(?:\.\d+)*", re.sub(r"`[^`]+`", " ", message)))


@pytest.fixture(scope="module")
def runs():
    """Every planted notebook linted in Chinese and in English (a fresh context per language), with the catalogue
    keys the English run used."""
    from npulab.core.cli import UsageError

    try:
        index = pinned_index()
    except UsageError as err:
        pytest.skip(f"torch_npu wheel neither cached nor downloadable here: {err}")
    notebooks = {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in FIXTURES}
    notebooks |= {f"dev:{c['id']}": _notebook(c["code"]) for c in DEV}
    notebooks |= {f"heldout:{c['id']}": _notebook(c["planted"]) for c in HELDOUT}
    notebooks |= {f"heldout_c:{c['id']}": _notebook(c["planted"]) for c in HELDOUT_C}
    notebooks |= {f"frameworks:{p[0]}": FRAMEWORKS._notebook(p[1]) for p in FRAMEWORKS.PLANTED}
    notebooks |= {f"extra:{name}": nb for name, nb in EXTRA.items()}
    used: set[str] = set()
    out = {}
    original = i18n.t

    def spy(key, language=None, **fields):
        used.add(key)
        return original(key, language, **fields)

    with pytest.MonkeyPatch.context() as mp:
        for lang in ("zh", "en"):
            mp.setenv("NPULAB_LANG", lang)
            context = Context(pinned_version(REPO_ROOT / "requirements-npu.txt"))
            if not isinstance(context.sources("mindspore"), signatures.SourceTree):
                pytest.skip(f"MindSpore sources not available: {context.sources('mindspore')}")
            if lang == "en":
                for module in _lint_modules():
                    mp.setattr(module, "t", spy)
            out[lang] = {name: check_notebook(nb, lambda: index, f"{name}.ipynb", context)[0]
                         for name, nb in notebooks.items()}
            if lang == "en":  # the report's lines, from the command itself
                folder = Path(tempfile.mkdtemp())
                markdown = {"cells": [{**EXTRA["markdown"]["cells"][0], "id": None}], "metadata": {},
                            "nbformat": 4, "nbformat_minor": 5}
                (folder / "markdown.ipynb").write_text(json.dumps(markdown), encoding="utf-8")
                (folder / "clean.ipynb").write_text(json.dumps({**_notebook("import torch"), "metadata": {},
                                                                "nbformat": 4, "nbformat_minor": 5}), encoding="utf-8")
                for paths in ([*FIXTURES, folder / "markdown.ipynb", Path("/nonexistent")], [folder / "clean.ipynb"]):
                    args = argparse.Namespace(paths=paths, json=False, torch_npu_version=None, cache_dir=None)
                    with contextlib.redirect_stdout(io.StringIO()) as report, contextlib.redirect_stderr(io.StringIO()):
                        command.run(args)
                    no_cjk(report.getvalue())
                shutil.rmtree(folder)
            out[f"{lang}_unchecked"] = sorted(context.unchecked, key=lambda u: (u.package, u.name))
    return out["zh"], out["en"], out["en_unchecked"], used


def _lint_modules():
    import importlib
    import pkgutil

    import npulab.lint

    # lint-npu's modules, and the lower-layer ones it shares with explain (the variables' table, values and grammar)
    names = [f"npulab.lint.{i.name}" for i in pkgutil.iter_modules(npulab.lint.__path__)]
    names += ["npulab.core.words", "npulab.env.env_vars", "npulab.env.env_values", "npulab.env.value_grammar"]
    return [m for m in map(importlib.import_module, names) if getattr(m, "t", None) is i18n.t]


def test_every_finding_is_english_with_the_same_facts(runs):
    zh, en, _, _ = runs
    total = 0
    for name in zh:
        assert [(f.kind, f.cell, f.cell_id, f.name) for f in en[name]] == \
               [(f.kind, f.cell, f.cell_id, f.name) for f in zh[name]], name
        for z, e in zip(zh[name], en[name], strict=True):
            if CJK.search(z.name or ""):
                continue  # a name the cell itself wrote in Chinese
            no_cjk(e.message)
            (zh_spans, zh_numbers), (en_spans, en_numbers) = _facts(z.message), _facts(e.message)
            assert not zh_spans - en_spans and en_numbers >= zh_numbers, (name, z.message, e.message)
            total += 1
    assert total >= 60  # the fixtures' 15 findings and the value cases' planted errors


def test_the_fixture_kinds_and_facts_in_english(runs):
    _, en, unchecked, _ = runs
    kinds = {f.kind for name in en for f in en[name]}
    assert kinds >= {"call-signature", "argument-value", "env-unknown", "env-value", "cli-flag", "feature-version",
                     "unknown-name", "bare-npu", "leaf", "syntax-error", "unknown-stack", "since-unstated"}
    msgs = {f.cell_id: f.message for f in en["misspelt_cann_variable"]}
    assert msgs["c0"].startswith("line 5: the environment variable `HCCL_CONECT_TIMEOUT` is unknown")
    assert "did you mean `HCCL_CONNECT_TIMEOUT`, `HCCL_EXEC_TIMEOUT`?" in msgs["c0"]
    assert "torch_npu 2.12.0" in msgs["c0"]
    swift = next(f.message for f in en["tool_flag_unknown"] if f.cell_id == "c1")
    assert swift == ("line 2: `swift` 4.6.0 has no flag `--train_type`: renamed --tuner_type in v4.0.0; v4.1.0 removed "
                     "the old name (unknown arguments raise ValueError: remaining_argv) (modelscope/ms-swift v4.1.0 "
                     "swift/pipelines/base.py (alias removed; unknown arguments raise ValueError: remaining_argv)).")
    keyword = next(f.message for f in en["wrong_keyword_torch_npu"] if f.cell_id == "c1")
    assert keyword.startswith("line 5: `torch.npu.set_compile_mode` has no parameter named `jit_compiles`; in torch_npu ")
    assert keyword.endswith("did you mean `jit_compile`?")
    for u in unchecked:
        no_cjk(u.reason)


def test_every_lint_key_is_used_by_a_planted_error(runs):
    *_, used = runs
    keys = {k for k in i18n.catalogue() if k.startswith("lint.")}
    assert set(NOT_PLANTED) <= keys
    assert sorted(set(NOT_PLANTED) & used) == []  # a key a planted error now reaches leaves NOT_PLANTED
    assert sorted(keys - set(NOT_PLANTED) - used) == []


def test_every_lint_entry_is_english_and_keeps_its_fields():
    for key, words in i18n.catalogue().items():
        if key.startswith("lint."):
            no_cjk(words["en"])
            assert sorted(re.findall(r"{(\w+)}", words["zh"])) == sorted(re.findall(r"{(\w+)}", words["en"])), key


def _cli(*args: str, lang: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in __import__("os").environ.items() if k != "NPULAB_LANG"} | {"NPULAB_LANG": lang}
    return subprocess.run([sys.executable, "-m", "npulab", "lint-npu", *args], capture_output=True, text=True,
                          cwd=REPO_ROOT, env=env, timeout=300)


def test_cli_report_in_english_and_in_chinese():
    fixtures = str(TESTS / "lint" / "lint_npu_fixtures")
    en = _cli(fixtures, "/nonexistent", lang="en")
    zh = _cli(fixtures, "/nonexistent", lang="zh")
    assert en.returncode == zh.returncode == 2
    no_cjk(en.stdout + en.stderr)
    assert "error: /nonexistent: no such path" in en.stderr and "错误：/nonexistent：" in zh.stderr
    assert re.search(r"^lint-npu: checked 23 npu cells in 6 notebooks \(torch_npu [\d.]+\) and found 15 problems\.$",
                     en.stdout, re.M)
    assert re.search(r"^lint-npu：检查了 6 个笔记本中的 23 个 npu 单元（torch_npu [\d.]+），发现 15 个问题。$", zh.stdout, re.M)
    assert "code cell 2 (id c1): line 3: `npu-smi info -t memeory`: there is no such query type" in en.stdout
    assert "Stack-specific npu cells that do not name their environment with `# stack: NAME` (3;" in en.stdout
    assert "Calls whose signature cannot be checked (1;" in en.stdout
    assert len(en.stdout.splitlines()) == len(zh.stdout.splitlines())
    clean = _cli(str(TESTS / "lint" / "lint_npu_fixtures" / "npu_smi_query_type.ipynb"), "--json", lang="en")
    data = json.loads(clean.stdout)
    assert set(data) == {"torch_npu_version", "files_scanned", "cells_checked", "findings", "errors", "not_checkable",
                         "stack_not_named"}
    no_cjk(" ".join(f["message"] for f in data["findings"]))
