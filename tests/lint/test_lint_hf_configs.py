"""lint-npu round 22 (npulab/lint/hf_configs.py): a cell's literal construction of a transformers, peft or accelerate
class is built in a forked child, after the cell's literal ``os.environ`` settings, and the package's own checks judge
it; a module or name the installed release lacks is reported at the import. APIs and variables no labelled set
(tests/data/lint_values_*) uses, each with its twin."""

from __future__ import annotations

import ast

import pytest

pytest.importorskip("torch")
pytest.importorskip("peft")
pytest.importorskip("accelerate")

from cell_findings import NPU, bound_cell  # noqa: E402

from npulab.lint import hf_configs  # noqa: E402

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
