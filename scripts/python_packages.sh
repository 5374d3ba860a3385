#!/usr/bin/env bash
# Install the course's Python packages into the virtual environment whose pip is $PIP.
#
# torch comes from the PyTorch CPU index ($NPULAB_TORCH_CPU_INDEX, default https://download.pytorch.org/whl/cpu) on
# x86_64 and aarch64 alike: PyPI's torch wheel is the CUDA build on x86_64 and, since torch 2.11, on aarch64 too
# (resolving torch==2.13.0 for aarch64-unknown-linux-gnu against PyPI brings cuda-toolkit, nvidia-cudnn-cu13,
# nvidia-nccl-cu13 … — gigabytes, and next to torch_npu it fails with "Two accelerators cannot be used at the same
# time"; the Ascend/pytorch README at tag v26.1.0-pytorch2.12.0 installs aarch64 torch from the CPU index too).
# The pin of requirements.txt (and of requirements-npu.txt on an Ascend host) is installed first, alone (--no-deps) and
# with the CPU index as the only index, so no CUDA build can be picked. Where that index cannot be reached:
#   x86_64: the install goes on with the reachable indexes (a mirror or wheel house may hold the "+cpu" wheel);
#   aarch64: it stops with the way out (NPULAB_TORCH_CPU_INDEX=<a mirror of the CPU index>), since every reachable
#            PyPI mirror offers only the CUDA build.
# At the end, on both, an environment that holds any nvidia-* / cuda-* package (a CUDA torch got in) fails the install.
# CANN loaded in this shell (set_env.sh sourced) adds requirements-npu.txt, the matching torch / torch-npu pair, and
# then removes community triton (requirements.txt installs it for the CPU Triton lesson): torch_npu 2.12 sends
# torch.compile's inductor down its Triton-Ascend path as soon as any `triton` is importable, and community triton
# lacks the modules that path imports (torch_npu/_inductor/npu_triton_helpers.py at tag v26.1.0-pytorch2.12.0), so the
# first compiled step would fail. A Triton-Ascend install (same `triton` directory) is left alone.
set -euo pipefail
PIP=${PIP:?PIP must name the venv pip, e.g. .venv/bin/python -m pip}
ARCH=${NPULAB_ARCH:-$(uname -m)}
CPU_INDEX=${NPULAB_TORCH_CPU_INDEX:-https://download.pytorch.org/whl/cpu}
cd "$(dirname "$0")/.."

# uv resolves and installs the same pins several times faster than pip (≈ 2 min instead of ≈ 6 on a 2-core
# machine, docs/DECISIONS.md); it gets pip's configuration (mirror, find-links, constraints: scripts/uv_args.py).
# NPULAB_INSTALLER=pip, or a uv that cannot be installed, keeps plain pip.
UV_PIN=uv==0.13.9
PY=${PIP% -m pip}
# neither installer compiles bytecode: Python does on first import, into the Makefile's cache (PYTHONPYCACHEPREFIX),
# only for what is imported (`make bytecode` compiles the whole venv for a shared one)
install() { $PIP install -q --no-compile "$@"; }
install_torch() { install "$@"; }
installed() { $PIP list --format=freeze 2>/dev/null; }
uninstall() { $PIP uninstall -y -q "$@"; }
patience=(--timeout 10 --retries 1)  # pip: give up on an unreachable index quickly
if [ "${NPULAB_INSTALLER:-uv}" = uv ] && [ "$PY" != "$PIP" ] && $PIP install -q "$UV_PIN" 2>/dev/null; then
  mapfile -t uv_opts < <("$PY" scripts/uv_args.py)
  uv_torch_opts=()  # the same without pip's index-url: the torch step names its own (uv takes only one)
  for ((i = 0; i < ${#uv_opts[@]}; i++)); do
    if [ "${uv_opts[i]}" = --index-url ]; then i=$((i + 1)); else uv_torch_opts+=("${uv_opts[i]}"); fi
  done
  install() { "$(dirname "$PY")/uv" pip install -q --python "$PY" "${uv_opts[@]}" "$@"; }
  install_torch() { "$(dirname "$PY")/uv" pip install -q --python "$PY" "${uv_torch_opts[@]}" "$@"; }
  installed() { "$(dirname "$PY")/uv" pip list --python "$PY" --format=freeze 2>/dev/null; }
  uninstall() { "$(dirname "$PY")/uv" pip uninstall -q --python "$PY" "$@"; }
  patience=()  # uv fails at once on a name it cannot resolve
else
  $PIP install -q --upgrade pip
fi
# the torch pin of requirements file $1, alone, from the CPU index only (header); unreachable: see the header
cpu_torch() {
  local pin
  pin=$(grep -E '^torch==' "$1" | cut -d' ' -f1)
  echo "${ARCH}：从 PyTorch CPU 索引 ${CPU_INDEX} 安装 ${pin} 的 CPU 版本"
  install_torch "${patience[@]}" --no-deps --index-url "$CPU_INDEX" "$pin" 2>/dev/null && return
  if [ "$ARCH" = x86_64 ]; then
    echo "PyTorch CPU 索引不可用：torch 改由可达的索引安装（装完后检查环境里没有 CUDA 版）"
    return
  fi
  echo "无法从 PyTorch CPU 索引 ${CPU_INDEX} 安装 ${pin}，安装停止。" >&2
  echo "  ${ARCH} 上 PyPI 的 torch（2.11 起）是 CUDA 版，会带进数 GB 的 nvidia-* 包，所以这里不回退到 PyPI。" >&2
  echo "  请让这台机器能访问该索引，或把 NPULAB_TORCH_CPU_INDEX 指向它的镜像（PEP 503 格式，含 ${pin} 的 CPU 版 wheel），再运行一次：" >&2
  echo "    NPULAB_TORCH_CPU_INDEX=https://<镜像>/whl/cpu make venv" >&2
  exit 1
}
cpu_torch requirements.txt
install -r requirements.txt
if [ -n "${ASCEND_HOME_PATH:-}${ASCEND_TOOLKIT_HOME:-}" ]; then
  echo "检测到已加载的 CANN 环境：安装 requirements-npu.txt"
  cpu_torch requirements-npu.txt
  install -r requirements-npu.txt
  packages=$(installed)
  if grep -qiE '^triton-ascend==' <<<"$packages"; then
    echo "环境里装有 Triton-Ascend：保留它（torch.compile 的 inductor 可在 NPU 上生成融合算子）"
  elif grep -qiE '^triton==' <<<"$packages"; then
    echo "卸载社区版 triton：torch_npu 见到任何 triton 就让 inductor 走 Triton-Ascend 代码生成，社区版缺它要的模块，"
    echo "  torch.compile 第一步就会失败；这个环境的 torch.compile 用 aot_eager / npugraphs，第 06 章第 2 节用 triton-ascend 栈的环境"
    uninstall triton
  fi
fi
# rfc3987-syntax comes in only through jupyter-events' jsonschema[format-nongpl] extra, to check the "iri" string format;
# importing it builds an Earley parser (about 2 s on a 2-core machine), and jsonschema imports it whenever it is
# installed: every process that reads a notebook (nbformat), builds the book, runs nbval or starts a Jupyter server paid
# that. Nothing here validates "iri" strings; without the package jsonschema skips that one format (pip check is clean)
packages=$(installed)
if grep -qiE '^rfc3987-syntax==' <<<"$packages"; then
  uninstall rfc3987-syntax
fi
# no CUDA build may stay: a torch that came from a CUDA index brings nvidia-* / cuda-* packages on both architectures
cuda=$(grep -iE '^(nvidia-|cuda-)' <<<"$packages" | cut -d= -f1 | tr '\n' ' ' || true)
if [ -n "$cuda" ]; then
  echo "环境里装进了 CUDA 版 torch 的依赖：${cuda}" >&2
  echo "  这门课在 CPU 或昇腾 NPU 上运行，需要 CPU 版 torch。删掉这个 venv，让 PyTorch CPU 索引可达" >&2
  echo "  （或 NPULAB_TORCH_CPU_INDEX=<它的镜像>）后重新运行 make venv。" >&2
  exit 1
fi
