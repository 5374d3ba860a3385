"""The NPU cells of lesson 06/05 (ms-swift, MindSpeed-LLM, vLLM-Ascend) name their stack, use today's commands and,
in a workshop, the seat's own NPU and port (``npulab.workshop.mode``) or say why they are skipped.

The cells are run through IPython with ``system`` replaced by a recorder, so the shell lines are checked exactly as
IPython would expand them (``{name}`` from the cell's variables), without running anything.
"""

from __future__ import annotations

import json
import re

import pytest

from npulab.core import provenance as provenance_module
from npulab.core.paths import REPO_ROOT

LESSON = REPO_ROOT / "chapters" / "06_advanced" / "05_llm_on_ascend.ipynb"
SEAT = {"NPULAB_WORKSHOP_SEAT": "alice", "NPULAB_SEAT_DEVICES": "3", "NPULAB_SEAT_PORT": "20030"}
# vLLM-Ascend's worker registers ATB extensions on A2/A3: the venv path loads CANN, then NNAL (review 2026-12c M5)
VLLM_ENV = "source /usr/local/Ascend/cann/set_env.sh && source /usr/local/Ascend/nnal/atb/set_env.sh"


def _npu_cells() -> dict[str, str]:
    cells = json.loads(LESSON.read_text(encoding="utf-8"))["cells"]
    return {c["id"]: "".join(c["source"]) for c in cells if "npu" in c["metadata"].get("tags", [])}


CELLS = _npu_cells()


@pytest.fixture
def run(monkeypatch, capsys):
    """Run a cell body (after its %%npu line) in IPython; return (shell commands, printed text)."""
    import IPython.core.interactiveshell as shell_module
    from IPython import get_ipython
    from IPython.core.interactiveshell import InteractiveShell

    commands: list[str] = []
    monkeypatch.setattr(shell_module, "system", lambda cmd: commands.append(cmd) or 0)
    existing = get_ipython()  # another test may already have started a shell: reuse it, never replace it
    shell = existing or InteractiveShell.instance()
    monkeypatch.setattr(shell, "system", shell.system_piped)

    def _run(cell_id: str, environ: dict[str, str]) -> tuple[list[str], str]:
        for key in SEAT:
            monkeypatch.delenv(key, raising=False)
        for key, value in environ.items():
            monkeypatch.setenv(key, value)
        commands.clear()
        result = shell.run_cell(CELLS[cell_id].split("\n", 1)[1], store_history=False)
        assert result.error_in_exec is None and result.error_before_exec is None
        return list(commands), capsys.readouterr().out

    yield _run
    if existing is None:
        InteractiveShell.clear_instance()


def test_every_stack_cell_names_its_environment_and_the_doctor_check():
    for cell_id in ("358d500d", "597ddbeb", "a2bb9722"):
        assert "# 环境：" in CELLS[cell_id] and "python -m npulab doctor --stack" in CELLS[cell_id], cell_id


def test_todays_commands():
    swift, mindspeed = CELLS["358d500d"], CELLS["597ddbeb"]
    assert "--tuner_type lora" in swift and "--train_type" not in swift  # ms-swift 4.1 removed --train_type
    assert "convert_ckpt_v2.py" in mindspeed and "examples/mcore/qwen3/tune_qwen3_32b_4K_lora_ptd.sh" in mindspeed
    assert "tests/0day" not in mindspeed and "convert_ckpt.py " not in mindspeed
    assert not any("pkill" in source for source in CELLS.values())  # kill by PID, not every "vllm serve" on the host


def test_outside_a_workshop_the_cells_use_card_0_and_port_8000(run):
    commands, _ = run("a2bb9722", {})
    assert commands[0].startswith(f'bash -c "{VLLM_ENV} && ASCEND_RT_VISIBLE_DEVICES=0 VLLM_USE_MODELSCOPE=True PATH=')
    assert " nohup vllm serve" in commands[0] and "--port 8000" in commands[0]
    assert all("{" not in c.split("-d '")[0] for c in commands)  # every {name} was expanded
    commands, _ = run("358d500d", {})
    assert commands[0].startswith("ASCEND_RT_VISIBLE_DEVICES=0 PATH=") and " nohup swift sft" in commands[0]


