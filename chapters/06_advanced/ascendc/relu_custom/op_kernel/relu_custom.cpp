/*
 * ReluCustom, device side: y = max(x, 0) on the Vector cores of an Atlas A2 NPU.
 * Course "昇腾 NPU 编程实战", chapter 06 (Apache-2.0).
 *
 * Each core takes blockLength elements of x (the last core takes the rest) and walks through them
 * tile by tile in three stages that run on three different units:
 *   CopyIn  (MTE2)   GM -> UB   DataCopy, or DataCopyPad for a tail that is not whole 32-byte blocks
 *   Compute (Vector) UB -> UB   Relu
 *   CopyOut (MTE3)   UB -> GM   DataCopy, or DataCopyPad for the tail
 * The queues hand tiles from stage to stage; with BUFFER_NUM = 2 buffers per queue the copy of the
 * next tile overlaps the computation of the current one (double buffering).
 * npulab.ascendc.emulator.KernelReluCustom is the same class in Python.
 */
#include "kernel_operator.h"

constexpr int32_t BUFFER_NUM = 2;   // buffers per queue; must equal BUFFER_NUM in op_host/relu_custom.cpp
constexpr int32_t QUEUE_DEPTH = 1;  // at most one EnQue before the matching DeQue (independent of BUFFER_NUM)
constexpr uint32_t BLOCK_BYTES = 32;

template <typename T>
class KernelReluCustom {
public:
    __aicore__ inline KernelReluCustom() {}

    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t totalLength, uint32_t blockLength, uint32_t tileLength)
    {
        uint32_t blockIdx = AscendC::GetBlockIdx();
        uint32_t blockNum = AscendC::GetBlockNum();
        // the last core takes what is left after the others took blockLength each
        this->blockLength = (blockIdx == blockNum - 1) ? totalLength - blockLength * (blockNum - 1) : blockLength;
        this->tileLength = tileLength;
        this->tileNum = (tileLength == 0) ? 0 : (this->blockLength + tileLength - 1) / tileLength;
        if (this->tileNum == 0) {
            return;
        }
        this->lastTileLength = this->blockLength - tileLength * (this->tileNum - 1);

        xGm.SetGlobalBuffer((__gm__ T *)x + blockLength * blockIdx, this->blockLength);
        yGm.SetGlobalBuffer((__gm__ T *)y + blockLength * blockIdx, this->blockLength);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, tileLength * sizeof(T));
        pipe.InitBuffer(outQueueY, BUFFER_NUM, tileLength * sizeof(T));
    }

    __aicore__ inline void Process()
    {
        for (uint32_t i = 0; i < this->tileNum; i++) {
            uint32_t length = (i == this->tileNum - 1) ? this->lastTileLength : this->tileLength;
            CopyIn(i, length);
            Compute(length);
            CopyOut(i, length);
        }
    }

private:
    __aicore__ inline bool Aligned(uint32_t length)
    {
        return (length * sizeof(T)) % BLOCK_BYTES == 0;
    }

    __aicore__ inline void CopyIn(uint32_t progress, uint32_t length)
    {
        AscendC::LocalTensor<T> xLocal = inQueueX.AllocTensor<T>();
        if (Aligned(length)) {
            AscendC::DataCopy(xLocal, xGm[progress * this->tileLength], length);
        } else {
            // a tail that is not whole 32-byte blocks: DataCopy would round it down and lose the rest
            AscendC::DataCopyExtParams copyParams{1, static_cast<uint32_t>(length * sizeof(T)), 0, 0, 0};
            AscendC::DataCopyPadExtParams<T> padParams{false, 0, 0, 0};
            AscendC::DataCopyPad(xLocal, xGm[progress * this->tileLength], copyParams, padParams);
        }
        inQueueX.EnQue(xLocal);
    }

    __aicore__ inline void Compute(uint32_t length)
    {
        AscendC::LocalTensor<T> xLocal = inQueueX.DeQue<T>();
        AscendC::LocalTensor<T> yLocal = outQueueY.AllocTensor<T>();
        AscendC::Relu(yLocal, xLocal, static_cast<int32_t>(length));
        outQueueY.EnQue<T>(yLocal);
        inQueueX.FreeTensor(xLocal);
    }

    __aicore__ inline void CopyOut(uint32_t progress, uint32_t length)
    {
        AscendC::LocalTensor<T> yLocal = outQueueY.DeQue<T>();
        if (Aligned(length)) {
            AscendC::DataCopy(yGm[progress * this->tileLength], yLocal, length);
        } else {
            // writes exactly length elements, so the neighbouring core's output is left alone
            AscendC::DataCopyExtParams copyParams{1, static_cast<uint32_t>(length * sizeof(T)), 0, 0, 0};
            AscendC::DataCopyPad(yGm[progress * this->tileLength], yLocal, copyParams);
        }
        outQueueY.FreeTensor(yLocal);
    }

    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::TPosition::VECIN, QUEUE_DEPTH> inQueueX;
    AscendC::TQue<AscendC::TPosition::VECOUT, QUEUE_DEPTH> outQueueY;
    AscendC::GlobalTensor<T> xGm;
    AscendC::GlobalTensor<T> yGm;
    uint32_t blockLength = 0;
    uint32_t tileLength = 0;
    uint32_t tileNum = 0;
    uint32_t lastTileLength = 0;
};

extern "C" __global__ __aicore__ void relu_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);  // vector work only: launch blockDim AIV cores, no Cube cores
    KernelReluCustom<DTYPE_X> op;  // DTYPE_X: the element type of this build (half, float or int32_t)
    op.Init(x, y, tilingData.totalLength, tilingData.blockLength, tilingData.tileLength);
    op.Process();
}
