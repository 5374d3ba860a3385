"""``python -m npulab workshop preflight``: is every seat ready, the evening before the workshop?
One table, one row per seat (participant → NPU): the NPU's health, memory in use and running processes, read
through the npu-smi parsers (``npulab.ascend_tools.smi``) from a live ``npu-smi info`` or a saved copy; then the host: the
doctor (CANN / torch_npu / driver alignment), free disk for the participants' homes, and the course's notebooks
(valid, a ``python3`` kernel to run them, and optionally one notebook executed on each seat's NPU).

A seat is **ready** when its NPU is listed, healthy (``OK``; ``Warning`` is a minor alarm and only noted) and
idle; **busy** when processes run on it, its AI Cores are working or more of its memory is in use than an idle
card shows; **fault** when it is missing or its health is an alarm. Exit code 1 when any seat is not ready or a
host check failed, 0 otherwise, 2 for bad arguments.

Thresholds (choices, stated so they can be changed): an idle card is one with no process, AI Core use at most
``MAX_IDLE_AICORE_PCT`` and at most ``MAX_IDLE_MEMORY_FRACTION`` of its memory in use. For scale: the recorded
idle 8 × 910B3 table (``npulab/data/samples/info_910b3_8card_24.1.rc1.txt``) shows 3314 of 65536 MB HBM in use
(5 %) and 0 % AI Core on every NPU; that reserve belongs to the driver, not to a user.
"""

from __future__ import annotations

import html
import json
import os
import shutil
import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path

from npulab.ascend_tools.smi.info import Chip, SmiInfo, parse_info
from npulab.core.display import Table
from npulab.core.i18n import t
from npulab.workshop import accounts
from npulab.workshop.hub_checks import HostCheck, hub_checks
from npulab.workshop.seat_sizes import CORES_PER_SEAT, MEM_PER_SEAT_GB  # what one seat needs of its host

MAX_IDLE_AICORE_PCT = 5
MAX_IDLE_MEMORY_FRACTION = 0.10
DISK_PER_SEAT_GB = 2.0  # a participant's copy of the course is under 1 MB; this leaves room for outputs and caches
STATUS_WORDS = {"ready": lambda: t("workshop.checks.status.ready"), "busy": lambda: t("workshop.checks.status.busy"),
                "fault": lambda: t("workshop.checks.status.fault")}  # a seat's status in the reader's language
HOST_MARKS = {"ok": "✓", "warn": "!", "fail": "✗", "skip": "-"}


@dataclass
class SeatReport:
    """One seat: who, which NPU, what npu-smi says about it, and the verdict."""

    user: str
    npu: int
    health: str | None = None
    memory_used_mb: int | None = None
    memory_total_mb: int | None = None
    aicore_pct: float | None = None
    processes: list[str] = field(default_factory=list)
    status: str = "ready"
    notes: list[str] = field(default_factory=list)

    @property
    def ready(self) -> bool:
        return self.status == "ready"

    def memory(self) -> str:
        if self.memory_total_mb is None or self.memory_used_mb is None:
            return "—"
        return f"{self.memory_used_mb} / {self.memory_total_mb} MB"


@dataclass
class Preflight:
    seats: list[SeatReport]
    host: list[HostCheck]
    source: str = ""

    @property
    def ready(self) -> bool:
        return all(s.ready for s in self.seats) and not any(h.status == "fail" for h in self.host)

    def exit_code(self) -> int:
        return 0 if self.ready else 1

    def to_dict(self) -> dict:
        return {"ready": self.ready, "source": self.source,
                "seats": [{**asdict(s), "ready": s.ready} for s in self.seats],
                "host": [asdict(h) for h in self.host]}

    def seat_table(self) -> Table:
        """The seats as a course table (HTML in a notebook, aligned text in a terminal)."""
        sep = t("workshop.checks.clause_sep")
        rows = [(s.user, s.npu, s.health or "—", s.memory(), "—" if s.aicore_pct is None else f"{s.aicore_pct:g} %",
                 len(s.processes), STATUS_WORDS[s.status](), sep.join(s.notes) or "—") for s in self.seats]
        return Table((t("workshop.checks.col.user"), "NPU", t("workshop.checks.col.health"), t("workshop.checks.col.memory"),
                      "AI Core", t("workshop.checks.col.processes"), t("workshop.checks.col.status"),
                      t("workshop.checks.col.notes")), rows,
                     t("workshop.checks.seat_title", source=self.source or t("workshop.checks.unknown")))

    def summary(self) -> str:
        """The host checks and a one-line verdict."""
        lines = [t("workshop.checks.host") if self.host else t("workshop.checks.host_unchecked")]
        lines += [f"  {HOST_MARKS[h.status]} {h.id}: {h.message}" for h in self.host]
        ready = sum(s.ready for s in self.seats)
        verdict = t("workshop.checks.all_ready") if self.ready else t("workshop.checks.not_ready")
        return "\n".join(lines + ["", t("workshop.checks.verdict", ready=ready, total=len(self.seats), verdict=verdict)])

    def render(self) -> str:
        """The whole report as text for a terminal: the seat table, the host checks, the verdict."""
        return self.seat_table().text() + "\n\n" + self.summary()

    def _repr_html_(self) -> str:
        summary = html.escape(self.summary()).replace("\n", "<br>")
        return self.seat_table()._repr_html_() + f"<p>{summary}</p>"


