"""``python -m npulab workshop preflight --k8s``: how many participants of each seat size the cluster's nodes can hold.

It reads what the nodes actually offer (``status.allocatable``, and for HAMi the chips each node registered in its
``hami.io/node-register-<chip>`` annotation and the templates of HAMi's ConfigMap ``hami-scheduler-device``) through
the Kubernetes API with the official ``kubernetes`` client, or from saved ``kubectl get nodes -o json`` /
``kubectl get configmap … -o json`` output, and counts, per node and seat size, the seats the profiles of
``workshop/k8s/values-<plugin>.yaml`` (``seat_sizes.resource_limits`` / ``k8s.size_resources``) fit in. A vNPU seat
where the node offers no vNPU (no template for the chip, or none cut) falls back to whole cards, and says so.
Exit code 0 when the roster fits, 1 when it does not, 2 for bad arguments.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from npulab.core.display import Table
from npulab.core.i18n import t
from npulab.core.paths import parse_yaml
from npulab.workshop.seat_sizes import (
    DEFAULT_CHIPS,
    SEAT_SIZES,
    SIZES,
    SeatSize,
    chip_entry,
    resource_limits,
    size_resources,
    slice_template,
)

HAMI_CONFIGMAP = ("kube-system", "hami-scheduler-device")
HAMI_REGISTER = "hami.io/node-register-"
_UNITS = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "m": 1e-3}


def quantity(text) -> float:
    """A Kubernetes quantity as a number ("63500m" → 63.5, "16Gi" → 17179869184, "8" → 8)."""
    match = re.fullmatch(r"([0-9.]+)([A-Za-z]*)", str(text).strip())
    if not match or (match.group(2) and match.group(2) not in _UNITS):
        raise ValueError(t("workshop.checks.k8s.quantity", text=repr(text)))
    return float(match.group(1)) * _UNITS.get(match.group(2), 1)


@dataclass
class NodeSeats:
    """One node: what it offers and how many seats of each size fit."""

    name: str
    offer: str
    seats: dict[str, int]
    notes: list[str] = field(default_factory=list)


@dataclass
class ClusterReport:
    nodes: list[NodeSeats]
    size: SeatSize
    participants: int
    source: str
    warnings: list[str] = field(default_factory=list)

    @property
    def capacity(self) -> int:
        if self.size.key == "node8":
            return sum(n.seats["node8"] for n in self.nodes)
        return sum(n.seats[self.size.key] for n in self.nodes)

    @property
    def fits(self) -> bool:
        return self.capacity >= self.participants

    def table(self) -> Table:
        sep = t("workshop.checks.clause_sep")
        rows = [(n.name, n.offer, *(n.seats[s.key] for s in SEAT_SIZES), sep.join(n.notes) or "—") for n in self.nodes]
        rows.append((t("workshop.checks.k8s.total"), "—", *(sum(n.seats[s.key] for n in self.nodes) for s in SEAT_SIZES),
                     "—"))
        return Table((t("workshop.checks.k8s.col.node"), t("workshop.checks.k8s.col.offer"),
                      *(t("workshop.checks.k8s.col.seats", size=s.key) for s in SEAT_SIZES),
                      t("workshop.checks.k8s.col.notes")), rows, t("workshop.checks.k8s.title", source=self.source))

    def render(self) -> str:
        lines = [self.table().text(), ""]
        lines += [f"! {w}" for w in self.warnings]
        verdict = (t("workshop.checks.k8s.fits") if self.fits
                   else t("workshop.checks.k8s.short", missing=self.participants - self.capacity))
        lines.append(t("workshop.checks.k8s.verdict", participants=self.participants, size=self.size.key,
                       title=self.size.label(), capacity=self.capacity, verdict=verdict))
        return "\n".join(lines)

    def to_dict(self) -> dict:
        return {"size": self.size.key, "participants": self.participants, "capacity": self.capacity,
                "fits": self.fits, "source": self.source, "warnings": self.warnings,
                "nodes": [{"name": n.name, "offer": n.offer, "seats": n.seats, "notes": n.notes} for n in self.nodes]}


def hami_templates(configmap: dict | None, chip: str) -> dict[str, dict] | None:
    """``chip``'s templates from HAMi's ConfigMap (``{name: {memory, aiCore}}``); None when there is no ConfigMap."""
    if not configmap:
        return None
    config = parse_yaml((configmap.get("data") or {}).get("device-config.yaml") or "{}") or {}
    common = chip_entry("hami", chip)["whole"].split("/", 1)[1]
    for entry in (config.get("vnpus") or {}).get("configs") or []:
        if entry.get("commonWord") == common:
            return {t["name"]: t for t in entry.get("templates") or []}
    return {}


def _host_seats(node: dict, size: SeatSize) -> int:
    """Seats of ``size`` the node's CPU and memory hold (each profile's guarantees)."""
    alloc = node.get("status", {}).get("allocatable", {})
    need = size_resources(size)
    cpu = quantity(alloc.get("cpu", 0)) / need["cpu_guarantee"]
    mem = quantity(alloc.get("memory", 0)) / (int(need["mem_guarantee"].rstrip("G")) * 2**30)  # KubeSpawner: G = GiB
    return int(min(cpu, mem) + 1e-9)


def _device_seats(alloc: dict, limits: dict[str, str]) -> int:
    return min(int(quantity(alloc.get(r, 0)) // quantity(n)) for r, n in limits.items())


def node_seats(node: dict, plugin: str, chip: str, hami_config: dict | None = None) -> NodeSeats:
    """How many seats of each size fit on ``node`` under ``plugin``'s resource names for ``chip``."""
    name = node.get("metadata", {}).get("name", "?")
    alloc = node.get("status", {}).get("allocatable", {})
    whole = chip_entry(plugin, chip)["whole"]
    cards = int(quantity(alloc.get(whole, 0)))
    notes: list[str] = []
    seats = {"cpu": _host_seats(node, SIZES["cpu"])}
    if plugin == "hami":
        hami_seats, offer = _hami(node, chip, cards, hami_config, notes)
        cards_whole = hami_seats["cards"]
        seats["npu"] = cards_whole
        seats["node8"] = cards_whole // 8
        seats["vnpu"] = hami_seats["vnpu"]
    else:
        cards_whole = cards
        seats["npu"], seats["node8"] = cards, cards // 8
        template = slice_template(plugin, chip)
        vnpus = _device_seats(alloc, resource_limits(SIZES["vnpu"], plugin, chip)) if template else 0
        offer = f"{whole}: {cards}" + (t("workshop.checks.k8s.offer_vnpu", template=template, count=vnpus) if template else "")
        fallback = t("workshop.checks.k8s.fallback")
        if not template:
            notes.append(t("workshop.checks.k8s.no_template", chip=chip, fallback=fallback))
        elif vnpus == 0:
            notes.append(t("workshop.checks.k8s.not_cut", template=template, fallback=fallback))
        if vnpus and cards:
            notes.append(t("workshop.checks.k8s.mixed", count=vnpus, template=template, cards=cards))
        seats["vnpu"] = vnpus + cards  # cut vNPUs and whole cards are separate resources under MindCluster
    for key in ("vnpu", "npu", "node8"):
        seats[key] = min(seats[key], _host_seats(node, SIZES[key]))
    if cards_whole == 0:
        notes.append(t("workshop.checks.k8s.no_cards", whole=whole, name=name))
    return NodeSeats(name, offer, {s.key: seats[s.key] for s in SEAT_SIZES}, notes)


