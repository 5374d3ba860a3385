#!/usr/bin/env bash
# Build and run the aclnn caller of ReluCustom (course 06). Usage: bash run.sh [length] [device_id]
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cmake -S "${HERE}" -B "${HERE}/build"
cmake --build "${HERE}/build" -j
"${HERE}/build/relu_custom_aclnn" "$@"
