"""The course on Kubernetes, checked offline with the real artifacts: the generated Zero to JupyterHub values are up to
date and valid for the chart's own values.schema.json (vendored in workshop/k8s/chart/ from the pinned release), and
the real KubeSpawner builds each profile's pod from the hub configuration the chart's own jupyterhub_config.py makes of
them (vendored from the same release), which validates against the Kubernetes 1.37 OpenAPI schema
(kubernetes-validate) and asks for exactly the device plugin's resources of its seat size.

What this cannot show: scheduling, the device plugins' own behaviour, the image build (workshop/README.md says how to
see those on a real cluster).
"""

from __future__ import annotations

import asyncio
import copy
import json
import re
from pathlib import Path

import pytest
import yaml

from npulab.core.paths import REPO_ROOT
from npulab.workshop import k8s, mode
from npulab.workshop.seat_sizes import (
    SIZES,
    resource_limits,
    single_server_size,
    size_resources,
    size_variables,
    slice_template,
)

CHART_DIR = REPO_ROOT / "workshop" / "k8s" / "chart"
PLUGINS = ("hami", "mindcluster")
K8S_VERSION = "1.37.0"
EXPECTED = {  # seat size → the device plugin's resources its pod must ask for (documented names, vnpu_templates.yaml)
    "hami": {"cpu": {}, "vnpu": {"huawei.com/Ascend910B3": "1", "huawei.com/Ascend910B3-memory": "16384"},
             "npu": {"huawei.com/Ascend910B3": "1"}, "node8": {"huawei.com/Ascend910B3": "8"}},
    "mindcluster": {"cpu": {}, "vnpu": {"huawei.com/Ascend910-8c": "1"}, "npu": {"huawei.com/Ascend910": "1"},
                    "node8": {"huawei.com/Ascend910": "8"}},
}


def _values(plugin: str) -> dict:
    return yaml.safe_load(k8s.values_path(plugin).read_text(encoding="utf-8"))


@pytest.mark.parametrize("plugin", PLUGINS)
def test_generated_values_are_up_to_date(plugin):
    assert k8s.values_path(plugin).read_text(encoding="utf-8") == k8s.render(plugin), (
        f"workshop/k8s/values-{plugin}.yaml is stale: python -m npulab workshop k8s-values --plugin {plugin}")


def _helm_merge(defaults, overrides):
    """Helm's coalescing of a chart's values.yaml with a user's file: maps merge, everything else is replaced."""
    out = copy.deepcopy(defaults)
    for key, value in overrides.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _helm_merge(out[key], value)
        else:
            out[key] = value
    return out


@pytest.mark.parametrize("plugin", PLUGINS)
def test_values_validate_against_the_chart_schema(plugin):
    import jsonschema

    schema = json.loads((CHART_DIR / "values.schema.json").read_text(encoding="utf-8"))
    defaults = yaml.safe_load((CHART_DIR / "values.yaml").read_text(encoding="utf-8"))
    jsonschema.Draft7Validator.check_schema(schema)
    jsonschema.validate(_helm_merge(defaults, _values(plugin)), schema)
    broken = _helm_merge(defaults, {"singleuser": {"profileList": "cpu"}})  # the schema does catch a wrong shape
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, schema)


def _helm_set(values: dict, key: str, value: str) -> None:
    """``helm --set key=value`` on a dict: dotted keys, ``name[i]`` list items, true/false/integers typed as Helm does."""
    typed = {"true": True, "false": False}.get(value, int(value) if value.isdigit() else value)
    parts = key.split(".")
    node = values
    for i, part in enumerate(parts):
        name, _, index = part.partition("[")
        last = i == len(parts) - 1
        if index:
            items = node.setdefault(name, [])
            position = int(index.rstrip("]"))
            items.extend([None] * (position + 1 - len(items)))
            if last:
                items[position] = typed
            else:
                items[position] = items[position] or {}
                node = items[position]
        elif last:
            node[name] = typed
        else:
            node = node.setdefault(name, {})