def test_stack_commands_run_from_the_stacks_own_venv(run, monkeypatch, tmp_path):
    """The shell lines find the stack's tools in its venv (NPULAB_VENV_<NAME>) before the kernel's PATH, and the
    MindSpeed-LLM lines load CANN with bash (``!`` may run dash, which has no ``source``) from the CANN >= 8.5 path."""
    for name in ("MS_SWIFT", "VLLM_ASCEND", "MINDSPEED_LLM"):
        (tmp_path / name / "bin").mkdir(parents=True)
        monkeypatch.setenv(f"NPULAB_VENV_{name}", str(tmp_path / name))
    commands, _ = run("358d500d", {})
    assert f"PATH={tmp_path / 'MS_SWIFT' / 'bin'}:" in commands[0]
    commands, _ = run("a2bb9722", {})
    assert f"PATH={tmp_path / 'VLLM_ASCEND' / 'bin'}:" in commands[0]
    commands, _ = run("597ddbeb", {})
    downloads, commands = commands[:2], commands[2:]  # the Alpaca parquet and the Qwen3-32B weights first (review L7)
    assert "dataset" in downloads[0] and "train-00000-of-00001-a09b74b3ef9c3b56.parquet" in downloads[0]
    assert "hf download Qwen/Qwen3-32B --local-dir ./model_from_hf/qwen3_32b_hf/" in downloads[1]
    assert all(c.startswith('bash -c "source /usr/local/Ascend/cann/set_env.sh') for c in commands[:3])
    assert f"export PATH={tmp_path / 'MINDSPEED_LLM' / 'bin'}:" in commands[0]
    assert "data_convert_qwen3_instruction.sh" in commands[1] and "ascend-toolkit" not in " ".join(commands)


def test_in_a_workshop_the_cells_use_the_seat_or_say_why_not(run):
    commands, _ = run("a2bb9722", SEAT)
    assert commands[0].startswith(f'bash -c "{VLLM_ENV} && ASCEND_RT_VISIBLE_DEVICES=3 ') and "--port 20030" in commands[0]
    assert commands[0].endswith('echo \\$! > vllm_serve.pid"')  # the PID of nohup's job, written by bash
    assert "localhost:20030" in commands[1] and "localhost:20030" in commands[3] and "8000" not in " ".join(commands)
    assert '{"model": "Qwen/Qwen2.5-7B-Instruct"' in commands[3]  # the JSON body keeps its braces
    commands, _ = run("4ce0fc95", SEAT)
    assert all("20030" in c for c in commands if "vllm bench" in c or "curl" in c)
    assert "kill $(cat vllm_serve.pid) ; sleep 10" in commands and commands[-1] == "kill $(cat vllm_eager.pid)"
    commands, _ = run("358d500d", SEAT)
    assert commands[0].startswith("ASCEND_RT_VISIBLE_DEVICES=3 PATH=") and " nohup swift sft" in commands[0]
    for whole_server in ("597ddbeb", "540ec779"):  # 8-card jobs: skipped on a shared server, with the reason
        commands, out = run(whole_server, SEAT)
        assert commands == [] and "工作坊模式（alice）" in out and "8 张卡" in out


# -- the lesson computes its HBM plans and decode bound for the learner's chip (issue #25) -----------------------------

def _code_cells() -> list[dict]:
    cells = json.loads(LESSON.read_text(encoding="utf-8"))["cells"]
    return [c for c in cells if c["cell_type"] == "code"]


CODE = {c["id"]: "".join(c["source"]) for c in _code_cells()}
# what the planning cells need from the setup cell, then the chip cell and the cells that compute for the chip
IMPORTS = """
import json, subprocess, sys
from npulab.core import provenance
from npulab.core.display import Table
from npulab.core.paths import DATA_DIR
from npulab.env import chip_probe
from npulab.hw import chips
from npulab.llm import decoder, kv_cache
"""
PLANNING = ("chip-llm", "cccfcb77", "037abe59", "bbf538a9", "a127e672", "b5ec6b69")


