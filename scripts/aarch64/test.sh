#!/usr/bin/env bash
# make test-aarch64: the course's install and first lessons on linux-aarch64 (the Kunpeng hosts most Ascend servers
# are), under user-mode emulation (qemu-user-static + proot) in a Debian bookworm arm64 root (scripts/aarch64/root.sh).
#   1. the install as written (Makefile's venv recipe: python3.11 -m venv, scripts/python_packages.sh) must take torch
#      from the PyTorch CPU index and, where that index is unreachable, stop without installing a CUDA torch;
#   2. SUBSTITUTION, only for this run and only where download.pytorch.org is unreachable (NPULAB_AARCH64_TORCH=auto):
#      NPULAB_TORCH_CPU_INDEX points at a local PEP 503 index holding PyPI's real torch 2.10.0 aarch64 wheel (the last
#      CPU-only aarch64 torch on PyPI; 2.11+ there are CUDA builds), the staged copy's torch pin becomes 2.10.0, and its
#      requirements.txt keeps only what the checks below need (LESSON_PACKAGES); the install script is the course's own;
#   3. import torch, pick_device, python -m npulab doctor, lessons 01/01 and 03/01 under nbval (03/01's training scripts
#      with NPULAB_SCRIPT_TIMEOUT_S=1800: emulation is two orders of magnitude slower than the host);
#   4. no CUDA library or NVIDIA wheel in the venv.
# Each stage's wall time is printed and written to _build/aarch64/times.txt; the whole log to _build/aarch64/log.txt.
set -euo pipefail
cd "$(dirname "$0")/../.."
REPO=$PWD
CACHE=${NPULAB_AARCH64_CACHE:-$HOME/.cache/npulab/aarch64}
OUT=$REPO/_build/aarch64
SUB_TORCH=2.10.0  # PyPI's last CPU-only linux-aarch64 torch (2.11.0 aarch64 resolves to cuda-toolkit + nvidia-*)
LESSON_PACKAGES="torch numpy pyyaml matplotlib nbval nbformat nbclient pytest"  # of requirements.txt
# run_script's limit for the training scripts of 03/01 (300 s by default): 20 steps of its small CNN took 851 s under
# emulation on a 2-core Xeon host (docs/aarch64.md), so the emulated run allows 30 min each
SCRIPT_TIMEOUT_S=${NPULAB_SCRIPT_TIMEOUT_S:-1800}
LESSONS=(chapters/01_environment/01_environment_setup.ipynb chapters/03_pytorch_npu/01_cuda_to_npu_migration.ipynb)

for tool in mmdebstrap proot qemu-aarch64-static; do
  command -v "$tool" >/dev/null || { echo "缺少 $tool：sudo apt-get install -y --no-install-recommends mmdebstrap proot qemu-user-static"; exit 2; }
done
mkdir -p "$OUT" "$CACHE"
: > "$OUT/times.txt"
exec > >(tee "$OUT/log.txt") 2>&1
failed=0
stage() {  # stage NAME COMMAND…: run, time, record
  local name=$1 start rc=0
  shift
  echo; echo "== ${name}"
  start=$(date +%s.%N)
  "$@" || rc=$?
  printf '%-58s %7.1f s  %s\n' "$name" "$(awk "BEGIN { print $(date +%s.%N) - $start }")" "$([ "$rc" = 0 ] && echo 通过 || echo "失败 ($rc)")" \
    | tee -a "$OUT/times.txt"
  [ "$rc" = 0 ] || failed=1
  return 0
}

ROOT=
make_root() { ROOT=$(scripts/aarch64/root.sh); }
stage "arm64 根文件系统（Debian bookworm，缓存于 $CACHE）" make_root
[ -n "$ROOT" ] || exit 1
STAGE=$CACHE/course INDEX=$CACHE/index
mkdir -p "$INDEX"
emu() { scripts/aarch64/emulate.sh "$ROOT" "$STAGE" "$INDEX" "$@"; }

stage_course() {  # the working tree as git sees it (tracked and untracked-not-ignored files), without a venv
  rm -rf "$STAGE" && mkdir -p "$STAGE"
  git ls-files -co --exclude-standard -z | tar --null --ignore-failed-read -cf - -T - 2>/dev/null | tar -xf - -C "$STAGE"
}
stage "复制课程工作区到 /course" stage_course
stage "模拟环境：uname -m 与 Python" emu sh -c 'uname -m && python3.11 -c "import platform, sys; print(platform.machine(), sys.version.split()[0])"'

# 1. the install as written (Makefile's $(STAMP) recipe), against the real PyTorch CPU index
as_written() {
  local rc=0
  emu python3.11 -m venv .venv || return 1
  emu PIP=".venv/bin/python -m pip" ./scripts/python_packages.sh > "$OUT/as_written.txt" 2>&1 || rc=$?
  cat "$OUT/as_written.txt"
  if [ "$rc" = 0 ]; then
    echo "按原样安装成功了：PyTorch CPU 索引可达，不需要替换，下面的检查用课程钉住的 torch"; return 0
  fi
  grep -q "安装停止" "$OUT/as_written.txt" || { echo "安装失败，但不是因为 CPU 索引不可达（见上）"; return 1; }
  if emu .venv/bin/python -m pip list --format=freeze | grep -iE '^(torch|nvidia-|cuda-)'; then
    echo "停下了，但 venv 里已经有 torch 或 CUDA 包"; return 1
  fi
  echo "安装器：$(emu .venv/bin/uv --version 2>/dev/null || echo "pip（uv 没装上）")"
  echo "结果：PyTorch CPU 索引不可达，安装脚本在装 torch 之前停下，venv 里没有 torch，也没有 nvidia-*/cuda-* 包"
  SUBSTITUTE=1
}
SUBSTITUTE=0
stage "1. 按 README 安装（python_packages.sh，真实的 CPU 索引）" as_written