# ---------------------------------------------------------------------------------------------------------------
# Seats, from the parsed npu-smi table
# ---------------------------------------------------------------------------------------------------------------


def _memory(chips: list[Chip]) -> tuple[int | None, int | None]:
    """HBM where the table has it (training cards), else the Memory column (inference cards); summed over dies."""
    for used_key, total_key in (("hbm_used_mb", "hbm_total_mb"), ("memory_used_mb", "memory_total_mb")):
        pairs = [(getattr(c, used_key), getattr(c, total_key)) for c in chips]
        if pairs and all(u is not None and t for u, t in pairs):
            return sum(u for u, _ in pairs), sum(t for _, t in pairs)
    return None, None


def assess_seat(user: str, npu: int, info: SmiInfo, *, sharing: int = 1) -> SeatReport:
    """The verdict for one seat on NPU ``npu`` (``sharing`` seats share that NPU)."""
    report = SeatReport(user, npu)
    chips = [c for c in info.chips if c.npu_id == npu]
    if not chips:
        listed = ", ".join(map(str, info.npu_ids())) or t("workshop.checks.none")
        report.status = "fault"
        report.notes.append(t("workshop.checks.seat.not_listed", npu=npu, listed=listed))
        return report
    healths = [str(c.health) for c in chips if c.health]
    report.health = "/".join(dict.fromkeys(healths)) or None
    report.memory_used_mb, report.memory_total_mb = _memory(chips)
    cores = [c.aicore_pct for c in chips if c.aicore_pct is not None]
    report.aicore_pct = max(cores) if cores else None
    report.processes = [f"{p.pid} {p.name or '?'} ({p.memory_mb if p.memory_mb is not None else '?'} MB)"
                        for p in info.processes if p.npu_id == npu]

    bad = [h for h in healths if h.upper() != "OK" and "WARNING" not in h.upper()]
    if bad:
        report.status = "fault"
        report.notes.append(t("workshop.checks.seat.alarm", health=bad[0], npu=npu))
    elif any("WARNING" in h.upper() for h in healths):
        report.notes.append(t("workshop.checks.seat.warning"))
    if not healths:
        report.notes.append(t("workshop.checks.seat.no_health"))
    if report.status == "fault":
        return report
    if report.processes:
        report.status = "busy"
        report.notes.append(t("workshop.checks.seat.processes", count=len(report.processes),
                              processes=t("workshop.checks.comma_sep").join(report.processes)))
    if report.aicore_pct is not None and report.aicore_pct > MAX_IDLE_AICORE_PCT:
        report.status = "busy"
        report.notes.append(t("workshop.checks.seat.aicore", pct=report.aicore_pct, limit=MAX_IDLE_AICORE_PCT))
    used, total = report.memory_used_mb, report.memory_total_mb
    if used is not None and total and used / total > MAX_IDLE_MEMORY_FRACTION:
        report.status = "busy"
        report.notes.append(t("workshop.checks.seat.memory", used=used / total, limit=MAX_IDLE_MEMORY_FRACTION))
    if sharing > 1 and total:
        report.notes.append(t("workshop.checks.seat.sharing", others=sharing - 1, each=(total - (used or 0)) // sharing))
    if not info.processes and not info.idle_npus:
        report.notes.append(t("workshop.checks.seat.no_process_table"))
    return report


def assess_seats(seats: Mapping[str, int], info: SmiInfo) -> list[SeatReport]:
    """One report per seat, in seat order."""
    sharing = {npu: list(seats.values()).count(npu) for npu in seats.values()}
    return [assess_seat(user, npu, info, sharing=sharing[npu]) for user, npu in seats.items()]


# ---------------------------------------------------------------------------------------------------------------
# The host
# ---------------------------------------------------------------------------------------------------------------


def doctor_check(diagnose: Callable[[], list] | None = None) -> HostCheck:
    """The doctor's verdict in one line: its failed checks, else its warnings, else ok."""
    if diagnose is None:
        from npulab.env.doctor import diagnose
    checks = diagnose()
    failed = [c for c in checks if c.status == "fail"]
    warned = [c for c in checks if c.status == "warn"]
    def listing(found):
        return t("workshop.checks.clause_sep").join(t("workshop.checks.doctor.item", id=c.id, message=c.message)
                                                    for c in found)

    if failed:
        return HostCheck("doctor", "fail", listing(failed) + t("workshop.checks.doctor.details"))
    if warned:
        return HostCheck("doctor", "warn", listing(warned))
    skipped = sum(c.status == "skip" for c in checks)
    return HostCheck("doctor", "ok", t("workshop.checks.doctor.passed", count=len(checks) - skipped)
                     + (t("workshop.checks.doctor.skipped", count=skipped) if skipped else ""))


def disk_check(path: Path | str, seats: int, per_seat_gb: float = DISK_PER_SEAT_GB) -> HostCheck:
    """Free space where the participants' homes go: at least ``per_seat_gb`` per seat."""
    target = Path(path)
    while not target.exists() and target != target.parent:
        target = target.parent
    free_gb = shutil.disk_usage(target).free / 1e9
    need = per_seat_gb * seats
    status = "ok" if free_gb >= need else "fail"
    return HostCheck("disk", status, t("workshop.checks.disk", target=target, free=free_gb, seats=seats,
                                       per_seat=per_seat_gb, need=need))


def capacity_check(seats: int, *, cpu_only: bool, cores: int | None = None, memory_gb: float | None = None) -> HostCheck:
    """CPU cores and memory for ``seats`` participants: short memory fails; in a CPU-only workshop, fewer cores than
    seats is a warning that every lesson runs that many times slower; with NPUs the host CPU matters less."""
    import psutil

    cores = (os.cpu_count() or 1) if cores is None else cores
    memory_gb = psutil.virtual_memory().total / 2**30 if memory_gb is None else memory_gb
    need_mem, need_cores = seats * MEM_PER_SEAT_GB, seats * CORES_PER_SEAT
    facts = t("workshop.checks.capacity.facts", cores=cores, memory=memory_gb, seats=seats, cores_per_seat=CORES_PER_SEAT,
              mem_per_seat=MEM_PER_SEAT_GB, need_cores=need_cores, need_mem=need_mem)
    if memory_gb < need_mem:
        return HostCheck("capacity", "fail", t("workshop.checks.capacity.memory", facts=facts))
    if cores < need_cores:
        slower = need_cores / cores
        return HostCheck("capacity", "warn" if cpu_only or slower > 4 else "ok",
                         t("workshop.checks.capacity.cores", facts=facts, slower=slower) +
                         (t("workshop.checks.capacity.cpu_only") if cpu_only else t("workshop.checks.capacity.npu")))
    return HostCheck("capacity", "ok", facts)


def vnpu_check(per_npu: int, template_file: Path | str | None = None,
               runner: Callable[[list[str]], object] | None = None) -> HostCheck:
    """Seats sharing a card (``per_npu`` > 1) time-share it without isolation: say so, and what the driver offers instead
    (``npu-smi info -t template-info``: vNPU templates that cut AI Cores and memory, or none: whole cards only)."""
    from npulab.ascend_tools.smi.templates import parse_template_info

    shared = t("workshop.checks.vnpu.shared", per_npu=per_npu)
    if template_file is not None:
        text = Path(template_file).read_text(encoding="utf-8", errors="replace")
        source = t("workshop.checks.file", path=template_file)
    else:
        if runner is None:
            from npulab.ascend_tools.smi.runner import run as runner
        result = runner(["npu-smi", "info", "-t", "template-info"])
        text, source = (result.stdout + "\n" + result.stderr), "npu-smi info -t template-info"
        if result.returncode != 0 and not parse_template_info(text).unsupported:
            return HostCheck("vnpu", "warn", t("workshop.checks.vnpu.unreadable", shared=shared, source=source,
                                               code=result.returncode))
    info = parse_template_info(text)
    if info.unsupported or not info.templates:
        why = info.unsupported or t("workshop.checks.vnpu.no_templates_why")
        return HostCheck("vnpu", "warn", t("workshop.checks.vnpu.no_templates", shared=shared, source=source, why=why))
    return HostCheck("vnpu", "warn", t("workshop.checks.vnpu.templates", shared=shared, source=source,
                                       names=t("workshop.checks.list_sep").join(info.names)))


def notebooks_check(paths: list[Path] | None = None) -> HostCheck:
    """Every course notebook is valid nbformat and a ``python3`` kernel exists to run it."""
    import nbformat
    from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel

    from npulab.core.notebook_cells import iter_notebooks

    notebooks = list(iter_notebooks(paths))
    broken = []
    for path in notebooks:
        try:
            nbformat.validate(nbformat.read(path, as_version=4))
        except Exception as err:  # any unreadable notebook is reported, not raised
            broken.append(t("workshop.checks.notebooks.broken_item", name=path.name, error=type(err).__name__))
    try:
        spec = KernelSpecManager().get_kernel_spec("python3")
        kernel = spec.argv[0]
    except NoSuchKernel:
        return HostCheck("notebooks", "fail", t("workshop.checks.notebooks.no_kernel"))
    if broken:
        return HostCheck("notebooks", "fail", t("workshop.checks.notebooks.broken", count=len(broken),
                                                names=t("workshop.checks.comma_sep").join(broken)))
    return HostCheck("notebooks", "ok", t("workshop.checks.notebooks.ok", count=len(notebooks), kernel=kernel))


PROBE_MARK = "NPULAB_PREFLIGHT_PROBE "
# appended to the notebook run for each seat: which NPUs the kernel sees, and one tensor operation on the first;
# its reasons ({no_torch_npu}, {unavailable}) are filled in the reader's language by probe()
PROBE = f"""import importlib.util as _u, json as _j, os as _o
_n, _v, _why = 0, None, {{no_torch_npu!r}}
try:
    if _u.find_spec("torch_npu"):
        import torch as _t, torch_npu  # noqa: F401
        _n = _t.npu.device_count() if _t.npu.is_available() else 0
        _v = float((_t.ones(4).npu() * 2).sum().cpu()) if _n else None
        _why = "" if _n else {{unavailable!r}}
except Exception as _e:
    _n, _v, _why = 0, None, f"{{{{type(_e).__name__}}}}: {{{{_e}}}}"
print({PROBE_MARK!r} + _j.dumps({{{{"visible": _o.environ.get("ASCEND_RT_VISIBLE_DEVICES"), "count": _n, "value": _v, "why": _why}}}}))
"""


def probe() -> str:
    """The probe's code, its reasons in the reader's language."""
    return PROBE.format(no_torch_npu=t("workshop.checks.probe.no_torch_npu"),
                        unavailable=t("workshop.checks.probe.unavailable"))


def _probe_result(nb) -> dict | None:
    for output in nb.cells[-1].get("outputs", []):
        for line in output.get("text", "").splitlines():
            if line.startswith(PROBE_MARK):
                return json.loads(line[len(PROBE_MARK):])
    return None


def execute_check(notebook: Path | str, devices: list[int], cann_env: Mapping[str, str] | None = None,
                  timeout: float = 600.0, *, cpu_only: bool = False) -> HostCheck:
    """Run ``notebook`` top to bottom once per NPU, with the environment a seat gets (CANN, ``ASCEND_RT_VISIBLE_DEVICES``),
    then a probe in the same kernel: exactly one NPU visible and a tensor computed on it (unless ``cpu_only``)."""
    import nbformat
    from nbclient import NotebookClient

    path = Path(notebook)
    failures, seconds, proved = [], [], []
    for device in devices:
        nb = nbformat.read(path, as_version=4)
        nb.cells.append(nbformat.v4.new_code_cell(probe()))
        env = {**os.environ, **(cann_env or {}), "ASCEND_RT_VISIBLE_DEVICES": str(device)}
        old = dict(os.environ)
        os.environ.update(env)  # nbclient starts the kernel with this process's environment
        try:
            start = time.perf_counter()
            NotebookClient(nb, timeout=timeout, kernel_name="python3",
                           resources={"metadata": {"path": str(path.parent)}}).execute()
            seconds.append(time.perf_counter() - start)
        except Exception as err:
            failures.append(t("workshop.checks.execute.error", device=device,
                              error=f"{type(err).__name__}: {str(err).splitlines()[0][:160] if str(err) else ''}"))
            continue
        finally:
            os.environ.clear()
            os.environ.update(old)
        seen = _probe_result(nb) or {"count": 0, "value": None, "why": t("workshop.checks.probe.silent")}
        if seen["count"] == 1 and seen["value"] == 8.0:
            proved.append(device)
        elif not cpu_only:
            saw = (t("workshop.checks.execute.saw", count=seen["count"]) if seen["count"]
                   else t("workshop.checks.execute.saw_none"))
            why = t("workshop.checks.execute.why", why=seen["why"]) if seen.get("why") else ""
            failures.append(t("workshop.checks.execute.not_seen", device=device, seen=saw, why=why))
    if failures:
        return HostCheck("execute", "fail", t("workshop.checks.execute.failed", name=path.name,
                                              failures=t("workshop.checks.clause_sep").join(failures)))
    where = (t("workshop.checks.execute.proved", npus=", ".join(map(str, proved)))
             if proved else t("workshop.checks.execute.cpu", count=len(devices)))
    return HostCheck("execute", "ok", t("workshop.checks.execute.ok", name=path.name, where=where, longest=max(seconds)))


# ---------------------------------------------------------------------------------------------------------------
# Putting it together
# ---------------------------------------------------------------------------------------------------------------


def read_smi(smi_file: Path | str | None = None, runner: Callable[[list[str]], object] | None = None) -> tuple[SmiInfo | None, str]:
    """The parsed ``npu-smi info`` table and where it came from; (None, reason) when there is none."""
    if smi_file is not None:
        text = Path(smi_file).read_text(encoding="utf-8", errors="replace")
        source = t("workshop.checks.file", path=smi_file)
    else:
        if runner is None:
            from npulab.ascend_tools.smi.runner import run as runner
        result = runner(["npu-smi", "info"])
        if result.returncode != 0:
            return None, t("workshop.checks.smi.failed", code=result.returncode, error=result.stderr.strip()[:200])
        text, source = result.stdout, t("workshop.checks.smi.local")
    from npulab.ascend_tools.smi.common import SmiParseError

    try:
        return parse_info(text), source
    except SmiParseError as err:
        return None, t("workshop.checks.smi.unparsable", source=source, error=err)


def preflight(seats: Mapping[str, int], info: SmiInfo | None, *, source: str = "", host: list[HostCheck] = (),
              cpu_only: bool = False) -> Preflight:
    """Seat reports for ``seats`` against ``info`` (every seat is a fault when there is no table), plus host checks.
    In a CPU-only workshop the seats are not judged by npu-smi."""
    if cpu_only:
        reports = [SeatReport(u, n, notes=[t("workshop.checks.seat.cpu_mode")]) for u, n in seats.items()]
    elif info is None:
        reports = [SeatReport(u, n, status="fault", notes=[source or t("workshop.checks.seat.no_smi")])
                   for u, n in seats.items()]
    else:
        reports = assess_seats(seats, info)
        if info.partial:
            for r in reports:
                r.notes.append(t("workshop.checks.seat.partial"))
    return Preflight(reports, list(host), source)


def _seats_from_args(args, settings) -> dict[str, int]:
    """Participant → NPU as the hub will seat them: names normalised, spread evenly, seats already taken kept."""
    from npulab.core.cli import UsageError
    from npulab.workshop.seats import RosterError, SeatPool, load_state, read_roster

    try:
        devices = [int(d) for d in args.npus.split(",") if d.strip()]
    except ValueError:
        raise UsageError(t("workshop.checks.args.npus", value=repr(args.npus))) from None
    if args.roster:
        path = Path(args.roster)
        if not path.is_file():
            raise UsageError(t("workshop.checks.roster_missing", path=args.roster))
        users = read_roster(path)
    else:
        count = args.seats if args.seats is not None else len(devices) * args.per_npu
        users = [t("workshop.checks.seat.placeholder", number=i + 1) for i in range(count)]
    capacity = len(devices) * args.per_npu
    if len(users) > capacity and devices:
        need = -(-len(users) // len(devices))
        raise UsageError(t("workshop.checks.args.over_capacity", users=len(users), cards=len(devices),
                           per_npu=args.per_npu, capacity=capacity, need=need))
    try:
        pool = SeatPool(devices, per_device=args.per_npu, seated=load_state(settings.seats_file))
        for user in users:
            pool.seat(user)
    except RosterError as err:
        raise UsageError(str(err)) from None
    return {u: d for u, d in pool.seats().items() if u in users}


def build_parser(parser) -> None:
    """Arguments of ``workshop preflight`` (added to an existing sub-parser); defaults from the hub's WORKSHOP_*."""
    env = os.environ
    parser.add_argument("--npus", default=env.get("WORKSHOP_NPUS", "0,1,2,3,4,5,6,7"),
                        help="NPU 池，逗号分隔（默认取 WORKSHOP_NPUS，否则 0–7）")
    parser.add_argument("--per-npu", type=int, default=env.get("WORKSHOP_PER_NPU", "1"), metavar="N",
                        help="每张 NPU 的座位数（默认取 WORKSHOP_PER_NPU，否则 1）")
    who = parser.add_mutually_exclusive_group()
    who.add_argument("--roster", metavar="FILE", default=env.get("WORKSHOP_ROSTER") or None,
                     help="名单文件，每行一个用户名（默认取 hub 的 WORKSHOP_ROSTER）")
    who.add_argument("--seats", type=int, metavar="N", help="座位数（没有名单时；默认坐满 NPU 池）")
    parser.add_argument("--smi-file", metavar="FILE", help="读取保存下来的 npu-smi info 输出，而不是现场运行 npu-smi")
    parser.add_argument("--template-file", metavar="FILE",
                        help="读取保存下来的 npu-smi info -t template-info 输出（每卡多人时检查驱动提供的 vNPU 模板）")
    homes = (Path(env.get("WORKSHOP_STATE_DIR", "workshop-state")) / "homes" if env.get("WORKSHOP_SPAWNER") == "docker"
             else accounts.home_base())
    parser.add_argument("--home-dir", default=str(homes), metavar="DIR",
                        help=f"学员主目录所在位置（检查剩余磁盘；默认 {homes}：账号模式下 useradd 建主目录的地方，"
                             "容器模式下 $WORKSHOP_STATE_DIR/homes）")
    parser.add_argument("--cpu-only", action="store_true", help="整场工作坊只用 CPU：没有 NPU 和 CANN 不算失败")
    parser.add_argument("--skip-hub", action="store_true", help="不检查 hub 与主机的前提（代理、端口、账号、TLS、CANN、NPU、每个座位的 CPU 与内存）")
    parser.add_argument("--execute", metavar="NOTEBOOK", help="在每个座位的 NPU 上把这个笔记本完整运行一遍")
    parser.add_argument("--skip-doctor", action="store_true", help="不运行环境检查（doctor）")
    parser.add_argument("--json", action="store_true", help="以 JSON 输出")
    from npulab.workshop import k8s_preflight

    k8s_preflight.build_parser(parser)


def run(args) -> int:
    """``python -m npulab workshop preflight``: print the table (or JSON) and return 0 (all ready) or 1."""
    from npulab.core.cli import UsageError
    from npulab.workshop.settings import WorkshopSettings

    if getattr(args, "k8s", False):
        from npulab.workshop import k8s_preflight

        return k8s_preflight.run(args)
    try:
        settings = WorkshopSettings.from_env()
    except ValueError as err:
        raise UsageError(str(err)) from None
    seats = _seats_from_args(args, settings)
    if args.smi_file and not Path(args.smi_file).is_file():
        raise UsageError(t("workshop.checks.args.smi_file", path=args.smi_file))
    if args.template_file and not Path(args.template_file).is_file():
        raise UsageError(t("workshop.checks.args.template_file", path=args.template_file))
    if args.execute and not Path(args.execute).is_file():
        raise UsageError(t("workshop.checks.args.notebook", path=args.execute))
    info, source = (None, t("workshop.checks.smi.cpu_mode")) if args.cpu_only else read_smi(args.smi_file)
    host, cann_env = [], {}
    if not args.skip_hub:

        host, cann_env = hub_checks(settings, list(seats) if args.roster else [], smi_file=args.smi_file, cpu_only=args.cpu_only)
        host.append(capacity_check(len(seats), cpu_only=args.cpu_only))
    host += [] if args.skip_doctor else [doctor_check()]
    host += [disk_check(args.home_dir, len(seats)), notebooks_check()]
    if args.per_npu > 1 and not args.cpu_only:
        host.append(vnpu_check(args.per_npu, args.template_file))
    if args.execute:
        host.append(execute_check(args.execute, sorted(set(seats.values())), cann_env, cpu_only=args.cpu_only))
    result = preflight(seats, info, source=source, host=host, cpu_only=args.cpu_only)
    if args.json:
        print(json.dumps(result.to_dict(), ensure_ascii=False, indent=2))
    else:
        print(result.render())
    return result.exit_code()
