/*
 * ReluCustom: the tiling data the host computes and every core of the kernel reads.
 * Course "昇腾 NPU 编程实战", chapter 06 (Apache-2.0).
 *
 * The Python model npulab.ascendc.tiling.ReluTiling carries the same fields
 * (total_length, block_length, tile_length; block_dim = SetBlockDim; buffer_num = BUFFER_NUM).
 */
#ifndef RELU_CUSTOM_TILING_H
#define RELU_CUSTOM_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(ReluCustomTilingData)
    TILING_DATA_FIELD_DEF(uint32_t, totalLength);  // elements of x (all cores together)
    TILING_DATA_FIELD_DEF(uint32_t, blockLength);  // elements per core; the last core takes the rest
    TILING_DATA_FIELD_DEF(uint32_t, tileLength);   // elements per tile; the last tile of a core may be shorter
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(ReluCustom, ReluCustomTilingData)
}  // namespace optiling

#endif  // RELU_CUSTOM_TILING_H
