"""Workshop support: seats on NPUs, CANN's environment for every participant, container options, the agenda.
On a shared Ascend server, JupyterHub starts one single-user server per participant (``workshop/``).

- ``SeatPool`` gives each participant an NPU (or a share of one) from a pool, in roster order or first come,
  and refuses a participant beyond capacity with a Chinese message; ``assign_devices`` is its whole-roster form.
- ``read_set_env`` runs CANN's ``set_env.sh`` once, at hub start, in a clean environment (``env -i``), and
  returns the variables it sets.
  JupyterHub passes a spawned server only the hub variables named in ``Spawner.env_keep`` (for the local
  spawners of JupyterHub 6.1: PATH, PYTHONPATH, LD_LIBRARY_PATH, LANG, LC_ALL, CONDA_DEFAULT_ENV, CONDA_ROOT,
  VIRTUAL_ENV, JUPYTERHUB_SINGLEUSER_APP; for the base ``Spawner``, such as DockerSpawner, only the last), so every
  ``ASCEND_*`` variable is dropped unless it is listed in ``Spawner.environment``: ``seat_environment``
  builds that list.
- ``ASCEND_RT_VISIBLE_DEVICES`` is advice, not isolation: a participant's own process can unset it and
  open another NPU. ``container_options`` gives a container only its ``/dev/davinciN`` plus the management
  devices and driver mounts (DockerSpawner), which *is* isolation.
- ``agenda`` plans each notebook's ``course.minutes`` in ``course.requires`` order, so the timetable cannot drift
  from the lessons.

One concern a module: ``seats`` (names normalised as JupyterHub does, even spreading, one locked state file),
``settings`` (the ``WORKSHOP_*`` variables), ``seat_commands`` (``workshop seats list|free|move|who|reset``),
``seat_service`` (the seat map as a hub service for the instructor), ``npu_owners`` (NPU process → participant),
``mode`` (what a seat allows an NPU cell), ``cann_env``, ``containers``, ``course_copy``, ``agenda`` (the planner),
``public_toc`` (and the public site's leak check), ``preflight`` with ``hub_checks`` (the evening before),
``seat_sizes`` (CPU, vNPU, one NPU, eight NPUs: the same on one server and on Kubernetes), ``server_args`` (the
servers' options, both engines), ``k8s`` (the Zero to JupyterHub values) with ``k8s_preflight`` (seats per node) and
``cli`` (``python -m npulab workshop …``); for the hub's accounts mode ``accounts`` (one Unix account per
participant), ``access`` (the venv reachable by them), ``device_access`` and ``posix_acl`` (who may open which NPU),
``hub_secrets`` (root-only state and passwords), ``proxy`` (finding configurable-http-proxy), ``spawner`` (servers
run as the accounts; imports jupyterhub, so it is not re-exported here) and ``accounts_cli``
(``python -m npulab workshop accounts …``). The names below
are re-exported for the hub configuration (``workshop/jupyterhub_config.py``) and the lessons.
"""

from npulab.workshop.agenda import (
    TIMES_FILE,
    Session,
    agenda,
    chapter_of,
    load_times,
    machine_description,
    times_from_cache,
    timetable,
    workshop_order,
)
from npulab.workshop.cann_env import (
    CANN_VARIABLES,
    VISIBLE_ENV,
    find_set_env,
    inherited_cann_environment,
    read_set_env,
    seat_environment,
)
from npulab.workshop.containers import NPU_CONTROL_DEVICES, NPU_DRIVER_MOUNTS, container_options
from npulab.workshop.course_copy import COURSE_PARTS, WITHHELD, copy_course
from npulab.workshop.public_toc import SOLUTIONS_PREFIX, public_toc
from npulab.workshop.seats import (
    RosterError,
    SeatEntry,
    SeatError,
    SeatPool,
    assign_devices,
    normalize_username,
    read_roster,
)
from npulab.workshop.settings import WorkshopSettings

__all__ = [
    "CANN_VARIABLES", "COURSE_PARTS", "NPU_CONTROL_DEVICES", "NPU_DRIVER_MOUNTS", "SOLUTIONS_PREFIX", "TIMES_FILE",
    "VISIBLE_ENV", "WITHHELD", "RosterError", "SeatEntry", "SeatError", "SeatPool", "WorkshopSettings", "Session", "agenda", "assign_devices",
    "chapter_of", "container_options", "copy_course", "find_set_env", "inherited_cann_environment", "load_times",
    "machine_description", "normalize_username", "public_toc", "read_roster", "read_set_env", "seat_environment", "timetable", "times_from_cache",
    "workshop_order",
]
