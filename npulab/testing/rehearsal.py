"""Rehearse a workshop on a machine without an NPU or CANN: ``python -m npulab.testing.rehearsal DIR``.

Builds in ``DIR`` what the live hub test uses: a synthetic CANN install (its ``set_env.sh`` exports the documented
variables and puts a marker module on ``PYTHONPATH``) and stand-in device files (``davinci<N>``, the management
devices) that ``WORKSHOP_DEVICE_ACCESS=seat`` sets per-seat ACLs on. It prints the ``export`` lines that point the
hub at them; with those, workshop/README.md's start block runs unchanged, and every step up to the first real NPU
call (logins, accounts, seats, CANN in the kernels, device permissions, the seat commands) can be tried.
Nothing here pretends to be an NPU: ``torch_npu`` is absent and every NPU cell says so.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from npulab.testing.synthetic_cann import make_synthetic_install

MANAGEMENT = ("davinci_manager", "devmm_svm", "hisi_hdc")


def make_rehearsal(folder: Path | str, npus: list[int], *, layout: str = "cann", version: str = "9.1.0") -> dict[str, str]:
    """Synthetic CANN (``layout``, ``version``) and stand-in devices under ``folder``; the ``WORKSHOP_*`` variables
    that use them."""
    folder = Path(folder).resolve()
    folder.mkdir(parents=True, exist_ok=True)
    folder.chmod(0o755)  # the participants' accounts read CANN's tree, as they read /usr/local/Ascend
    cann = make_synthetic_install(folder / "Ascend", layout=layout, version=version)
    set_env = cann / ("cann" if layout == "cann" else "ascend-toolkit") / "set_env.sh"
    dev = folder / "dev"
    dev.mkdir(exist_ok=True)
    for name in [f"davinci{n}" for n in npus] + list(MANAGEMENT):
        node = dev / name
        node.write_bytes(b"\0")
        node.chmod(0o660)  # root-only, as root:HwHiAiUser 0660 device nodes are to an account outside that group
    return {"WORKSHOP_CANN_SET_ENV": str(set_env), "WORKSHOP_DEV_DIR": str(dev),
            "WORKSHOP_DEVICE_ACCESS": "seat", "WORKSHOP_NPUS": ",".join(map(str, npus))}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m npulab.testing.rehearsal",
                                     description="在没有 NPU 与 CANN 的机器上彩排工作坊：生成替身 CANN 与设备文件，打印要 export 的变量")
    parser.add_argument("folder", help="放替身的目录（例如 /srv/rehearsal；学员账号须能读）")
    parser.add_argument("--npus", default="0,1", help="替身 NPU 编号，逗号分隔（默认 0,1）")
    args = parser.parse_args(argv)
    try:
        npus = [int(n) for n in args.npus.split(",") if n.strip()]
    except ValueError:
        print(f"参数错误：--npus 应是逗号分隔的编号，收到 {args.npus!r}", file=sys.stderr)
        return 2
    if not npus:
        print("参数错误：--npus 至少要有一个编号", file=sys.stderr)
        return 2
    exports = make_rehearsal(args.folder, npus)
    print("# 彩排用的替身已生成；在启动 hub 的 root 终端里执行下面几行，再按 workshop/README.md 的启动命令运行：")
    for name, value in exports.items():
        print(f"export {name}={shlex.quote(value)}")
    print("# 替身只到第一个真实的 NPU 调用为止：torch_npu 不存在，NPU 单元会说明它们需要昇腾 NPU")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