def test_readme_helm_command_sets_valid_chart_values():
    import jsonschema

    readme = (REPO_ROOT / "workshop" / "README.md").read_text(encoding="utf-8")
    block = readme.split("<!-- workshop:k8s-helm", 1)[1].split("```bash\n", 1)[1].split("```", 1)[0]
    assert f"--version {k8s.CHART_VERSION}" in block and "-f workshop/k8s/values-hami.yaml" in block
    pairs = re.findall(r"--set(?:-string)? (\S+?)=(\S+)", block)
    assert len(pairs) >= 8
    schema = json.loads((CHART_DIR / "values.schema.json").read_text(encoding="utf-8"))
    values = _helm_merge(yaml.safe_load((CHART_DIR / "values.yaml").read_text(encoding="utf-8")), _values("hami"))
    for key, value in pairs:
        _helm_set(values, key, value)
    jsonschema.validate(values, schema)
    assert values["proxy"]["https"]["hosts"] == ["<域名>"] and values["proxy"]["https"]["type"] == "secret"


def test_vendored_chart_files_name_their_release():
    readme = (CHART_DIR / "README.md").read_text(encoding="utf-8")
    assert f"jupyterhub/zero-to-jupyterhub-k8s` tag `{k8s.CHART_VERSION}`" in readme


def test_dockerfile_base_image_is_the_course_stack():
    dockerfile = (REPO_ROOT / "workshop" / "Dockerfile").read_text(encoding="utf-8")
    assert f"ARG CANN_IMAGE={k8s.base_image()}\n" in dockerfile
    from npulab.env.stack_check import stacks

    assert stacks()["course"]["cann"] in k8s.base_image()


def test_seat_sizes_are_the_single_server_ones():
    assert single_server_size(1) is SIZES["npu"] and single_server_size(4) is SIZES["vnpu"]
    assert mode.current_seat(size_variables(SIZES["node8"], "bob")).devices == tuple(range(8))
    assert mode.current_seat(size_variables(SIZES["cpu"], "bob")).devices == ()


def test_a_slice_on_a_chip_without_templates_is_refused():
    assert slice_template("mindcluster", "910B") is None
    with pytest.raises(ValueError, match="vNPU"):
        resource_limits(SIZES["vnpu"], "mindcluster", "910B")
    slugs = [p["slug"] for p in k8s.chart_values("mindcluster", "910B")["singleuser"]["profileList"]]
    assert slugs == ["cpu", "npu", "node8"]  # whole cards only


def test_readme_template_table_matches_the_data():
    from npulab.workshop.seat_sizes import templates_data

    readme = (REPO_ROOT / "workshop" / "README.md").read_text(encoding="utf-8")
    section = readme.split("## 一台服务器还是集群", 1)[1].split("### 集群上的步骤", 1)[0]
    for plugin, data in templates_data()["plugins"].items():
        for chip, entry in data["chips"].items():
            assert entry["whole"] in section, (plugin, chip)
            for name in entry.get("templates") or {}:
                short = name.replace("vir0", "").replace("vir", "")  # "vir02/04/08/16" lists several on one line
                assert name in section or f"/{short}" in section, (plugin, chip, name)
    assert f"HAMi 910B3：{slice_template('hami', '910B3')}" in section
    assert f"MindCluster 910：{slice_template('mindcluster', '910')}" in section


def test_roster_and_course_copy_in_values():
    values = k8s.chart_values("hami", roster=["alice", "bob"])
    assert values["hub"]["config"]["Authenticator"]["allowed_users"] == ["alice", "bob"]
    hook = values["singleuser"]["lifecycleHooks"]["postStart"]["exec"]["command"]
    assert hook[1:3] == ["-m", "npulab.workshop.course_copy"]


# --- the real KubeSpawner, offline --------------------------------------------------------------------------------

KUBECONFIG = """apiVersion: v1
kind: Config
clusters: [{name: offline, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: offline, user: {token: unused}}]
contexts: [{name: offline, context: {cluster: offline, user: offline, namespace: npulab}}]
current-context: offline
"""


