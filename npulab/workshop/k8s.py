"""The workshop on Kubernetes: a values file for the Zero to JupyterHub chart, made from the same seat sizes, seat
variables, server options and course copy as the hub on one server.

``chart_values(plugin, chip)`` is the whole values file: the course's single-user image, the course copied into each
participant's volume without its solutions (``course_copy.py`` as a ``postStart`` hook), the Chinese JupyterLab
settings and login pages, the ``NPULAB_*`` variables of each seat size (``seat_sizes``), kernels over ipc and idle
culling (``server_args``), per-user storage, and one profile per seat size asking the device plugin for its resource
(``extra_resource_limits``). ``plugin`` (``hami`` or ``mindcluster``) is the one setting that changes with the device
plugin; ``chip`` picks its resource names and vNPU template. ``workshop/k8s/values-<plugin>.yaml`` are generated
from here (``python -m npulab workshop k8s-values``); tests/workshop/test_k8s_values.py checks that they are up to date and
valid for the chart, and builds every profile's pod with the real KubeSpawner.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from npulab.core.i18n import t
from npulab.core.paths import REPO_ROOT
from npulab.workshop.seat_sizes import (
    DEFAULT_CHIPS,
    SEAT_SIZES,
    SeatSize,
    resource_limits,
    size_resources,
    size_variables,
    slice_template,
)
from npulab.workshop.server_args import DEFAULT_IDLE_MINUTES, server_args

CHART = "jupyterhub"
CHART_REPO = "https://hub.jupyter.org/helm-chart/"
CHART_VERSION = "4.4.0"  # the newest release tag of jupyterhub/zero-to-jupyterhub-k8s (2026-06-10); JupyterHub 5.5.0
K8S_DIR = REPO_ROOT / "workshop" / "k8s"
IMAGE_NAME = "npulab-workshop"  # docker build -f workshop/Dockerfile -t <registry>/npulab-workshop:<tag> .
CANN_IMAGE = "quay.io/ascend/cann:{cann}-910b-ubuntu22.04-py3.11"  # Ascend/cann-container-image tag pattern
HOME = "/home/jovyan"  # the chart's singleuser.storage.homeMountPath; the image's user (uid 1000)
COURSE_IN_IMAGE = "/opt/npulab/course"  # the course without solutions (workshop/Dockerfile)
VENV_PYTHON = "/opt/npulab/.venv/bin/python"
TEMPLATES_IN_HUB = "/usr/local/etc/jupyterhub/npulab-templates"
ADMIN = "instructor"
STORAGE = "10Gi"  # a participant's copy of the course is under 1 MB; the chart's default capacity leaves room
EXTRA_ENV = {"GLOG_v": "4"}  # MindSpore: no C++ log lines in the notebooks (as on one server)
# a pod given no NPU by a device plugin says so to Ascend Docker Runtime, which both plugins run under (MindCluster 7.3.0
# "Usage on the Containerd Integrated with Kubernetes", dlruntime_ug_007: ASCEND_VISIBLE_DEVICES=void)
NO_NPU_ENV = {"ASCEND_VISIBLE_DEVICES": "void"}


def base_image() -> str:
    """The CANN base image of workshop/Dockerfile: the stack's ``image`` when stacks.yaml has one, else the tag the
    cann-container-image pattern gives for the course stack's CANN version."""
    from npulab.env.stack_check import stacks
    from npulab.workshop.container_recipe import IMAGE_KEY

    course = stacks()["course"]
    return course.get(IMAGE_KEY) or CANN_IMAGE.format(cann=course["cann"])


def profile(size: SeatSize, plugin: str, chip: str) -> dict | None:
    """One ``profileList`` entry (KubeSpawner's ``profile_list`` format); None for a slice on a chip without templates.
    Chinese whatever npulab's language: participants read it on the hub's spawn page, and the values files are
    generated once for everyone (tests/workshop/test_k8s_values.py checks them)."""
    if size.slice and slice_template(plugin, chip) is None:
        return None
    limits = resource_limits(size, plugin, chip)
    asked = ("申请 " + "、".join(f"{k}: {v}" for k, v in limits.items())) if limits else "不申请 NPU"
    template = f"（模板 {slice_template(plugin, chip)}）" if size.slice else ""
    return {
        "display_name": size.title,
        "slug": size.key,
        "description": f"{size.purpose}。{asked}{template}",
        **({"default": True} if size.key == "vnpu" else {}),
        "kubespawner_override": {
            **size_resources(size),
            "extra_resource_limits": limits,
            "environment": {**size_variables(size, "{username}"), **({} if limits else NO_NPU_ENV)},
        },
    }


