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
from npulab.workshop.mode import PORTS_PER_SEAT, seat_port
from npulab.workshop.seats import RosterError, SeatError, SeatPool, read_roster
from npulab.workshop.settings import WorkshopSettings


def seat_table(pool: SeatPool) -> Table:
    """The seat map as a course table: participant, NPU, private ports, on the roster or not."""
    roster = set(pool.roster)
    rows = [(e.user, e.device, f"{seat_port(e.index)}–{seat_port(e.index) + PORTS_PER_SEAT - 1}",
             ("是" if e.user in roster else "否（不在名单中：测试登录或已从名单删除？）") if pool.roster else "—")
            for e in pool.entries()]
    rows += [(u, "—", "—", "是（超出容量，未分到座位）") for u in pool.overflow if u not in pool.seats()]
    load = "，".join(f"NPU {d}: {n}/{pool.per_device}" for d, n in pool.load().items())
    return Table(("学员", "NPU", "端口", "在名单中"), rows, f"座位表（{len(pool.entries())}/{pool.capacity} 个座位已分配；{load}）")


def open_pool(settings: WorkshopSettings) -> SeatPool:
    """The hub's seat pool from the settings (UsageError in Chinese when they cannot be used)."""
    from npulab.core.cli import UsageError

    roster = []
    if settings.roster is not None:
        if not settings.roster.is_file():
            raise UsageError(f"找不到名单文件 {settings.roster}（WORKSHOP_ROSTER）")
        roster = read_roster(settings.roster)
    if not settings.seats_file.is_file():
        raise UsageError(f"找不到座位文件 {settings.seats_file}：hub 还没有启动过，或 WORKSHOP_STATE_DIR 指向了别处")
    try:
        return SeatPool(settings.npus, settings.per_npu, roster=roster, state_file=settings.seats_file)
    except RosterError as err:
        raise UsageError(str(err)) from None


def settings_mismatch(pool: SeatPool) -> list[str]:
    """Where the seat table contradicts the pool it is read with: seats on NPUs outside it, cards over their share."""
    from collections import Counter

    per_card = Counter(e.device for e in pool.entries())
    problems = [f"NPU {d} 上有 {n} 个座位，但它不在 WORKSHOP_NPUS（{','.join(map(str, pool.devices))}）里"
                for d, n in sorted(per_card.items()) if d not in pool.devices]
    problems += [f"NPU {d} 上坐了 {n} 人，多于 WORKSHOP_PER_NPU={pool.per_device}"
                 for d, n in sorted(per_card.items()) if d in pool.devices and n > pool.per_device]
    return problems


def _who(args, pool: SeatPool) -> int:
    """Map each NPU process to a participant; 1 when someone is on a card that is not theirs."""
    from npulab.core.cli import UsageError
    from npulab.workshop.npu_owners import owners_table
    from npulab.workshop.preflight import read_smi

    if args.smi_file and not Path(args.smi_file).is_file():
        raise UsageError(f"找不到 npu-smi 输出文件 {args.smi_file}")
    info, source = read_smi(args.smi_file)
    if info is None:
        print(f"读不到 npu-smi 的进程表：{source}")
        return 1
    table, wrong = owners_table(info, pool.seats())
    print(table.text())
    if wrong:
        print(f"不在自己卡上的学员：{'、'.join(wrong)}。先让他重启内核（通常是代码里写死了设备号或改了 "
              f"ASCEND_RT_VISIBLE_DEVICES）；仍不行就 kill 那个 PID，或用 seats move 换座位。")
        return 1
    print("每个学员进程都在自己的卡上。" if table.rows else f"NPU 上没有进程（{source}）。")
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
        raise UsageError("座位表与当前的 WORKSHOP_* 设置不一致（export 与 hub 启动时相同的变量后再运行）：" + "；".join(mismatch))
    unset = [k for k in ("WORKSHOP_NPUS", "WORKSHOP_PER_NPU") if not env.get(k)]
    if unset:
        print(f"注意：没有设置 {'、'.join(unset)}，容量按默认值计算（{len(pool.devices)} 张 NPU × 每张 {pool.per_device} 人）；"
              "hub 启动时用了别的值，下面的容量就不准", file=sys.stderr)
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
            raise UsageError(f"{args.name} 没有座位（seats list 列出已分配的座位）") from None
        print(f"已释放 {e.user} 在 NPU {e.device} 上的座位。若其服务器仍在运行，请在 hub 管理页停止它。")
        return 0
    if args.seats_command == "move":
        try:
            e = pool.move(args.name, args.npu)
        except KeyError:
            raise UsageError(f"{args.name} 没有座位（seats list 列出已分配的座位）") from None
        except ValueError as err:
            raise UsageError(str(err)) from None
        except SeatError as err:
            print(f"未移动：{err}")
            return 1
        print(f"已把 {e.user} 移到 NPU {e.device}。请在 hub 管理页停止并重新启动其服务器，新的卡才会生效。")
        return 0
    if not args.yes:
        raise UsageError("seats reset 会释放所有座位并按名单重新分配：确认无误后加 --yes")
    freed = pool.reset()
    print(f"已释放 {freed} 个座位，按名单重新分配了 {len(pool.entries())} 个。正在运行的服务器要重新启动才会用到新座位。")
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