def _chart_hub_config(plugin: str, mp: pytest.MonkeyPatch):
    """The hub's configuration as the chart makes it: the chart's own files/hub/jupyterhub_config.py (vendored from tag
    4.4.0) run on its default values merged with ours. Only what a cluster would provide is stood in for: the mounted
    values and resource names (z2jh's readers), two secrets, the services' ports, and tornado's curl client (pycurl)."""
    import importlib.util

    from tornado.httpclient import AsyncHTTPClient
    from traitlets.config import Config

    defaults = yaml.safe_load((CHART_DIR / "values.yaml").read_text(encoding="utf-8"))
    merged = _helm_merge(defaults, _values(plugin))
    merged.update(Chart={"Name": k8s.CHART, "Version": k8s.CHART_VERSION}, Release={"Name": "npulab"})
    spec = importlib.util.spec_from_file_location("z2jh", CHART_DIR / "hub" / "z2jh.py")
    z2jh = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(z2jh)
    secrets = {"hub.config.JupyterHub.cookie_secret": "00" * 32, "hub.config.CryptKeeper.keys": "aa" * 32}
    mp.setattr(z2jh, "_load_config", lambda: merged)
    mp.setattr(z2jh, "_get_config_value", lambda name: name)  # resource names without a fullnameOverride
    mp.setattr(z2jh, "get_secret_value", lambda key, default=None: secrets.get(key, default))
    mp.setitem(__import__("sys").modules, "z2jh", z2jh)
    for key, value in {"PROXY_API_SERVICE_PORT": "8001", "HUB_SERVICE_PORT": "8081", "POD_NAMESPACE": "npulab"}.items():
        mp.setenv(key, value)
    mp.setattr(AsyncHTTPClient, "configure", classmethod(lambda cls, impl, **kwargs: None))
    config = Config()
    path = CHART_DIR / "hub" / "jupyterhub_config.py"
    exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"),
         {"get_config": lambda: config, "__file__": str(path), "__name__": "jupyterhub_config"})
    return config


@pytest.fixture(scope="module")
def pods(tmp_path_factory):
    """plugin → profile slug → the pod manifest KubeSpawner 7.1.0 builds for participant alice (as JSON), from the hub
    configuration the chart's own code makes of the values file."""
    kubeconfig = tmp_path_factory.mktemp("kube") / "config"
    kubeconfig.write_text(KUBECONFIG, encoding="utf-8")
    mp = pytest.MonkeyPatch()
    mp.setenv("KUBECONFIG", str(kubeconfig))  # a client is created, never used: no API call is made
    from kubernetes_asyncio.config import kube_config

    mp.setattr(kube_config, "KUBE_CONFIG_DEFAULT_LOCATION", str(kubeconfig))  # read once, when first imported

    async def build() -> dict:
        from unittest.mock import Mock

        from kubernetes_asyncio.client import ApiClient
        from kubespawner import KubeSpawner

        out = {}
        for plugin in PLUGINS:
            config = _chart_hub_config(plugin, mp)
            out[plugin] = {}
            for entry in config.KubeSpawner.profile_list:
                user = Mock()
                user.name = user.escaped_name = "alice"
                user.id, user.url = 7, "/user/alice/"
                spawner = KubeSpawner(config=config, user=user, _mock=True, api_token="unused", oauth_client_id="x")
                spawner.user_options = {"profile": entry["slug"]}
                await spawner.load_user_options()  # KubeSpawner's own profile handling
                pod = await spawner.get_pod_manifest()
                out[plugin][entry["slug"]] = ApiClient().sanitize_for_serialization(pod)
        return out

    try:
        yield asyncio.run(build())
    finally:
        mp.undo()


