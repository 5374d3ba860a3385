#!/usr/bin/env bash
# Build the ReluCustom operator package and install it into this machine's CANN (course 06, Apache-2.0).
#
#   bash build_and_install.sh [SOC_VERSION]
#
# SOC_VERSION is "Ascend" + the Name column of `npu-smi info` (default Ascend910B3). Needs CANN's
# environment (source .../cann/set_env.sh, or .../ascend-toolkit/set_env.sh before CANN 8.5), cmake >= 3.19
# and msopgen (part of the CANN toolkit). Steps: msopgen generates the project skeleton from relu_custom.json;
# our op_host / op_kernel sources and CMakePresets.json replace the generated stubs; build.sh compiles the
# kernel binaries, liboptiling.so, the op proto library and the aclnn API (aclnn_relu_custom.h +
# libcust_opapi.so) into build_out/custom_opp_<os>_<arch>.run, which installs to
# $ASCEND_OPP_PATH/vendors/npulab.
set -euo pipefail

SOC_VERSION="${1:-Ascend910B3}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
WORK="${HERE}/build/ReluCustom"

# CMakePresets.json (ASCEND_COMPUTE_UNIT=ascend910b) and op_host's AddConfig("ascend910b") cover the Atlas A2
# (Ascend910B) family only; any other SoC would build a package that cannot run there, so refuse it up front.
case "${SOC_VERSION}" in
    Ascend910B1|Ascend910B2|Ascend910B2C|Ascend910B3|Ascend910B4|Ascend910B4-1) ;;
    *)
        echo "错误：不支持 ${SOC_VERSION}。本工程的 CMakePresets.json（ASCEND_COMPUTE_UNIT=ascend910b）与 op_host 中的 AddConfig(\"ascend910b\") 只覆盖 Atlas A2（Ascend910B1/B2/B2C/B3/B4/B4-1）；其他芯片要先改这两处" >&2
        exit 2
        ;;
esac

if [ -z "${ASCEND_HOME_PATH:-}" ]; then
    echo "错误：没有 CANN 环境。请先 source /usr/local/Ascend/cann/set_env.sh（CANN 8.5 之前是 ascend-toolkit/set_env.sh）" >&2
    exit 2
fi
if ! command -v msopgen >/dev/null 2>&1; then
    echo "错误：找不到 msopgen（CANN toolkit 的算子工程生成工具）" >&2
    exit 2
fi

rm -rf "${WORK}"
mkdir -p "$(dirname "${WORK}")"
msopgen gen -i "${HERE}/relu_custom.json" -c "ai_core-${SOC_VERSION}" -lan cpp -out "${WORK}"

cp "${HERE}/op_host/relu_custom.cpp" "${HERE}/op_host/relu_custom_tiling.h" "${WORK}/op_host/"
cp "${HERE}/op_kernel/relu_custom.cpp" "${WORK}/op_kernel/"
# our presets, pointed at the CANN this shell has loaded
python3 - "${HERE}/CMakePresets.json" "${WORK}/CMakePresets.json" "${ASCEND_HOME_PATH}" <<'PY'
import json
import sys

source, target, cann = sys.argv[1:]
with open(source, encoding="utf-8") as f:
    presets = json.load(f)
presets["configurePresets"][0]["cacheVariables"]["ASCEND_CANN_PACKAGE_PATH"]["value"] = cann
with open(target, "w", encoding="utf-8") as f:
    json.dump(presets, f, indent=4)
PY

(cd "${WORK}" && bash build.sh)
PACKAGE="$(ls "${WORK}"/build_out/custom_opp_*.run | head -n 1)"
echo "安装 ${PACKAGE} → ${ASCEND_OPP_PATH}/vendors/npulab"
bash "${PACKAGE}"
