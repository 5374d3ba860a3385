"""``python -m npulab doctor``: diagnose Python, frameworks, CANN, driver and NPU devices, with a fix for each finding.

It never imports torch or MindSpore (versions come from package metadata), so it answers in well under two
seconds; only when torch_npu is installed does it import it, in a subprocess with a timeout.
No CANN on a CPU-only machine is not a failure: those checks are skipped and the course runs in CPU mode.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from npulab.core.cli import EXIT_FAIL, EXIT_OK, UsageError
from npulab.env import cann_install, stacks, torch_install, triton_ascend
from npulab.env.check import MARKS, Check, metadata_version
from npulab.env.compatibility import (
    cann_for_mindspore,
    check_alignment,
    hdk_compatible,
    hdk_for_cann,
    python_for_torch,
    torch_npu_for,
    try_parse,
)
from npulab.env.visible_devices import ENV_NAME, from_environ

STATUSES = ("ok", "warn", "fail", "skip")
EXPLAIN_HINT = "程序已经报错？把日志交给 `python -m npulab explain 日志文件`：它指出是哪一类问题、证据在哪一行、怎么修。"
CPU_MODE = "课程将以 CPU 模式运行"
CHECK_IDS = (
    "python", "numpy", "torch", "mindspore", "cann_install", "cann_env", "driver", "device_nodes", "npu_smi",
    "visible_devices", "torch_npu", "triton", "version_alignment", "cann_python_deps", "chip",
)

# Python packages CANN's graph engine and operator compiler (TBE) import at initialisation. REQUIRED follows the
# official dependency list of the CANN 9.1.0 install guide (hiascend instg_0045, 9.1.0); RECOMMENDED are packages
# only the seed article's TBE list names (cloudpickle, tornado, ml-dtypes): a missing one is a warning, not a failure.
CANN_DEPS_REQUIRED = {
    "attrs": None, "cython": None, "numpy": "1.19.2", "decorator": "4.4.0", "sympy": "1.5.1", "cffi": "1.12.3",
    "pyyaml": None, "pathlib2": None, "psutil": None, "protobuf": None, "scipy": None, "requests": None, "absl-py": None,
}
CANN_DEPS_RECOMMENDED = ("cloudpickle", "tornado", "ml-dtypes")
# CANN 8.5 / 9.0 dependency tables pin protobuf 3.20.x (instg_0045 of those releases); onnx >= 1.20 needs protobuf >= 6.31,
# so one environment cannot satisfy both: doctor warns and names the conflict
PROTOBUF_320_CANN = ("8.5", "9.0")
GE_CHAIN = ("缺包时 CANN 的图引擎（GE）初始化失败，例如缺 attrs 会依次报 ModuleNotFoundError: No module named 'attr'"
            "（attr 是 attrs 包的导入名）→ GELib::InnerInitialize failed → GEInitialize failed；"
            "看上去像 CANN 坏了，其实只是当前 Python 环境缺包。")


# ---------------------------------------------------------------------------------------------------------------
# Context shared by the checks
# ---------------------------------------------------------------------------------------------------------------


@dataclass
class _Context:
    environ: Mapping[str, str]
    report: cann_install.CannReport | None  # None: no CANN anywhere we looked
    searched: list[Path]
    nodes: list[Path]
    dist_version: Callable[[str], str | None]
    probe_timeout: float
    torch_cuda: Callable[[], list[str]] = lambda: torch_cuda_requirements()  # the installed torch's, when asked

    @property
    def install(self) -> cann_install.Install | None:
        return self.report.primary if self.report else None

    @property
    def has_cann(self) -> bool:
        return self.install is not None


def _versions_lookup(overrides: Mapping[str, str | None] | None) -> Callable[[str], str | None]:
    """Installed version by distribution name; ``overrides`` (tests, notebooks) wins over package metadata."""
    norm = {k.lower().replace("_", "-"): v for k, v in (overrides or {}).items()}

    def lookup(name: str) -> str | None:
        key = name.lower().replace("_", "-")
        if key in norm:
            return norm[key]
        return metadata_version(name)

    return lookup


def _newer_or_equal(version: str | None, minimum: str) -> bool:
    v, m = try_parse(version), try_parse(minimum)
    return v is None or m is None or v >= m


# ---------------------------------------------------------------------------------------------------------------
# The checks
# ---------------------------------------------------------------------------------------------------------------


def _check_python(ctx: _Context) -> Check:
    ver = ".".join(map(str, sys.version_info[:3]))  # npulab itself requires ≥ 3.10 (pyproject)
    torch = ctx.dist_version("torch")
    supported = python_for_torch(torch) if torch and try_parse(torch) else None
    mm = f"{sys.version_info[0]}.{sys.version_info[1]}"
    if supported is not None and mm not in supported:
        return Check("python", "warn",
                     f"Python {ver}：TorchNPU 配套表中 PyTorch {torch} 支持的 Python 为 {', '.join(supported)}。",
                     f"在昇腾机器上请改用 Python {supported[-1]} 或 3.11 的虚拟环境。")
    return Check("python", "ok", f"Python {ver}（{sys.executable}）")


def _check_numpy(ctx: _Context) -> Check:
    numpy = ctx.dist_version("numpy")
    if numpy is None:
        return Check("numpy", "fail", "未安装 numpy。", "pip install -r requirements.txt（其中固定 numpy<2）")
    v = try_parse(numpy)
    if v is not None and v.release_n(1) >= (2,):
        if ctx.dist_version("mindspore"):
            return Check("numpy", "fail",
                         f"numpy {numpy}：MindSpore 2.10 依赖 NumPy 1.x，在 NumPy 2 下第一个算子就可能报错（且时好时坏）。",
                         "pip install 'numpy<2' 'ml_dtypes<0.6'（ml_dtypes 0.6 需要 numpy≥2）")
        return Check("numpy", "warn", f"numpy {numpy}：课程环境固定 numpy<2（MindSpore 2.10 不支持 NumPy 2）。",
                     "pip install 'numpy<2'")
    return Check("numpy", "ok", f"numpy {numpy}（<2，满足 MindSpore 2.10）")


def torch_cuda_requirements() -> list[str]:
    """The nvidia-* / cuda-* distributions the installed torch requires here: a CUDA build (PyPI's torch on x86_64, and
    on aarch64 from 2.11), whatever its version string says (pip shows PyPI's CUDA 2.12.0 as plain ``2.12.0``)."""
    from importlib.metadata import PackageNotFoundError, requires

    from packaging.requirements import InvalidRequirement, Requirement

    try:
        texts = requires("torch") or []
    except PackageNotFoundError:
        return []
    found = []
    for text in texts:
        try:
            req = Requirement(text)
        except InvalidRequirement:
            continue
        if req.name.lower().startswith(("nvidia-", "cuda-")) and (req.marker is None or req.marker.evaluate({"extra": ""})):
            found.append(req.name)
    return found


def _course_pair() -> tuple[str, str]:
    """(torch, torch-npu) of the course stack (npulab/data/stacks.yaml)."""
    course = stacks.get("course")
    return stacks.pinned_version(course, "torch"), stacks.pinned_version(course, "torch-npu")


def _check_torch(ctx: _Context) -> Check:
    torch = ctx.dist_version("torch")
    if torch is None:
        return Check("torch", "fail", "未安装 PyTorch。",
                     "make venv（scripts/python_packages.sh 从 PyTorch 的 CPU 索引装 torch，再装 requirements.txt）；"
                     "昇腾主机上的课程环境：" + torch_install.pair_text(*_course_pair()))
    v = try_parse(torch)
    local = v.local if v else None
    cuda = ctx.torch_cuda()
    if cuda:
        built = f"PyTorch {torch}：CUDA 构建（依赖 {'、'.join(cuda[:3])}{'……' if len(cuda) > 3 else ''}；pip 显示的版本号不一定带 +cu…）"
        if ctx.dist_version("torch-npu") is None:
            return Check("torch", "ok", built + "。")
        return Check("torch", "fail", built + "，torch_npu 不能与它同用（Two accelerators cannot be used at the same time）。",
                     "pip uninstall -y torch && " + torch_install.torch_command(torch.split("+")[0]))
    note = "（CPU 构建）" if local == "cpu" else (f"（本地标签 +{local}）" if local else "")
    return Check("torch", "ok", f"PyTorch {torch}{note}")


def _check_mindspore(ctx: _Context) -> Check:
    ms = ctx.dist_version("mindspore")
    if ms is None:
        return Check("mindspore", "warn", "未安装 MindSpore：MindSpore 章节将无法运行。", "pip install -r requirements.txt")
    pairing = cann_for_mindspore(ms) if try_parse(ms) else []
    if pairing:
        lines = dict.fromkeys(f"CANN {r['cann']}" + ("（待确认）" if r["uncertain"] else "") for r in pairing)
        text = "；".join(list(lines)[:3])  # several tables may name the same CANN: each once
        return Check("mindspore", "ok", f"MindSpore {ms}；在昇腾上对应 {text}")
    return Check("mindspore", "ok", f"MindSpore {ms}（CPU 可用；它在昇腾上的官方 CANN 配套未找到，见 compatibility.yaml）")


def _check_cann_install(ctx: _Context) -> Check:
    where = "、".join(str(p) for p in ctx.searched)
    if ctx.report is not None and ctx.report.problems and not ctx.report.installs:
        return Check("cann_install", "warn", f"{ctx.report.root}：" + "；".join(ctx.report.problems),
                     "检查该目录的权限与链接，或用 --ascend-root 指定 CANN 的安装根目录。")
    inst = ctx.install
    if inst is None:
        return Check("cann_install", "skip", f"未找到 CANN（查找过：{where}）：{CPU_MODE}。",
                     "若本机有昇腾 NPU，请安装 CANN，或用 --ascend-root 指定安装根目录。")
    layout = "CANN ≥ 8.5 的 cann/ 布局" if inst.layout == "cann" else (
        "nnae 运行包" if inst.kind == "nnae" else "ascend-toolkit 布局（CANN ≤ 8.3）")
    target = f"{inst.path} → {inst.home}" if inst.home and inst.home != inst.path else str(inst.path)
    problems = ctx.report.all_problems
    if not inst.usable:
        return Check("cann_install", "fail", f"找到 CANN 的痕迹（{layout}），但安装不可用：" + "；".join(problems),
                     "重新安装 CANN Toolkit（或修复 latest / cann 链接），安装后确认 set_env.sh 存在。")
    version = inst.version or "版本未知"
    message = f"CANN {version}（{layout}，{target}）"
    if inst.ops_version:
        message += f"，ops 包 {inst.ops_version}"
    if problems or inst.version is None:
        return Check("cann_install", "warn", message + "；问题：" + "；".join(problems),
                     "版本文件异常时以 npu-smi 与安装包名为准；必要时重新安装 CANN。")
    return Check("cann_install", "ok", message)


def _check_cann_env(ctx: _Context) -> Check:
    status = cann_install.env_status(ctx.environ)
    inst = ctx.install
    source = inst.source_command if inst else None
    if not ctx.has_cann and not any(status.variables.values()):
        return Check("cann_env", "skip", f"没有 CANN，也没有 CANN 环境变量：{CPU_MODE}。")
    fix = (f"在启动 Python/Jupyter 的同一个 shell 里执行：{source}"
           if source else "执行 CANN 安装目录下的 set_env.sh（source <安装路径>/set_env.sh）。")
    if not status.loaded:
        detail = "；".join(status.problems)
        head = "找到了 CANN，但当前进程没有加载它的环境" if inst and not any(status.variables.values()) else "CANN 环境不完整"
        return Check("cann_env", "fail",
                     f"{head}（{detail}）。这样 import torch_npu 会报 libhccl.so / libascendcl.so 找不到。", fix)
    if inst is not None and not status.points_to(inst):
        loaded = cann_install.loaded_install(ctx.environ)
        version = f"（CANN {loaded.version}）" if loaded and loaded.version else ""
        return Check("cann_env", "warn", f"已加载的 CANN 环境指向 {status.home}{version}，与找到的安装 {inst.path} 不是同一个"
                                         "（两套 CANN 并存时这可能正是你要的：doctor --stack 核对它是否是栈要的那一套）。",
                     f"确认要用哪一套 CANN；要用找到的这一套：{source}")
    loaded = cann_install.loaded_install(ctx.environ)
    version = f"CANN {loaded.version}" if loaded and loaded.version else "版本未知"
    return Check("cann_env", "ok", f"本进程加载的是 {version}（ASCEND_HOME_PATH={status.variables['ASCEND_HOME_PATH'] or status.home}）")


def _check_driver(ctx: _Context) -> Check:
    if not ctx.has_cann:
        return Check("driver", "skip", f"没有 CANN，不检查驱动：{CPU_MODE}。")
    drv = ctx.report.driver
    if drv is None:
        return Check("driver", "warn", f"{ctx.report.root}/driver 不存在：未安装 NPU 驱动（容器里驱动可能挂载在别处）。",
                     "在宿主机安装与 CANN 配套的 Ascend HDK 驱动（先驱动后固件，然后重启），容器需挂载 driver 目录。")
    if drv.version is None:
        return Check("driver", "warn", "驱动版本无法读取：" + "；".join(drv.problems),
                     "用 npu-smi info 查看驱动版本（表头的 Version）。")
    cann = ctx.install.version
    if cann:
        compatible = hdk_compatible(cann, drv.version)
        if compatible is False:
            return Check("driver", "warn", f"驱动 {drv.version} 与 CANN {cann} 在兼容矩阵中标为不兼容。",
                         f"升级驱动；CANN {cann} 发布时配套的 HDK 为 {', '.join(hdk_for_cann(cann)) or '见发布说明'}。")
        paired = hdk_for_cann(cann)
        dv, pv = try_parse(drv.version), [try_parse(p.upper().removesuffix(".X")) for p in paired]
        if compatible is None and dv and pv and all(p and dv.release_n(2) < p.release_n(2) for p in pv):
            return Check("driver", "warn",
                         f"驱动 {drv.version} 比 CANN {cann} 发布时配套的 HDK {', '.join(paired)} 旧，可能不兼容（兼容矩阵未覆盖此组合）。",
                         f"把驱动与固件升级到 HDK {_oldest(paired)} 或更新（先驱动后固件，然后重启）。")
        hint = "（兼容矩阵：兼容）" if compatible else (f"（CANN {cann} 发布时配套 HDK {', '.join(paired)}）" if paired else "")
        return Check("driver", "ok", f"驱动 {drv.version}{hint}")
    return Check("driver", "ok", f"驱动 {drv.version}")


def _oldest(lines: list[str]) -> str:
    """The oldest HDK line of a CANN release's pairs (8.5.0 pairs with 25.5.X … 25.0.X: 25.0.X is enough)."""
    parsed = [(try_parse(line.upper().removesuffix(".X")), line) for line in lines]
    known = [(v, line) for v, line in parsed if v]
    return min(known, key=lambda p: p[0])[1] if known else lines[0]


def _check_device_nodes(ctx: _Context) -> Check:
    nodes = ctx.nodes
    if nodes:
        names = ", ".join(p.name for p in nodes[:8]) + (" …" if len(nodes) > 8 else "")
        return Check("device_nodes", "ok", f"找到 {len(nodes)} 个 NPU 设备节点：{names}")
    if not ctx.has_cann:
        return Check("device_nodes", "skip", f"没有 /dev/davinci* 设备节点：{CPU_MODE}。")
    return Check("device_nodes", "warn", "找到了 CANN，但没有 /dev/davinci* 设备节点：驱动未加载，或容器没有挂载设备。",
                 "宿主机上确认驱动已安装（npu-smi info）；docker run 时加 --device /dev/davinci0 --device /dev/davinci_manager "
                 "--device /dev/devmm_svm --device /dev/hisi_hdc。")


def _check_npu_smi(ctx: _Context) -> Check:
    path = cann_install.find_npu_smi(ctx.environ)
    if path:
        return Check("npu_smi", "ok", f"npu-smi：{path}")
    if not ctx.has_cann and not ctx.nodes:
        return Check("npu_smi", "skip", f"PATH 中没有 npu-smi：{CPU_MODE}。")
    return Check("npu_smi", "warn", "PATH 中没有 npu-smi（它随驱动安装，通常在 /usr/local/bin/npu-smi）。",
                 "确认驱动已安装；容器中需挂载 /usr/local/bin/npu-smi 与 /usr/local/dcmi。")


def _check_visible(ctx: _Context) -> Check:
    numbers = sorted(int(m[1]) for p in ctx.nodes if (m := re.fullmatch(r"davinci(\d+)", p.name)))
    # davinci0..N-1 all present (a host, or a container given every chip): IDs from N on are invalid. A partial
    # set (a container given davinci4 and davinci5, say) says nothing reliable about the logical IDs inside.
    contiguous = bool(numbers) and numbers == list(range(len(numbers)))
    vis = from_environ(ctx.environ, n_devices=len(numbers) if contiguous else None)
    if vis.raw is None:
        return Check("visible_devices", "ok", f"{ENV_NAME} 未设置：进程可使用全部 NPU（npu:i 即逻辑 ID i）。")
    if vis.errors:
        return Check("visible_devices", "fail", vis.describe(),
                     f"写成英文逗号分隔、不含空格、按升序排列的逻辑 ID（见 npu-smi info -m 的 Chip Logic ID），"
                     f"例如 export {ENV_NAME}=4,5,6,7；要用全部 NPU 就 unset {ENV_NAME}。")
    if vis.warnings:
        return Check("visible_devices", "warn", "；".join(vis.warnings), f"unset {ENV_NAME}，或写出要用的逻辑 ID。")
    if not ctx.nodes:
        suffix = "（本机没有 NPU，无法核对 ID 是否有效）"
    elif not contiguous:
        suffix = ("（设备节点的编号不是从 0 起连续的，可能是容器只挂载了部分 NPU：节点名里的是物理 ID，"
                  "这里的值要写逻辑 ID，请在容器里用 npu-smi info -m 核对）")
    else:
        suffix = ""
    return Check("visible_devices", "ok", vis.describe() + suffix)


_PROBE = r"""
import json
try:
    import torch_npu
    import torch
    out = {"ok": True, "version": getattr(torch_npu, "__version__", None)}
    try:
        out["available"] = bool(torch.npu.is_available())
        out["count"] = int(torch.npu.device_count()) if out["available"] else 0
    except Exception as err:
        out["available"], out["error"] = False, f"{type(err).__name__}: {err}"
except BaseException as err:
    out = {"ok": False, "error": f"{type(err).__name__}: {err}"}
print("NPULAB-PROBE " + json.dumps(out))
"""


def probe_torch_npu(environ: Mapping[str, str] | None = None, timeout: float = 30.0) -> dict:
    """Import torch_npu in a subprocess (it can abort the process); return {ok, version, available, error, …}."""
    env = dict(os.environ if environ is None else environ)
    try:
        proc = subprocess.run([sys.executable, "-c", _PROBE], env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"ok": False, "timeout": True, "error": f"导入 torch_npu 超过 {timeout:g} 秒仍未结束"}
    except OSError as err:
        return {"ok": False, "error": f"无法启动子进程：{err}"}
    for line in proc.stdout.splitlines():
        if line.startswith("NPULAB-PROBE "):
            try:
                return json.loads(line[len("NPULAB-PROBE "):])
            except ValueError:
                break
    tail = (proc.stderr.strip().splitlines() or [f"退出码 {proc.returncode}"])[-1]
    return {"ok": False, "error": f"子进程异常退出（{tail}）"}


def _probe_fix(error: str, source: str | None) -> str:
    """A fix for the usual torch_npu import errors."""
    load = source or "source <CANN 安装路径>/set_env.sh"
    if "Two accelerators" in error:
        return ("torch 是 CUDA 构建（PyPI 的 torch 在 x86_64 与 2.11 起的 aarch64 上都是，pip 显示的版本号不带 +cu…）："
                "pip uninstall -y torch && " + torch_install.torch_command(torch_install.PLACEHOLDER) + "（与 torch_npu 同版本）")
    if "No module named 'attr'" in error or "GEInitialize" in error:
        return "pip install " + " ".join(CANN_DEPS_REQUIRED) + "。" + GE_CHAIN
    if ".so" in error or "set_env" in error:
        return f"在同一个 shell 里先加载 CANN 环境：{load}；仍失败时核对 torch_npu 与 CANN 的配套（version_alignment）。"
    return f"先加载 CANN 环境（{load}），再核对 torch / torch_npu / CANN 的配套。"


def _check_torch_npu(ctx: _Context) -> Check:
    version = ctx.dist_version("torch-npu")
    if version is None:
        return Check("torch_npu", "skip",
                     "未安装 torch_npu。CPU 环境不需要它，也不要安装：没有 CANN 时它会让 import torch 本身失败。")
    if ctx.probe_timeout <= 0:
        return Check("torch_npu", "skip", f"已安装 torch_npu {version}；按要求未做导入测试。")
    result = probe_torch_npu(ctx.environ, ctx.probe_timeout)
    source = ctx.install.source_command if ctx.install else None
    if result.get("timeout"):
        return Check("torch_npu", "warn", f"torch_npu {version}：{result['error']}。",
                     "用 --probe-timeout 调大等待时间，或手动运行 python -c 'import torch_npu' 查看卡在哪里。")
    if not result.get("ok"):
        return Check("torch_npu", "fail", f"已安装 torch_npu {version}，但导入失败：{result.get('error')}",
                     _probe_fix(str(result.get("error")), source))
    if not result.get("available"):
        extra = f"（{result['error']}）" if result.get("error") else ""
        return Check("torch_npu", "warn", f"torch_npu {version} 可以导入，但 torch.npu.is_available() 为 False{extra}。",
                     "检查驱动与设备节点（driver、device_nodes）以及 ASCEND_RT_VISIBLE_DEVICES。")
    return Check("torch_npu", "ok", f"torch_npu {version} 导入成功，可见 {result.get('count')} 个 NPU。")


def _check_triton(ctx: _Context, probe: Callable[[], triton_ascend.TritonAscendStatus] | None = None) -> Check:
    """torch_npu next to community Triton without Triton-Ascend: torch.compile's inductor fails at the first step."""
    if ctx.dist_version("torch-npu") is None:
        return Check("triton", "skip", "未安装 torch_npu：不检查 Triton（CPU 课程环境里的社区版 triton 供第 06 章第 2 课的解释器用）。")
    status = (probe or triton_ascend.probe)()
    if status.importable:
        return Check("triton", "ok", f"{status.describe()}：torch.compile 的 inductor 可以在 NPU 上生成融合算子。")
    if not status.has_triton:
        return Check("triton", "ok", "没有 triton 包：torch_npu 的 inductor 不走 Triton 代码生成；"
                                     "torch.compile 请用 aot_eager 或 npugraphs（npulab.bench.compile.choose_backend 会选）。")
    return Check("triton", "warn",
                 f"torch_npu 旁边{status.describe()}。torch_npu 看到任何 triton 就让 inductor 生成 Triton-Ascend 代码，"
                 "torch.compile(backend=\"inductor\") 第一步就会报 No module named 'triton.language.extra.ascend'。",
                 "在这个环境里 pip uninstall -y triton（课程的 scripts/python_packages.sh 在装 requirements-npu.txt 后会自动做）；"
                 "要 inductor 就换到装有配套 Triton-Ascend 的环境（python -m npulab doctor --stack triton-ascend --python <该环境的 python>）。")


def _check_alignment(ctx: _Context) -> Check:
    torch, torch_npu = ctx.dist_version("torch"), ctx.dist_version("torch-npu")
    cann = ctx.install.version if ctx.install else None
    python = ".".join(map(str, sys.version_info[:3]))
    if torch_npu is None and cann is None:
        hint = ""
        if torch and try_parse(torch):
            rows = torch_npu_for(torch)
            hint = (f"；到昇腾机器上，PyTorch {torch} 可配 torch_npu {rows[0]['torch_npu']} + CANN {rows[0]['cann']}"
                    if rows else f"；PyTorch {torch} 在官方配套表中还没有对应的 torch_npu")
        return Check("version_alignment", "skip", f"没有 torch_npu 与 CANN，无需对照{hint}：{CPU_MODE}。")
    result = check_alignment(torch=torch, torch_npu=torch_npu, cann=cann, python=python)
    return Check("version_alignment", result.status, result.message, result.fix)


def _check_cann_deps(ctx: _Context) -> Check:
    missing = [name for name in CANN_DEPS_REQUIRED if ctx.dist_version(name) is None]
    too_old = [f"{name}（{ctx.dist_version(name)} < {low}）" for name, low in CANN_DEPS_REQUIRED.items()
               if low and ctx.dist_version(name) and not _newer_or_equal(ctx.dist_version(name), low)]
    optional = [name for name in CANN_DEPS_RECOMMENDED if ctx.dist_version(name) is None]
    install = "pip install " + " ".join(missing + optional) if (missing or optional) else ""
    if not ctx.has_cann:
        state = f"在昇腾机器上还需安装：{', '.join(missing + optional)}" if missing or optional else "均已安装"
        return Check("cann_python_deps", "skip", f"CANN 所需的 Python 包（TBE/图引擎）{state}；{CPU_MODE}。", install)
    if missing or too_old:
        return Check("cann_python_deps", "fail", "CANN 所需的 Python 包缺失或过旧：" + "、".join(missing + too_old) + "。",
                     (install or "pip install -U " + " ".join(n.split("（")[0] for n in too_old)) + "。" + GE_CHAIN)
    protobuf = _protobuf_conflict(ctx)
    if protobuf:
        return Check("cann_python_deps", "warn", protobuf[0], protobuf[1])
    if optional:
        return Check("cann_python_deps", "warn", "原文的 TBE 依赖清单还列出这些包（CANN 9.1 官方清单没有）：" + "、".join(optional) + "。",
                     install)
    return Check("cann_python_deps", "ok", "CANN 所需的 Python 包均已安装：" + "、".join(CANN_DEPS_REQUIRED) + "。")


def _protobuf_conflict(ctx: _Context) -> tuple[str, str] | None:
    """(message, fix) when the CANN release's dependency table pins protobuf 3.20.x and another is installed."""
    version = ctx.dist_version("protobuf")
    cann = ctx.install.version if ctx.install else None
    if not version or not cann or not cann.startswith(PROTOBUF_320_CANN) or version.startswith("3.20"):
        return None
    return (f"CANN {cann} 的依赖表要求 protobuf 3.20.x，当前为 {version}（课程的 onnx 需要 protobuf ≥ 6.31，两者不能装在同一环境）。",
            "在 CANN 用的环境里 `pip install protobuf==3.20.3`，ONNX 导出放到另一个 venv；或升级到 CANN 9.1（其依赖表见 instg_0045 9.1.0）。")


def _check_chip(ctx: _Context) -> Check:
    """Which Ascend chip this is (npulab.env.chip_probe) and what it supports; the course default without an NPU."""
    has_npu = bool(ctx.nodes) and ctx.dist_version("torch-npu") is not None and ctx.probe_timeout > 0
    if not has_npu:  # no import of the chip table here: doctor must stay fast on a CPU machine
        return Check("chip", "skip", f"没有读到昇腾设备：课程按默认芯片 910B3 计算（报告或推导的数字，不是本机测得的）；"
                                     f"python -m npulab chips 列出课程认识的全部芯片；{CPU_MODE}。")
    from npulab.env.chip_probe import chip_check

    status, message, fix = chip_check(ctx.environ, has_npu=True, timeout=max(ctx.probe_timeout, 1.0))
    return Check("chip", status, message, fix)


_CHECKS: tuple[tuple[str, Callable[[_Context], Check]], ...] = (
    ("python", _check_python), ("numpy", _check_numpy), ("torch", _check_torch), ("mindspore", _check_mindspore),
    ("cann_install", _check_cann_install), ("cann_env", _check_cann_env), ("driver", _check_driver),
    ("device_nodes", _check_device_nodes), ("npu_smi", _check_npu_smi), ("visible_devices", _check_visible),
    ("torch_npu", _check_torch_npu), ("triton", _check_triton), ("version_alignment", _check_alignment),
    ("cann_python_deps", _check_cann_deps),
    ("chip", _check_chip),
)


def diagnose(
    ascend_root: str | Path | None = None,
    environ: Mapping[str, str] | None = None,
    *,
    dev_dir: str | Path = "/dev",
    versions: Mapping[str, str | None] | None = None,
    probe_timeout: float = 30.0,
) -> list[Check]:
    """Run every check; ``versions`` overrides installed package versions (name → version, None = absent)."""
    env = os.environ if environ is None else environ
    if ascend_root is not None:
        searched = [Path(ascend_root)]
        report = cann_install.describe(ascend_root)
    else:
        searched = cann_install.candidate_roots(env)
        report = next((r for r in map(cann_install.describe, searched) if r.installs), None)
    ctx = _Context(env, report, searched, cann_install.device_nodes(dev_dir), _versions_lookup(versions), probe_timeout)
    checks = []
    for check_id, func in _CHECKS:
        try:
            checks.append(func(ctx))
        except Exception as err:  # a bug in one check must not hide the others
            checks.append(Check(check_id, "warn", f"检查时出现内部错误：{type(err).__name__}: {err}",
                                "请把这条信息报告给课程维护者。"))
    return checks


def exit_code(checks: list[Check]) -> int:
    """1 when any check failed, else 0."""
    return EXIT_FAIL if any(c.status == "fail" for c in checks) else EXIT_OK


def render(checks: list[Check]) -> str:
    """The human-readable report: one line per check with a ✓ / ! / ✗ / - mark, fixes indented below."""
    width = max(len(c.id) for c in checks)
    lines = ["昇腾 NPU 课程环境检查", ""]
    for c in checks:
        lines.append(f"  {MARKS[c.status]} {c.id:<{width}}  {c.message}")
        if c.fix and c.status in ("warn", "fail"):
            lines.append(f"    {'':<{width}}  修复：{c.fix}")
    counts = {s: sum(c.status == s for c in checks) for s in STATUSES}
    lines += ["", f"通过 {counts['ok']} 项，警告 {counts['warn']} 项，失败 {counts['fail']} 项，跳过 {counts['skip']} 项。",
              "图例：✓ 通过  ! 警告  ✗ 失败  - 跳过",
              EXPLAIN_HINT]
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------------------------------------------


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help='以 JSON 输出：{"checks": [{"id", "status", "message", "fix"}, ...]}')
    parser.add_argument("--ascend-root", metavar="DIR",
                        help="CANN 安装根目录（默认依次查找已加载环境所在目录、/usr/local/Ascend、~/Ascend）")
    parser.add_argument("--probe-timeout", type=float, default=30.0, metavar="SECONDS",
                        help="导入 torch_npu 的子进程最多等待的秒数（仅在已安装 torch_npu 时运行；0 表示不测试）")
    parser.add_argument("--stack", metavar="NAME",
                        help="只对照一个软件栈（npulab/data/stacks.yaml：course、vllm-ascend、mindspeed-llm、ms-swift、"
                             "triton-ascend、mindspore）检查当前环境的 torch / torch_npu / CANN / Python 等版本")
    parser.add_argument("--python", metavar="PATH",
                        help="与 --stack 一起用：核对另一个解释器（该栈的 venv 目录或它的 bin/python）里装的版本；"
                             "那个环境不必装 npulab，Python 3.8 起都行（MindSpeed-LLM 的 3.10、vLLM-Ascend 镜像的 3.12）")


