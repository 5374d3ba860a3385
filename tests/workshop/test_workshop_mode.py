"""Workshop mode for the course's NPU cells: each adapted cell run through IPython with its shell commands recorded.

The cells need an Ascend NPU, so they never run in CI; here the body of each (without its ``%%npu`` line) runs in
a real IPython shell whose ``system`` records the command after IPython's own ``{…}`` expansion instead of running it.
"""

import json

import pytest
from IPython.core.interactiveshell import InteractiveShell

from npulab.core.paths import REPO_ROOT
from npulab.workshop.mode import pip_target, seat_job, tool_device

SEAT = {"NPULAB_WORKSHOP_SEAT": "alice", "NPULAB_SEAT_DEVICES": "3", "NPULAB_SEAT_PORT": "20030"}
TWO = {**SEAT, "NPULAB_SEAT_DEVICES": "2,3"}
CELLS = {  # notebook, cell id
    "dmi": ("chapters/05_tools/02_ascend_dmi_and_benchmarks.ipynb", "c41"),
    "torchrun": ("chapters/06_advanced/04_multi_card_hccl.ipynb", "h11"),
    "allreduce": ("chapters/06_advanced/04_multi_card_hccl.ipynb", "h20"),
    "msrun": ("chapters/06_advanced/04_multi_card_hccl.ipynb", "h26"),
    "pip": ("chapters/06_advanced/01_ascend_c_operator.ipynb", "c42"),
}


def _body(name):
    path, cell_id = CELLS[name]
    cell = next(c for c in json.loads((REPO_ROOT / path).read_text(encoding="utf-8"))["cells"] if c.get("id") == cell_id)
    source = "".join(cell["source"])
    assert source.startswith("%%npu") and {"npu", "skip-execution"} <= set(cell["metadata"]["tags"])
    return source.split("\n", 1)[1]


@pytest.fixture
def run_cell(monkeypatch, tmp_path):
    shell = InteractiveShell.instance()
    monkeypatch.setenv("HOME", str(tmp_path))

    def run(name, env):
        for key in ("NPULAB_WORKSHOP_SEAT", "NPULAB_SEAT_DEVICES", "NPULAB_SEAT_PORT"):
            monkeypatch.delenv(key, raising=False)
        for key, value in env.items():
            monkeypatch.setenv(key, value)
        commands = []
        monkeypatch.setattr(shell, "system", lambda cmd: commands.append(shell.var_expand(cmd, depth=1)))
        result = shell.run_cell(_body(name), store_history=False)
        result.raise_error()
        return commands

    return run


def test_outside_a_workshop_the_cells_run_as_the_lesson_wrote_them(run_cell):
    assert run_cell("dmi", {}) == [f"ascend-dmi {m} -d 0 -q" for m in ("--bw -t d2d", "--bw -t h2d", "-f -t fp16")]
    assert run_cell("torchrun", {}) == [
        "ASCEND_RT_VISIBLE_DEVICES=4,5,6,7 torchrun --standalone --nproc_per_node 4 examples/ddp_train.py --steps 50"]
    assert "--worker_num=8" in run_cell("msrun", {})[0] and "--master_port=8118" in run_cell("msrun", {})[0]
    assert run_cell("pip", {}) == [
        "cd ascendc/relu_custom/pytorch && pip install --no-build-isolation . && python run_relu_custom.py"]


def test_in_a_one_card_seat_the_cells_use_that_card_or_say_why_not(run_cell, capsys, tmp_path):
    assert run_cell("dmi", SEAT)[0] == "ascend-dmi --bw -t d2d -d 3 -q"
    assert run_cell("torchrun", SEAT) == []
    assert "至少 2 张 NPU" in capsys.readouterr().out
    assert run_cell("allreduce", SEAT) == ["npu-smi info -t topo"]  # read only: still shown
    assert run_cell("msrun", SEAT) == []
    pip = run_cell("pip", SEAT)[0]
    target = tmp_path / ".npulab" / "site-packages"
    assert f"--target {target} ." in pip and f"PYTHONPATH={target}" in pip and target.is_dir()


def test_in_a_two_card_seat_the_multi_card_cells_use_its_cards_and_port(run_cell):
    assert run_cell("torchrun", TWO)[0].startswith("ASCEND_RT_VISIBLE_DEVICES=2,3 torchrun --standalone --nproc_per_node 2 ")
    assert run_cell("allreduce", TWO)[0] == "ASCEND_RT_VISIBLE_DEVICES=2,3 python -m npulab bench allreduce --nproc 2"
    msrun = run_cell("msrun", TWO)[0]
    assert "--worker_num=2" in msrun and "--master_port=20030" in msrun and "8118" not in msrun


def test_helpers_outside_and_inside():
    assert tool_device(5, {}) == 5 and tool_device(5, SEAT) == 3
    job = seat_job([4, 5], environ={})
    assert (job.visible, job.nproc, job.port(8118)) == ("4,5", 2, 8118)
    assert seat_job([4, 5], min_cards=2, environ=SEAT) is None
    assert seat_job([4], environ=TWO).devices == (2,)  # never more cards than the lesson asks for
    assert pip_target({}) is None


def test_every_lesson_tells_a_participant_their_seat_and_nothing_outside_a_workshop(monkeypatch, capsys):
    import npulab

    class Shell:
        def register_magic_function(self, *args, **kwargs):
            pass

    for name in ("NPULAB_WORKSHOP_SEAT", "NPULAB_SEAT_DEVICES", "NPULAB_SEAT_PORT"):
        monkeypatch.delenv(name, raising=False)
    npulab.load_ipython_extension(Shell())  # what `%load_ext npulab` in each lesson's first cell runs
    assert capsys.readouterr().out == ""
    monkeypatch.setenv("NPULAB_WORKSHOP_SEAT", "alice")
    monkeypatch.setenv("NPULAB_SEAT_DEVICES", "3")
    monkeypatch.setenv("NPULAB_SEAT_PORT", "20030")
    npulab.load_ipython_extension(Shell())
    line = capsys.readouterr().out
    assert "工作坊座位：alice" in line and "你的 NPU：3" in line and "20030–20039" in line