def _hami(node: dict, chip: str, allocatable: int, hami_config: dict | None, notes: list[str]):
    """HAMi: whole cards and vNPU seats from the chips the node registered and the ConfigMap's templates."""
    entry = chip_entry("hami", chip)
    common = entry["whole"].split("/", 1)[1]
    raw = (node.get("metadata", {}).get("annotations") or {}).get(HAMI_REGISTER + common)
    chips = json.loads(raw) if raw else []
    healthy = [c for c in chips if c.get("health", True)]
    if len(healthy) < len(chips):
        notes.append(t("workshop.checks.k8s.unhealthy", count=len(chips) - len(healthy)))
    per_chip = chips[0].get("count", 1) if chips else 1
    expected = len(healthy) * per_chip
    if chips and allocatable < expected:
        notes.append(t("workshop.checks.k8s.short_alloc", whole=entry["whole"], allocatable=allocatable,
                       healthy=len(healthy), per_chip=per_chip, expected=expected))
    templates = hami_templates(hami_config, chip)
    slice_name = slice_template("hami", chip)
    vnpu = 0
    fallback = t("workshop.checks.k8s.fallback")
    if templates is None:
        notes.append(t("workshop.checks.k8s.no_configmap", fallback=fallback))
    elif slice_name not in templates:
        notes.append(t("workshop.checks.k8s.no_slice", common=common, slice=slice_name, fallback=fallback))
    else:
        spec = templates[slice_name]
        for c in healthy:
            by_memory = c.get("devmem", 0) // spec["memory"]
            by_core = c.get("devcore", 0) // spec["aiCore"] if spec.get("aiCore") and c.get("devcore") else by_memory
            vnpu += int(min(c.get("count", 1), by_memory, by_core))
        vnpu = min(vnpu, allocatable)
    cards = min(len(healthy), allocatable) if chips else 0
    if not chips and allocatable:
        notes.append(t("workshop.checks.k8s.unregistered", annotation=HAMI_REGISTER + common))
    offer = (t("workshop.checks.k8s.offer_hami", healthy=len(healthy), chips=len(chips), common=common,
               whole=entry["whole"], allocatable=allocatable) +
             (t("workshop.checks.k8s.offer_slices", slice=slice_name, count=vnpu) if vnpu else ""))
    return {"cards": cards, "vnpu": vnpu or cards}, offer