def build_parser(subparsers, name: str) -> None:
    """Add the ``doctor`` sub-command."""
    parser = subparsers.add_parser(name, help="检查 Python、框架、CANN、驱动与 NPU 环境",
                                   description="检查课程环境并给出修复建议。没有 NPU 的机器上，与 NPU 相关的项会被跳过。")
    _add_arguments(parser)
    parser.set_defaults(run=run)


def loaded_cann_check(stack: str, environ: Mapping[str, str] | None = None) -> Check:
    """Which CANN this process (a Jupyter kernel, a shell) has loaded, against the CANN that ``stack`` needs."""
    from npulab.env import stack_check

    wanted = stack_check.stacks()[stack].get("cann")
    loaded = cann_install.loaded_install(environ)
    if loaded is None:
        return Check("loaded_cann", "skip", "本进程没有加载 CANN 环境（没有 source 过 set_env.sh）。",
                     f"启动内核或 Python 前 source 该栈的 CANN 的 set_env.sh（要求 {wanted}）" if wanted else "")
    where = f"ASCEND_HOME_PATH={loaded.path}"
    if not wanted:
        return Check("loaded_cann", "ok", f"本进程加载的是 CANN {loaded.version or '版本未知'}（{where}）；{stack} 没有写 CANN 要求。")
    if loaded.version is None:
        return Check("loaded_cann", "warn", f"本进程加载的 CANN 读不出版本（{where}；{'；'.join(loaded.problems)}）。",
                     f"{stack} 要求 CANN {wanted}：核对 {loaded.path} 下的版本文件。")
    row = next(c for c in stack_check.check_stack(stack, versions=lambda name: None, cann=loaded.version)
               if c.id == "CANN")
    if row.status == "ok":
        return Check("loaded_cann", "ok", f"本进程加载的是 CANN {loaded.version}（{where}），符合 {stack} 的要求 {wanted}。")
    return Check("loaded_cann", "fail", f"本进程加载的是 CANN {loaded.version}（{where}），{stack} 要求 {wanted}。",
                 f"换用这个栈自己的内核（python -m npulab kernelspec --stack {stack} --cann <CANN {wanted} 的目录> "
                 f"--venv <该栈的 venv>），或在新 shell 里 source 那套 CANN 的 set_env.sh 后再启动。")


