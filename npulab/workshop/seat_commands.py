"""``python -m npulab workshop seats list|free|move|reset``: the seat map the hub uses, seen and changed by hand.

The commands read the same ``WORKSHOP_*`` variables as the hub (``settings``) and change the same state file
(``WORKSHOP_STATE_DIR/seats.json``) under its lock; the running hub reads the file at every spawn, so a freed or
moved seat takes effect the next time that participant's server starts (stop it first in the hub's admin page).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from npulab.core.display import Table
from npulab.core.i18n import t
from npulab.workshop.mode import PORTS_PER_SEAT, seat_port
from npulab.workshop.seats import RosterError, SeatError, SeatPool, read_roster
from npulab.workshop.settings import WorkshopSettings


def seat_table(pool: SeatPool) -> Table:
    """The seat map as a course table: participant, NPU, private ports, on the roster or not."""
    roster = set(pool.roster)
    on_roster, off_roster = t("workshop.tools.seats.yes"), t("workshop.tools.seats.not_on_roster")
    rows = [(e.user, e.device, f"{seat_port(e.index)}–{seat_port(e.index) + PORTS_PER_SEAT - 1}",
             (on_roster if e.user in roster else off_roster) if pool.roster else "—")
            for e in pool.entries()]
    rows += [(u, "—", "—", t("workshop.tools.seats.overflow")) for u in pool.overflow if u not in pool.seats()]
    load = t("workshop.tools.seats.load_sep").join(t("workshop.tools.seats.load", device=d, taken=n, per_device=pool.per_device)
                                                   for d, n in pool.load().items())
    head = (t("workshop.tools.seats.head_user"), "NPU", t("workshop.tools.seats.head_ports"), t("workshop.tools.seats.head_roster"))
    return Table(head, rows, t("workshop.tools.seats.title", taken=len(pool.entries()), capacity=pool.capacity, load=load))


def open_pool(settings: WorkshopSettings) -> SeatPool:
    """The hub's seat pool from the settings (UsageError, in npulab's language, when they cannot be used)."""
    from npulab.core.cli import UsageError

    roster = []
    if settings.roster is not None:
        if not settings.roster.is_file():
            raise UsageError(t("workshop.tools.seats.no_roster_file", path=settings.roster))
        roster = read_roster(settings.roster)
    if not settings.seats_file.is_file():
        raise UsageError(t("workshop.tools.seats.no_seats_file", path=settings.seats_file))
    try:
        return SeatPool(settings.npus, settings.per_npu, roster=roster, state_file=settings.seats_file)
    except RosterError as err:
        raise UsageError(str(err)) from None


def settings_mismatch(pool: SeatPool) -> list[str]:
    """Where the seat table contradicts the pool it is read with: seats on NPUs outside it, cards over their share."""
    from collections import Counter

    per_card = Counter(e.device for e in pool.entries())
    problems = [t("workshop.tools.seats.off_pool", device=d, count=n, devices=",".join(map(str, pool.devices)))
                for d, n in sorted(per_card.items()) if d not in pool.devices]
    problems += [t("workshop.tools.seats.over_share", device=d, count=n, per_device=pool.per_device)
                 for d, n in sorted(per_card.items()) if d in pool.devices and n > pool.per_device]
    return problems


def _who(args, pool: SeatPool) -> int:
    """Map each NPU process to a participant; 1 when someone is on a card that is not theirs."""
    from npulab.core.cli import UsageError
    from npulab.workshop.npu_owners import owners_table
    from npulab.workshop.preflight import read_smi

    if args.smi_file and not Path(args.smi_file).is_file():
        raise UsageError(t("workshop.tools.seats.no_smi_file", path=args.smi_file))
    info, source = read_smi(args.smi_file)
    if info is None:
        print(t("workshop.tools.seats.no_smi", source=source))
        return 1
    table, wrong = owners_table(info, pool.seats())
    print(table.text())
    if wrong:
        print(t("workshop.tools.seats.wrong_cards", names=t("workshop.tools.list_sep").join(wrong)))
        return 1
    print(t("workshop.tools.seats.all_own_cards") if table.rows else t("workshop.tools.seats.no_processes", source=source))
    return 0


def run(args) -> int:
    """Run one seat command; 0 done, 1 refused (the card is full), 2 bad input."""
    import os

    from npulab.core.cli import UsageError

    env = dict(os.environ)
    if args.state_dir:
        env["WORKSHOP_STATE_DIR"] = args.state_dir
    try:
        settings = WorkshopSettings.from_env(env)
    except ValueError as err:
        raise UsageError(str(err)) from None
    pool = open_pool(settings)
    mismatch = settings_mismatch(pool)
    if mismatch:
        raise UsageError(t("workshop.tools.seats.mismatch", problems=t("workshop.tools.seats.mismatch_sep").join(mismatch)))
    unset = [k for k in ("WORKSHOP_NPUS", "WORKSHOP_PER_NPU") if not env.get(k)]
    if unset:
        print(t("workshop.tools.seats.defaults", names=t("workshop.tools.list_sep").join(unset), npus=len(pool.devices),
                per_device=pool.per_device), file=sys.stderr)
    if args.seats_command == "list":
        if args.json:
            print(json.dumps([e.__dict__ | {"port": seat_port(e.index)} for e in pool.entries()], ensure_ascii=False, indent=1))
        else:
            print(seat_table(pool).text())
        return 0
    if args.seats_command == "who":
        return _who(args, pool)
    if args.seats_command == "free":
        try:
            e = pool.release(args.name)
        except KeyError:
            raise UsageError(t("workshop.tools.seats.no_seat", name=args.name)) from None
        print(t("workshop.tools.seats.freed", user=e.user, device=e.device))
        return 0
    if args.seats_command == "move":
        try:
            e = pool.move(args.name, args.npu)
        except KeyError:
            raise UsageError(t("workshop.tools.seats.no_seat", name=args.name)) from None
        except ValueError as err:
            raise UsageError(str(err)) from None
        except SeatError as err:
            print(t("workshop.tools.seats.not_moved", reason=err))
            return 1
        print(t("workshop.tools.seats.moved", user=e.user, device=e.device))
        return 0
    if not args.yes:
        raise UsageError(t("workshop.tools.seats.reset_confirm"))
    freed = pool.reset()
    print(t("workshop.tools.seats.reset_done", freed=freed, seated=len(pool.entries())))
    return 0


def build_parser(parser) -> None:
    """Arguments of ``workshop seats`` (added to an existing sub-parser)."""
    from npulab.core.cli import CourseArgumentParser

    parser.add_argument("--state-dir", metavar="DIR", help="hub 的状态目录（默认取 WORKSHOP_STATE_DIR，否则 workshop-state）")
    inner = parser.add_subparsers(dest="seats_command", metavar="<command>", parser_class=CourseArgumentParser)
    inner.required = True
    ls = inner.add_parser("list", help="列出座位表：学员、NPU、私有端口、是否在名单中")
    ls.add_argument("--json", action="store_true", help="以 JSON 输出")
    fr = inner.add_parser("free", help="释放一位学员（或测试登录）的座位")
    fr.add_argument("name", help="学员名（按 JupyterHub 的规则转为小写）")
    mv = inner.add_parser("move", help="把一位学员移到另一张 NPU")
    mv.add_argument("name", help="学员名")
    mv.add_argument("npu", type=int, help="目标 NPU 编号（须在 WORKSHOP_NPUS 里且未坐满）")
    wh = inner.add_parser("who", help="NPU 上的每个进程属于哪位学员、是否在自己的卡上（npu-smi 进程表）")
    wh.add_argument("--smi-file", metavar="FILE", help="读取保存下来的 npu-smi info 输出，而不是现场运行")
    rs = inner.add_parser("reset", help="释放全部座位，按名单重新分配")
    rs.add_argument("--yes", action="store_true", help="确认")
    parser.set_defaults(run=run)