@pytest.mark.parametrize("plugin", PLUGINS)
def test_each_profile_pod_validates_and_asks_for_its_seat(pods, plugin):
    import kubernetes_validate

    assert set(pods[plugin]) == set(EXPECTED[plugin])
    for slug, pod in pods[plugin].items():
        pod = {"apiVersion": "v1", "kind": "Pod", **pod}
        kubernetes_validate.validate(pod, K8S_VERSION, strict=True)
        container = pod["spec"]["containers"][0]
        limits = container["resources"]["limits"]
        ascend = {k: v for k, v in limits.items() if k.startswith("huawei.com/")}
        assert ascend == EXPECTED[plugin][slug], slug
        env = {e["name"]: e["value"] for e in container["env"]}
        seat = mode.current_seat(env)
        assert seat.user == "alice" and seat.devices == SIZES[slug].devices and env["GLOG_v"] == "4"
        assert env.get("ASCEND_RT_VISIBLE_DEVICES") == (",".join(map(str, seat.devices)) or None)
        assert (env.get("ASCEND_VISIBLE_DEVICES") == "void") == (slug == "cpu")  # no NPU: Ascend Docker Runtime mounts none
        assert "--KernelManager.transport=ipc" in container["args"] and container["args"][0] == "jupyterhub-singleuser"
        assert "command" not in container  # the image's entry point stays: it loads CANN's set_env.sh first
        assert container["lifecycle"]["postStart"]["exec"]["command"][-2:] == [k8s.COURSE_IN_IMAGE, k8s.HOME]
        assert {m["mountPath"] for m in container["volumeMounts"]} >= {k8s.HOME}
        assert re.fullmatch(r"\d+G", size_resources(SIZES[slug])["mem_limit"])


def test_kubernetes_validate_catches_a_broken_pod(pods):
    import kubernetes_validate

    pod = {"apiVersion": "v1", "kind": "Pod", **copy.deepcopy(pods["hami"]["npu"])}
    pod["spec"]["containers"][0]["resources"]["limits"] = "one NPU"
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(pod, K8S_VERSION, strict=True)


def test_readme_test_pod_is_a_valid_pod():
    import kubernetes_validate

    readme = (REPO_ROOT / "workshop" / "README.md").read_text(encoding="utf-8")
    block = readme.split("<!-- workshop:k8s-test-pod", 1)[1]
    manifest = yaml.safe_load(block.split("<<'EOF'\n", 1)[1].split("\nEOF\n", 1)[0])
    kubernetes_validate.validate(manifest, K8S_VERSION, strict=True)
    assert manifest["spec"]["containers"][0]["resources"]["limits"] == dict(EXPECTED["hami"]["npu"])


def test_values_file_paths_exist():
    assert Path(k8s.values_path("hami")).is_file() and Path(k8s.values_path("mindcluster")).is_file()


def test_course_copy_runs_as_the_image_build_runs_it(tmp_path):
    """workshop/Dockerfile runs course_copy.py as a plain script (no npulab on the path) on the checkout: the course
    and the Chinese JupyterLab settings come out, the solutions and the instructor guide do not."""
    import subprocess
    import sys

    script = REPO_ROOT / "npulab" / "workshop" / "course_copy.py"
    out = tmp_path / "out"
    run = subprocess.run([sys.executable, "-I", str(script), str(REPO_ROOT), str(out)], capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stderr
    course = out / "course"
    assert (course / "chapters").is_dir() and (course / "notebooks").is_dir()
    assert not list(course.rglob("solutions")) and not (course / "notebooks" / "instructor_guide.ipynb").exists()
    assert (out / ".jupyter" / "lab" / "user-settings" / "@jupyterlab" / "translation-extension").is_dir()
    again = subprocess.run([sys.executable, "-I", str(script), str(REPO_ROOT), str(out)], capture_output=True, text=True,
                           timeout=120)
    assert again.returncode == 0 and "未改动" in again.stdout  # a participant's later edits are kept
    usage = subprocess.run([sys.executable, "-I", str(script)], capture_output=True, text=True, timeout=60)
    assert usage.returncode == 2 and "用法" in usage.stderr
