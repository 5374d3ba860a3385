# JupyterHub configuration for a workshop on a shared Ascend server (one NPU per participant).
#
# Start the hub from a shell where CANN's environment is loaded, so that every single-user server and its
# kernels inherit it:
#     source /usr/local/Ascend/cann/set_env.sh     # CANN >= 8.5; older: /usr/local/Ascend/ascend-toolkit/set_env.sh
#     jupyterhub -f workshop/jupyterhub_config.py
# The roster (one user name per line) and the NPU ids come from the environment variables below.
import os
from pathlib import Path

from npulab.course.workshop import assign_devices

c = get_config()  # noqa: F821  (provided by JupyterHub when it loads this file)

ROSTER = [u.strip() for u in Path(os.environ.get("WORKSHOP_ROSTER", "roster.txt")).read_text().splitlines() if u.strip()]
DEVICES = [int(d) for d in os.environ.get("WORKSHOP_NPUS", "0,1,2,3,4,5,6,7").split(",")]
SEATS = assign_devices(ROSTER, DEVICES, per_device=int(os.environ.get("WORKSHOP_PER_NPU", "1")))

c.Authenticator.allowed_users = set(ROSTER)
c.Spawner.default_url = "/lab"
c.Spawner.environment = {"GLOG_v": "4"}  # MindSpore: no C++ log lines in the notebooks


def assign_npu(spawner):
    """Give the participant's server (and so every kernel it starts) its own NPU as npu:0."""
    env = dict(spawner.environment)  # copy: the config dict is shared by all spawners
    env["ASCEND_RT_VISIBLE_DEVICES"] = str(SEATS[spawner.user.name])
    spawner.environment = env


c.Spawner.pre_spawn_hook = assign_npu
