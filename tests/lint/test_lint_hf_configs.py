"""lint-npu round 22 (npulab/lint/hf_configs.py): a cell's literal construction of a transformers, peft or accelerate
class is built in a forked child, after the cell's literal ``os.environ`` settings, and the package's own checks judge
it; a module or name the installed release lacks is reported at the import. Round 23: tokenizers' classes too, names
bound to builds handed on, attributes the cell sets, and calls of a built object with literal arguments. APIs and
variables no labelled set (tests/data/lint_values_*) uses, each with its twin."""

from __future__ import annotations

import ast

import pytest

pytest.importorskip("torch")
pytest.importorskip("peft")
pytest.importorskip("accelerate")

from cell_findings import NPU, bound_cell  # noqa: E402

from npulab.lint import hf_configs  # noqa: E402

_TOKENIZER = ("from tokenizers import Tokenizer, models, pre_tokenizers\nfrom transformers import PreTrainedTokenizerFast\n"
              "core = Tokenizer(models.WordLevel({\"[UNK]\": 0, \"[PAD]\": 1, \"a\": 2, \"b\": 3}, unk_token=\"[UNK]\"))\n"
              "core.pre_tokenizer = pre_tokenizers.Whitespace()\n"
              "tok = PreTrainedTokenizerFast(tokenizer_object=core, unk_token=\"[UNK]\", pad_token=\"[PAD]\")\n")
# (planted, twin, the kind and words of the package's refusal)
PLANTED = [
    ("from transformers import BitsAndBytesConfig\nq = BitsAndBytesConfig(load_in_4bit=True, load_in_8bit=True)",
     "from transformers import BitsAndBytesConfig\nq = BitsAndBytesConfig(load_in_4bit=True)",
     "argument-value", "only one can be used"),
    ("from peft import PrefixTuningConfig\ncfg = PrefixTuningConfig(task_type=\"CAUSAL\", num_virtual_tokens=8)",
     "from peft import PrefixTuningConfig\ncfg = PrefixTuningConfig(task_type=\"CAUSAL_LM\", num_virtual_tokens=8)",
     "argument-value", "Invalid task type"),
    ("import os\nos.environ[\"ACCELERATE_USE_CPU\"] = \"maybe\"\nfrom accelerate import Accelerator\n"
     "acc = Accelerator()",
     "import os\nos.environ[\"ACCELERATE_USE_CPU\"] = \"true\"\nfrom accelerate import Accelerator\n"
     "acc = Accelerator()",
     "argument-value", "invalid truth value"),
    ("from transformers.trainer_args import TrainingArguments",
     "from transformers.training_args import TrainingArguments", "unknown-name", "trainer_args"),
    # round 23: a method of a built tokenizers object, and a transformers tokenizer built on it (its attribute set)
    ("from tokenizers import Tokenizer, models\ncore = Tokenizer(models.WordLevel({\"[UNK]\": 0, \"a\": 1}, "
     "unk_token=\"[UNK]\"))\ncore.enable_truncation(max_length=8, strategy=\"longest\")",
     "from tokenizers import Tokenizer, models\ncore = Tokenizer(models.WordLevel({\"[UNK]\": 0, \"a\": 1}, "
     "unk_token=\"[UNK]\"))\ncore.enable_truncation(max_length=8, strategy=\"longest_first\")",
     "argument-value", "Unknown `strategy`"),
    (_TOKENIZER + "ids = tok.encode(\"a b\", padding=\"max\", max_length=8)",
     _TOKENIZER + "ids = tok.encode(\"a b\", padding=\"max_length\", max_length=8)",
     "argument-value", "not a valid PaddingStrategy"),
]


def _findings(source: str):
    return hf_configs.findings(*bound_cell(NPU + source))


@pytest.mark.parametrize(("planted", "twin", "kind", "words"), PLANTED)
def test_the_package_judges_the_planted_cell_not_its_twin(planted, twin, kind, words):
    found = _findings(planted)
    assert [f[2] for f in found] == [kind] and words in found[0][3]
    assert _findings(twin) == []


def test_arguments_that_are_not_literals_are_not_built():
    assert _findings("from transformers import BitsAndBytesConfig\nflag = True\n"
                     "q = BitsAndBytesConfig(load_in_4bit=flag, load_in_8bit=True)") == []


def test_a_model_class_is_never_built():
    assert hf_configs._call(*_first_call("from transformers import LlamaForCausalLM, LlamaConfig\n"
                                         "m = LlamaForCausalLM(LlamaConfig(hidden_size=64))")) is None
    planted = "from transformers import LlamaForCausalLM, BitsAndBytesConfig\n" \
              "m = LlamaForCausalLM.from_pretrained(\"x\", quantization_config=BitsAndBytesConfig(load_in_4bit=True, " \
              "load_in_8bit=True))"
    assert [f[2] for f in _findings(planted)] == ["argument-value"]  # the config inside is still built


def _first_call(source: str):
    tree, imported = bound_cell(NPU + source)
    return next(n for n in ast.walk(tree) if isinstance(n, ast.Call)), imported


def test_a_cell_without_the_packages_imports_none_of_them():
    before = dict(hf_configs._IMPORTED)
    assert _findings("x = torch.ones(2).npu()") == [] and hf_configs._IMPORTED == before


def test_a_call_of_a_built_object_is_made_on_it_as_the_cell_built_it():
    """The attribute the cell set is set again: without its pre-tokenizer "a b" would be one unknown word, and
    without the pad token padding would be refused."""
    uses = list(hf_configs._uses(*_bound(_TOKENIZER + "ids = tok(\"a b\", padding=\"max_length\", max_length=4)")))
    assert [(written, use.method) for _line, written, _receiver, use in uses] == [("tok", None)]
    padded = "ids = tok([\"a b\", \"a\"], padding=True)"
    assert "does not have a padding token" in _findings(_TOKENIZER + "tok.pad_token = None\n" + padded)[0][3]
    assert _findings(_TOKENIZER + padded) == []
    assert _findings(_TOKENIZER + "tok.pad_token = chosen\n" + padded) == []  # not a literal: the object is unknown


def test_a_method_that_leaves_the_child_is_never_called():
    source = _TOKENIZER + "tok.save_pretrained(\"out\")\ntok.push_to_hub(\"me/tok\")"
    assert list(hf_configs._uses(*_bound(source))) == []


def _bound(source: str):
    tree, imported = bound_cell(NPU + source)
    return tree, imported, hf_configs._bindings(tree, imported)