def _run_stack(stack: str, root: str | None, as_json: bool, python: str | None = None) -> int:
    """``doctor --stack``: the stack-check table, then which CANN the checked interpreter has loaded against the
    stack's (``python``: another interpreter, asked through npulab/env/stack_probe.py)."""
    import contextlib
    import io

    from npulab.env import stack_check
    from npulab.env import stacks as stack_data

    stack_data.get(stack)  # an unknown stack is a usage error before an interpreter is run
    probe = stack_check.probe_python(python) if python else None
    environ = {k: v for k, v in probe["environ"].items() if v} if probe else None
    if not as_json:
        code = stack_check.run(stack, root, False, probe=probe)
        check = loaded_cann_check(stack, environ)
        print(f"{MARKS[check.status]} 本进程加载的 CANN：{check.message}" + (f"\n  修复：{check.fix}" if check.fix and
                                                                        check.status in ("warn", "fail") else ""))
        return EXIT_FAIL if check.status == "fail" else code
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        code = stack_check.run(stack, root, True, probe=probe)
    document = json.loads(buffer.getvalue())
    check = loaded_cann_check(stack, environ)
    document["loaded_cann"] = check.as_dict()
    print(json.dumps(document, ensure_ascii=False, indent=2))
    return EXIT_FAIL if check.status == "fail" else code


def run(args) -> int:
    """Run the doctor for parsed arguments; print a report or JSON; return 0, 1 or 2."""
    root = getattr(args, "ascend_root", None)
    if root is not None:
        path = Path(root)
        if not path.exists():
            raise UsageError(f"--ascend-root 指定的目录不存在：{root}")
        if not path.is_dir():
            raise UsageError(f"--ascend-root 应当是目录：{root}")
    if getattr(args, "python", None) and not getattr(args, "stack", None):
        raise UsageError("--python 只与 --stack 一起用：python -m npulab doctor --stack 栈名 --python <该栈的 python>")
    if getattr(args, "stack", None):
        return _run_stack(args.stack, root, args.json, getattr(args, "python", None))
    checks = diagnose(root, probe_timeout=getattr(args, "probe_timeout", 30.0))
    if args.json:
        print(json.dumps({"checks": [c.as_dict() for c in checks]}, ensure_ascii=False, indent=2))
    else:
        print(render(checks))
    return exit_code(checks)