def cluster_report(nodes: list[dict], plugin: str, chip: str, size: SeatSize, participants: int, source: str,
                   hami_config: dict | None = None) -> ClusterReport:
    """Every node's seats, the class's total and warnings for profiles no node can hold."""
    rows = [node_seats(n, plugin, chip, hami_config) for n in nodes]
    report = ClusterReport(rows, size, participants, source)
    for s in SEAT_SIZES:
        if not any(r.seats[s.key] for r in rows):
            report.warnings.append(t("workshop.checks.k8s.pending", size=s.key, title=s.label()))
    return report


def read_cluster(nodes_file: str | None, hami_file: str | None, plugin: str) -> tuple[list[dict], dict | None, str]:
    """Nodes (and HAMi's ConfigMap) from saved kubectl JSON or, without files, from the API (kubeconfig or in-cluster)."""
    if nodes_file:
        nodes = json.loads(Path(nodes_file).read_text(encoding="utf-8")).get("items", [])
        hami = json.loads(Path(hami_file).read_text(encoding="utf-8")) if hami_file else None
        also = t("workshop.checks.k8s.and_file", path=hami_file) if hami_file else ""
        return nodes, hami, t("workshop.checks.k8s.files", nodes=nodes_file, hami=also)
    from kubernetes import client, config

    try:
        config.load_kube_config()
        where = "kubeconfig"
    except config.ConfigException:
        config.load_incluster_config()
        where = t("workshop.checks.k8s.in_cluster")
    api = client.CoreV1Api()
    nodes = json.loads(api.list_node(_preload_content=False).data).get("items", [])
    hami = None
    if plugin == "hami":
        try:
            hami = json.loads(api.read_namespaced_config_map(HAMI_CONFIGMAP[1], HAMI_CONFIGMAP[0],
                                                             _preload_content=False).data)
        except client.ApiException:
            hami = None
    return nodes, hami, t("workshop.checks.k8s.api", where=where)


def run(args) -> int:
    """The ``--k8s`` branch of ``workshop preflight``."""
    from npulab.core.cli import UsageError
    from npulab.workshop.seats import read_roster

    for path in (args.nodes_file, args.hami_config_file):
        if path and not Path(path).is_file():
            raise UsageError(t("workshop.checks.k8s.file_missing", path=path))
    chip = args.chip or DEFAULT_CHIPS[args.plugin]
    try:
        chip_entry(args.plugin, chip)
    except ValueError as err:
        raise UsageError(str(err)) from None
    if args.roster:
        if not Path(args.roster).is_file():
            raise UsageError(t("workshop.checks.roster_missing", path=args.roster))
        participants = len(read_roster(args.roster))
    else:
        participants = args.seats if args.seats is not None else 0
    try:
        nodes, hami, source = read_cluster(args.nodes_file, args.hami_config_file, args.plugin)
    except (ValueError, json.JSONDecodeError) as err:
        raise UsageError(t("workshop.checks.k8s.unreadable", error=err)) from None
    except Exception as err:  # no kubeconfig, no cluster: said in words, not a traceback
        print(t("workshop.checks.k8s.no_api", error=f"{type(err).__name__}: {str(err)[:200]}"))
        return 1
    report = cluster_report(nodes, args.plugin, chip, SIZES[args.size], participants, source, hami)
    print(json.dumps(report.to_dict(), ensure_ascii=False, indent=2) if args.json else report.render())
    return 0 if report.fits and nodes else 1


def build_parser(parser) -> None:
    """The ``--k8s`` options of ``workshop preflight``."""
    parser.add_argument("--k8s", action="store_true", help="检查 Kubernetes 集群：每个节点能放下多少个各种座位（见 workshop/k8s/）")
    parser.add_argument("--plugin", choices=("hami", "mindcluster"), default="hami", help="集群的设备插件（与 k8s-values 相同）")
    parser.add_argument("--chip", help="芯片（默认 hami 用 910B3，mindcluster 用 910）")
    parser.add_argument("--size", choices=[s.key for s in SEAT_SIZES], default="vnpu", help="全班的座位规格（默认 vnpu）")
    parser.add_argument("--nodes-file", metavar="FILE", help="读保存的 kubectl get nodes -o json，而不是连 API")
    parser.add_argument("--hami-config-file", metavar="FILE",
                        help="读保存的 kubectl get configmap -n kube-system hami-scheduler-device -o json")
