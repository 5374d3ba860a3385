"""conftest.py: under xdist, a notebook cell that measures (calls LoadWatch() runs while no other cell runs."""

import importlib.util
import threading
import time
from types import SimpleNamespace

from npulab.core.paths import REPO_ROOT

_spec = importlib.util.spec_from_file_location("root_conftest", REPO_ROOT / "conftest.py")
root_conftest = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(root_conftest)


def _cell(source):
    return SimpleNamespace(cell=SimpleNamespace(source=source))


def test_a_measuring_cell_is_one_that_starts_a_load_watch():
    assert root_conftest._measures(_cell("watch = machine.LoadWatch(device)\nrun()"))
    assert not root_conftest._measures(_cell("provenance.show(rows)"))


def test_a_measurement_waits_for_the_running_cell_and_then_runs_alone(tmp_path, monkeypatch):
    monkeypatch.setattr(root_conftest, "MEASURE_LOCK", tmp_path / "lock")
    monkeypatch.setattr(root_conftest, "MEASURE_GATE", tmp_path / "gate")
    events = []

    def cell(name, exclusive, start_after, seconds):
        time.sleep(start_after)
        with root_conftest._measuring_alone(exclusive):
            events.append((name, "start", time.monotonic()))
            time.sleep(seconds)
            events.append((name, "end", time.monotonic()))

    threads = [threading.Thread(target=cell, args=args) for args in
               (("other-1", False, 0.0, 0.4), ("measure", True, 0.1, 0.4), ("other-2", False, 0.2, 0.1))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    order = [(name, what) for name, what, _ in sorted(events, key=lambda e: e[2])]
    # the measurement waits for the cell already running, and the cell that asked after it waits for the measurement
    assert order == [("other-1", "start"), ("other-1", "end"), ("measure", "start"), ("measure", "end"),
                     ("other-2", "start"), ("other-2", "end")]


def test_cells_that_do_not_measure_still_run_two_at_a_time(tmp_path, monkeypatch):
    monkeypatch.setattr(root_conftest, "MEASURE_LOCK", tmp_path / "lock")
    monkeypatch.setattr(root_conftest, "MEASURE_GATE", tmp_path / "gate")
    inside, most = [0], [0]
    guard = threading.Lock()

    def cell():
        with root_conftest._measuring_alone(False):
            with guard:
                inside[0] += 1
                most[0] = max(most[0], inside[0])
            time.sleep(0.3)
            with guard:
                inside[0] -= 1

    threads = [threading.Thread(target=cell) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert most[0] == 2
