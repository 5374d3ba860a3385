#!/usr/bin/env bash
# Install the course's Python packages into the virtual environment whose pip is $PIP.
#
# torch: on x86_64 the default PyPI wheel is the CUDA build (gigabytes, and next to torch_npu it fails with
# "Two accelerators cannot be used at the same time"), so the CPU build is taken from the PyTorch CPU index
# (its "+cpu" local version sorts above the plain one). Where that index cannot be reached (a mirror-only or
# offline network), pip gives up on it after a short timeout and installs what the reachable indexes offer.
# On aarch64 the PyPI wheel is already the CPU build.
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
install() { $PIP install -q "$@"; }
installed() { $PIP list --format=freeze 2>/dev/null; }
uninstall() { $PIP uninstall -y -q "$@"; }
patience=(--timeout 10 --retries 1)  # pip: give up on an unreachable index quickly
compiled=()  # pip compiles what it installs
if [ "${NPULAB_INSTALLER:-uv}" = uv ] && [ "$PY" != "$PIP" ] && $PIP install -q "$UV_PIN" 2>/dev/null; then
  mapfile -t uv_opts < <("$PY" scripts/uv_args.py)
  install() { "$(dirname "$PY")/uv" pip install -q --python "$PY" "${uv_opts[@]}" "$@"; }
  installed() { "$(dirname "$PY")/uv" pip list --python "$PY" --format=freeze 2>/dev/null; }
  uninstall() { "$(dirname "$PY")/uv" pip uninstall -q --python "$PY" "$@"; }
  patience=()  # uv fails at once on a name it cannot resolve
  # uv writes no .pyc files unless asked, and the Makefile sets PYTHONDONTWRITEBYTECODE: without this every kernel
  # and test process would compile torch, transformers … from source again (CI measured nbval 585 s instead of ~340 s).
  # It compiles the whole site-packages, so the torch step goes without.
  compiled=(--compile-bytecode)
else
  $PIP install -q --upgrade pip
fi
if [ "$ARCH" = x86_64 ]; then
  torch_pin=$(grep -E '^torch==' requirements.txt | cut -d' ' -f1)
  echo "x86_64：从 PyTorch CPU 索引安装 ${torch_pin} 的 CPU 版本（不可达时回退到可用的索引）"
  install "${patience[@]}" --extra-index-url "$CPU_INDEX" "$torch_pin" 2>/dev/null \
    || echo "PyTorch CPU 索引不可用：torch 改由可达的索引安装（x86_64 上请确认装到的是 CPU 版）"
fi
install "${compiled[@]}" -r requirements.txt
if [ -n "${ASCEND_HOME_PATH:-}${ASCEND_TOOLKIT_HOME:-}" ]; then
  echo "检测到已加载的 CANN 环境：安装 requirements-npu.txt"
  install "${compiled[@]}" -r requirements-npu.txt
  packages=$(installed)
  if grep -qiE '^triton-ascend==' <<<"$packages"; then
    echo "环境里装有 Triton-Ascend：保留它（torch.compile 的 inductor 可在 NPU 上生成融合算子）"
  elif grep -qiE '^triton==' <<<"$packages"; then
    echo "卸载社区版 triton：torch_npu 见到任何 triton 就让 inductor 走 Triton-Ascend 代码生成，社区版缺它要的模块，"
    echo "  torch.compile 第一步就会失败；这个环境的 torch.compile 用 aot_eager / npugraphs，第 06 章第 2 节用 triton-ascend 栈的环境"
    uninstall triton
  fi
fi