def chart_values(plugin: str = "hami", chip: str | None = None, image: str = IMAGE_NAME, tag: str = "latest",
                 idle_minutes: float = DEFAULT_IDLE_MINUTES, roster: list[str] | None = None) -> dict:
    """The Zero to JupyterHub values for this course on ``plugin``'s resources of ``chip``."""
    chip = chip or DEFAULT_CHIPS[plugin]
    idle = int(idle_minutes * 60)
    profiles = [p for p in (profile(s, plugin, chip) for s in SEAT_SIZES) if p is not None]
    if not any(p.get("default") for p in profiles):
        next(p for p in profiles if p["slug"] == "npu")["default"] = True
    pages = {name: (REPO_ROOT / "workshop" / "templates" / name).read_text(encoding="utf-8")
             for name in ("login.html", "error.html")}
    authenticator = {"admin_users": [ADMIN]}
    if roster:
        authenticator["allowed_users"] = list(roster)
    return {
        "hub": {
            "config": {
                "JupyterHub": {"authenticator_class": "shared-password", "template_paths": [TEMPLATES_IN_HUB]},
                "Authenticator": authenticator,
                "KubeSpawner": {"args": server_args(idle)},
            },
            "extraFiles": {
                name.replace(".html", "-page"): {"mountPath": f"{TEMPLATES_IN_HUB}/{name}", "stringData": text}
                for name, text in pages.items()
            },
        },
        "singleuser": {
            "image": {"name": image, "tag": tag},
            "cmd": "jupyterhub-singleuser",
            "defaultUrl": "/lab",
            "extraEnv": dict(EXTRA_ENV),
            "lifecycleHooks": {"postStart": {"exec": {"command": [
                VENV_PYTHON, "-m", "npulab.workshop.course_copy", COURSE_IN_IMAGE, HOME]}}},
            "storage": {"type": "dynamic", "capacity": STORAGE, "homeMountPath": HOME},
            "startTimeout": 300,
            "profileList": profiles,
        },
        "cull": {"enabled": True, "timeout": idle, "every": 600},
    }


HEADER = """# Zero to JupyterHub values for the course on Kubernetes, device plugin: {plugin} (chip {chip}).
# GENERATED by `python -m npulab workshop k8s-values --plugin {plugin} --chip {chip}` from npulab/workshop/
# (k8s.py, seat_sizes.py, server_args.py, npulab/data/vnpu_templates.yaml); never edit by hand.
# Chart: {chart} {version} from {repo}
#   helm upgrade --install npulab {chart} --repo {repo} --version {version} -n npulab --create-namespace \\
#     -f workshop/k8s/values-{plugin}.yaml --set singleuser.image.name=<registry>/npulab-workshop
# Image: docker build -f workshop/Dockerfile --build-arg CANN_IMAGE={base} -t <registry>/npulab-workshop .
# Passwords are not here: add --set-string hub.config.SharedPasswordAuthenticator.user_password=… (workshop/README.md).
"""


def render(plugin: str = "hami", chip: str | None = None, **kwargs) -> str:
    """The values file as text, with its header."""
    chip = chip or DEFAULT_CHIPS[plugin]
    head = HEADER.format(plugin=plugin, chip=chip, chart=CHART, version=CHART_VERSION, repo=CHART_REPO, base=base_image())
    return head + yaml.safe_dump(chart_values(plugin, chip, **kwargs), allow_unicode=True, sort_keys=False, width=120)


def values_path(plugin: str) -> Path:
    return K8S_DIR / f"values-{plugin}.yaml"


def run(args) -> int:
    """``python -m npulab workshop k8s-values``: write (or print) the values file."""
    from npulab.core.cli import UsageError
    from npulab.workshop.seats import RosterError, read_roster

    roster = None
    if args.roster:
        if not Path(args.roster).is_file():
            raise UsageError(t("workshop.tools.k8s.no_roster", path=args.roster))
        roster = read_roster(args.roster)
        if len(set(roster)) != len(roster):
            raise UsageError(str(RosterError(t("workshop.tools.seats.duplicates"))))
    try:
        text = render(args.plugin, args.chip, roster=roster)
    except ValueError as err:
        raise UsageError(str(err)) from None
    if args.output == "-":
        print(text, end="")
        return 0
    out = Path(args.output or values_path(args.plugin))
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    print(t("workshop.tools.k8s.written", output=out, plugin=args.plugin, chip=args.chip or DEFAULT_CHIPS[args.plugin],
            chart=CHART, version=CHART_VERSION))
    return 0


def build_parser(parser) -> None:
    parser.add_argument("--plugin", choices=sorted(DEFAULT_CHIPS), default="hami",
                        help="集群用的设备插件：hami（HAMi ascend-device-plugin）或 mindcluster（MindCluster Ascend Device Plugin）")
    parser.add_argument("--chip", help="芯片（资源名与 vNPU 模板按它取；默认 hami 用 910B3，mindcluster 用 910）")
    parser.add_argument("--roster", metavar="FILE", help="名单文件：只让名单上的人登录（按 JupyterHub 的规则转为小写）")
    parser.add_argument("--output", metavar="FILE", help="输出文件（默认 workshop/k8s/values-<插件>.yaml；- 表示打印）")
    parser.set_defaults(run=run)
