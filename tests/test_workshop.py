import runpy
from types import SimpleNamespace

import pytest

from npulab.core.paths import REPO_ROOT
from npulab.course.workshop import RosterError, agenda, assign_devices


def test_assignment_is_deterministic_and_respects_capacity():
    assert assign_devices(["a", "b"], [4, 5]) == {"a": 4, "b": 5}
    assert assign_devices(["a", "b", "c", "d"], [4, 5], per_device=2) == {"a": 4, "b": 4, "c": 5, "d": 5}
    with pytest.raises(RosterError, match="超出容量"):
        assign_devices(["a", "b", "c"], [4, 5])
    with pytest.raises(RosterError, match="重复"):
        assign_devices(["a", "a"], [0, 1])
    with pytest.raises(RosterError, match="不重复"):
        assign_devices(["a"], [1, 1])


def test_agenda_lists_lessons_and_exercises_but_not_solutions():
    sessions = agenda()
    paths = [s.path for s in sessions]
    assert "chapters/01_environment/01_environment_setup.ipynb" in paths
    assert "notebooks/01_environment_lab.ipynb" in paths
    assert not any("solutions" in p for p in paths)
    assert all(s.minutes > 0 and s.title for s in sessions)


def test_jupyterhub_config_gives_each_user_their_own_npu(tmp_path, monkeypatch):
    (tmp_path / "roster.txt").write_text("alice\nbob\n")
    monkeypatch.setenv("WORKSHOP_ROSTER", str(tmp_path / "roster.txt"))
    monkeypatch.setenv("WORKSHOP_NPUS", "6,7")

    class Config(SimpleNamespace):
        def __getattr__(self, name):
            value = Config()
            setattr(self, name, value)
            return value

    c = Config()
    ns = runpy.run_path(str(REPO_ROOT / "workshop" / "jupyterhub_config.py"), init_globals={"get_config": lambda: c})
    assert ns["SEATS"] == {"alice": 6, "bob": 7}
    assert c.Authenticator.allowed_users == {"alice", "bob"}
    spawner = SimpleNamespace(user=SimpleNamespace(name="bob"), environment=dict(c.Spawner.environment))
    c.Spawner.pre_spawn_hook(spawner)
    assert spawner.environment["ASCEND_RT_VISIBLE_DEVICES"] == "7"
    assert c.Spawner.environment == {"GLOG_v": "4"}  # the shared config was not mutated