# 2. the substitution (only when 1 stopped at the unreachable index)
substitute() {
  local wheel=torch-${SUB_TORCH}-cp311-cp311-manylinux_2_28_aarch64.whl pattern
  echo "【替换，仅本次运行】download.pytorch.org 不可达：用 PyPI 上真实的 torch ${SUB_TORCH} aarch64 CPU 版 wheel"
  echo "  建一个本地 PEP 503 索引，NPULAB_TORCH_CPU_INDEX=file:///npulab-index/simple；暂存副本里的 torch 钉为 ${SUB_TORCH}（课程钉的是"
  echo "  $(grep -E '^torch==' requirements.txt | cut -d' ' -f1)），requirements.txt 只保留这些检查用到的包：${LESSON_PACKAGES}"
  mkdir -p "$INDEX/simple/torch"
  if [ ! -f "$INDEX/$wheel" ]; then  # pip checks the download against PyPI's sha256
    ${PYTHON:-python3} -m pip download -q --isolated --disable-pip-version-check --no-deps --only-binary :all: --platform manylinux_2_28_aarch64 \
      --python-version 3.11 --implementation cp --index-url "${NPULAB_PYPI_INDEX:-https://pypi.org/simple}" \
      "torch==${SUB_TORCH}" -d "$INDEX"
  fi
  local sha
  sha=$(sha256sum "$INDEX/$wheel" | cut -d' ' -f1)
  echo "  ${wheel}  sha256=${sha}"
  printf '<!DOCTYPE html><html><body><a href="../../%s#sha256=%s">%s</a></body></html>\n' "$wheel" "$sha" "$wheel" \
    > "$INDEX/simple/torch/index.html"
  pattern="^($(tr ' ' '|' <<<"$LESSON_PACKAGES"))[=<>~ ]"
  { grep -E "$pattern" requirements.txt | sed -E "s/^torch==[^ ]+/torch==${SUB_TORCH}/"
    # pyproject.toml's build-system requirement, which the Makefile's `pip install --no-build-isolation -e .` needs:
    # in the full install torch 2.13.0 brings setuptools, torch 2.10.0 does not (ensurepip's 66.1.1 has no bdist_wheel)
    grep -oE 'setuptools>=[0-9.]+' pyproject.toml; } > "$STAGE/requirements.txt"
  echo "  暂存副本的 requirements.txt："; sed 's/^/    /' "$STAGE/requirements.txt"
  emu PIP=".venv/bin/python -m pip" NPULAB_TORCH_CPU_INDEX=file:///npulab-index/simple ./scripts/python_packages.sh \
    && emu .venv/bin/python -m pip install -q --no-deps --no-build-isolation -e . \
    && emu .venv/bin/python -m pip check
}
[ "$SUBSTITUTE" = 1 ] && stage "2. 【替换】本地索引的 torch ${SUB_TORCH} + 课程的 python_packages.sh" substitute

# 3. what a learner runs first
stage "3a. import torch" emu .venv/bin/python -c \
  'import platform, torch; print(platform.machine(), "torch", torch.__version__, "cuda", torch.version.cuda)'
stage "3b. npulab.core.device.pick_device()" emu .venv/bin/python -c \
  'from npulab.core.device import pick_device; print(pick_device())'
stage "3c. python -m npulab doctor" emu .venv/bin/python -m npulab doctor
for lesson in "${LESSONS[@]}"; do
  stage "3d. nbval ${lesson#chapters/}" emu NPULAB_SCRIPT_TIMEOUT_S=$SCRIPT_TIMEOUT_S .venv/bin/python -m pytest --nbval-lax --nbval-current-env \
    -o testpaths= -p no:cacheprovider -q "$lesson"
done

# 4. no CUDA in the venv
no_cuda() {
  local cuda libs
  cuda=$(emu .venv/bin/python -m pip list --format=freeze | grep -iE '^(nvidia-|cuda-)' || true)
  libs=$(find "$STAGE/.venv" -name 'libtorch_cuda*.so' -o -name 'libcudart*.so*' -o -name 'libcudnn*.so*' | sed "s#$STAGE#/course#")
  echo "pip list 中的 nvidia-*/cuda-*：${cuda:-无}"
  echo "venv 中的 libtorch_cuda*.so / libcudart / libcudnn：${libs:-无}"
  emu .venv/bin/python -c 'import torch; print("torch.version.cuda =", torch.version.cuda, "; torch.backends.cuda.is_built() =", torch.backends.cuda.is_built()); assert torch.version.cuda is None and not torch.backends.cuda.is_built()' \
    && [ -z "$cuda" ] && [ -z "$libs" ]
}
stage "4. venv 里没有 CUDA" no_cuda

echo; echo "== 各阶段用时（实测，本机 $(nproc) 核；$( [ "$SUBSTITUTE" = 1 ] && echo "torch 为【替换】的 ${SUB_TORCH}" || echo "torch 为课程钉住的版本")）"
cat "$OUT/times.txt"
exit "$failed"