def _run_planning(monkeypatch, chip: str | None) -> tuple[dict, dict]:
    """Run the chip cell and the planning cells as the kernel would; (namespace, what each cell shows: its last
    expression, else the last table it displayed through ``provenance.show``)."""
    import ast

    emitted: list = []
    monkeypatch.setattr(provenance_module, "emit", emitted.append)
    if chip is None:
        monkeypatch.delenv("NPULAB_CHIP", raising=False)
    else:
        monkeypatch.setenv("NPULAB_CHIP", chip)
    namespace: dict = {}
    exec(IMPORTS, namespace)
    shown = {}
    for cell_id in PLANNING:
        tree = ast.parse(CODE[cell_id])
        last = tree.body.pop() if isinstance(tree.body[-1], ast.Expr) else None
        emitted.clear()
        exec(compile(tree, cell_id, "exec"), namespace)
        value = eval(compile(ast.Expression(last.value), cell_id, "eval"), namespace) if last else None
        shown[cell_id] = value if value is not None else (emitted[-1] if emitted else None)
    return namespace, shown


def test_default_plans_for_the_910b3_per_card(monkeypatch, capsys):
    ns, shown = _run_planning(monkeypatch, None)
    assert ns["card"].key == ns["bw_chip"].key == "910B3"
    assert ns["p8"].max_tokens == 310507  # the number the exercise answers quote (60.96 GiB runtime total)
    assert "1 张卡能缓存的 token" in shown["a127e672"].headers and "TP=8 时所需卡数" in shown["a127e672"].headers
    assert "910B3" in shown["a127e672"].title and "BF16 权重" in shown["a127e672"].headers


def test_a3_plans_per_die_and_says_so(monkeypatch, capsys):
    ns, shown = _run_planning(monkeypatch, "A3")
    out = capsys.readouterr().out
    assert ns["card"].key == "A3" and ns["p8"].hbm.value == 64  # one die is one device
    assert "每个 die 当作一个设备" in out and "“卡”都指一个 die" in out
    assert "1 个 die 能缓存的 token" in shown["a127e672"].headers and "TP=8 时所需 die 数" in shown["a127e672"].headers
    assert not any("张卡" in h for h in shown["a127e672"].headers)
    assert "A3 的一个 die" in shown["bbf538a9"].title and "“卡”指 die" in shown["b5ec6b69"].title
    # no published bandwidth: the decode bound says why and is computed, and labelled, for the 910B3
    assert ns["bw_chip"].key == "910B3" and "改按 910B3" in out and shown["037abe59"].title.startswith("910B3：")


def test_unpublished_memory_falls_back_and_fp16_parts_are_labelled_fp16(monkeypatch, capsys):
    ns, shown = _run_planning(monkeypatch, "310B")
    assert ns["card"].key == "910B3" and "片外内存未公开" in capsys.readouterr().out
    assert "910B3" in shown["a127e672"].title
    ns, shown = _run_planning(monkeypatch, "310P3")
    assert ns["card"].key == "310P3" and ns["p8"].kv_dtype == "float16"
    assert "FP16 权重" in shown["a127e672"].headers and "FP16" in shown["b5ec6b69"].title


@pytest.mark.parametrize("book", ["", "en"])
def test_the_note_on_ring_latency_quotes_the_tables_numbers(book):
    """The note after the tensor-parallel tables (cell ca301a69, both editions) quotes derived numbers: 2L AllReduces
    per step and the ring's latency term 2L · 2(t−1) at TP 8, from the models' own config.json (the table's formula)."""
    lesson = REPO_ROOT / book / "chapters" / "06_advanced" / "05_llm_on_ascend.ipynb"
    (note,) = ["".join(c["source"]) for c in json.loads(lesson.read_text(encoding="utf-8"))["cells"]
               if c.get("id") == "ca301a69"]
    layers = [json.loads((REPO_ROOT / "npulab" / "data" / "llm_configs" / f"{model}.json").read_text())
              ["num_hidden_layers"] for model in ("Llama-3.1-8B", "Qwen3-32B")]
    prose = note.replace("Llama-3.1-8B", "").replace("Qwen3-32B", "")
    numbers = [int(n) for n in re.findall(r"(?<![\w.])\d+(?![\w.])", prose)]
    calls, ring = [2 * n for n in layers], [2 * n * 2 * (8 - 1) for n in layers]
    assert calls == numbers[numbers.index(calls[0]):][:2], (calls, numbers)
    assert ring == numbers[numbers.index(ring[0]):][:2], (ring, numbers)
