/*
 * ReluCustom, host side: tiling function, shape and dtype inference, operator registration.
 * Course "昇腾 NPU 编程实战", chapter 06 (Apache-2.0).
 *
 * TilingFunc is mirrored step for step by npulab.ascendc.tiling.plan_tiling; change both together.
 */
#include <algorithm>
#include <cstdint>

#include "graph/utils/type_utils.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

#include "relu_custom_tiling.h"

namespace optiling {
constexpr uint32_t BLOCK_BYTES = 32;  // UB block size (ubblock_size): DataCopy moves whole 32-byte blocks
constexpr uint32_t BUFFER_NUM = 2;    // buffers per queue; must equal BUFFER_NUM in op_kernel/relu_custom.cpp
constexpr uint32_t QUEUE_COUNT = 2;   // inQueueX (VECIN) and outQueueY (VECOUT)
constexpr uint32_t MIN_CORE_BYTES = 8192;  // every core but a lone one gets >= 8 KiB: small inputs use few cores

static uint64_t CeilDiv(uint64_t a, uint64_t b)
{
    return (a + b - 1) / b;
}

static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint64_t ubBytes = 0;
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubBytes);  // 192 KiB on 910B3
    uint64_t coreNum = platform.GetCoreNumAiv();                            // 40 vector cores on 910B3

    uint32_t typeBytes = 0;
    ge::TypeUtils::GetDataTypeLength(context->GetInputDesc(0)->GetDataType(), typeBytes);
    uint64_t totalLength = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
    if (typeBytes == 0 || BLOCK_BYTES % typeBytes != 0 || coreNum == 0 || totalLength > UINT32_MAX) {
        return ge::GRAPH_FAILED;
    }

    uint64_t blockDim = 1;
    uint64_t blockLength = 0;
    uint64_t tileLength = 0;
    if (totalLength > 0) {
        // 1. count the input in 32-byte blocks, so that every core starts on a block boundary
        uint64_t alignElems = BLOCK_BYTES / typeBytes;
        uint64_t blocks = CeilDiv(totalLength, alignElems);
        // 2. one core per whole MIN_CORE_BYTES of input (at least one, at most all vector cores); every
        //    core gets the same whole number of blocks and the last core takes what is left
        uint64_t cores = std::max<uint64_t>(1, std::min(coreNum, blocks / (MIN_CORE_BYTES / BLOCK_BYTES)));
        uint64_t blocksPerCore = CeilDiv(blocks, cores);
        blockDim = CeilDiv(blocks, blocksPerCore);
        blockLength = blocksPerCore * alignElems;
        // 3. the largest tile whose buffers fit the UB: QUEUE_COUNT queues x BUFFER_NUM buffers
        uint64_t tileBytes = ubBytes / (QUEUE_COUNT * BUFFER_NUM) / BLOCK_BYTES * BLOCK_BYTES;
        tileLength = std::min(tileBytes / typeBytes, blockLength);
    }

    context->SetBlockDim(static_cast<uint32_t>(blockDim));
    ReluCustomTilingData tiling;
    tiling.set_totalLength(static_cast<uint32_t>(totalLength));
    tiling.set_blockLength(static_cast<uint32_t>(blockLength));
    tiling.set_tileLength(static_cast<uint32_t>(tileLength));
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());

    size_t *workspaceSizes = context->GetWorkspaceSizes(1);  // the kernel needs no GM scratch space
    workspaceSizes[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ge {
static graphStatus InferShape(gert::InferShapeContext *context)
{
    const gert::Shape *xShape = context->GetInputShape(0);
    gert::Shape *yShape = context->GetOutputShape(0);
    *yShape = *xShape;  // elementwise: y has the shape of x
    return GRAPH_SUCCESS;
}

static graphStatus InferDataType(gert::InferDataTypeContext *context)
{
    context->SetOutputDataType(0, context->GetInputDataType(0));
    return GRAPH_SUCCESS;
}
}  // namespace ge

namespace ops {
class ReluCustom : public OpDef {
public:
    explicit ReluCustom(const char *name) : OpDef(name)
    {
        this->Input("x")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16, ge::DT_FLOAT, ge::DT_INT32})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("y")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16, ge::DT_FLOAT, ge::DT_INT32})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});

        this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
        this->AICore()
            .SetTiling(optiling::TilingFunc)
            .AddConfig("ascend910b");  // Atlas A2 training / inference series (910B)
    }
};

OP_ADD(ReluCustom);
}  // namespace ops
