/*
 * Call the installed ReluCustom operator through its generated aclnn API (two-stage call).
 * Course "昇腾 NPU 编程实战", chapter 06 (Apache-2.0).
 *
 *   1. aclnnReluCustomGetWorkspaceSize(x, y, &workspaceSize, &executor)   host: tiling, workspace size
 *   2. aclnnReluCustom(workspace, workspaceSize, executor, stream)         device: launch the kernel
 *
 * Usage: ./relu_custom_aclnn [length] [device_id]   (default 100003 elements on device 0)
 */
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "acl/acl.h"
#include "aclnn_relu_custom.h"

#define CHECK_ACL(expr)                                                                   \
    do {                                                                                  \
        auto ret_ = (expr);                                                               \
        if (ret_ != ACL_SUCCESS) {                                                        \
            std::fprintf(stderr, "%s failed: %d (%s)\n", #expr, static_cast<int>(ret_),  \
                         aclGetRecentErrMsg());                                           \
            return 1;                                                                     \
        }                                                                                 \
    } while (0)

int main(int argc, char **argv)
{
    const int64_t length = argc > 1 ? std::atoll(argv[1]) : 100003;  // not a multiple of 8: tails on purpose
    const int32_t deviceId = argc > 2 ? std::atoi(argv[2]) : 0;
    const size_t bytes = static_cast<size_t>(length) * sizeof(float);

    CHECK_ACL(aclInit(nullptr));
    CHECK_ACL(aclrtSetDevice(deviceId));
    aclrtStream stream = nullptr;
    CHECK_ACL(aclrtCreateStream(&stream));

    std::vector<float> hostX(length);
    for (int64_t i = 0; i < length; ++i) {
        hostX[i] = static_cast<float>((i * 37) % 201 - 100) / 10.0f;  // values in [-10, 10]
    }
    void *devX = nullptr;
    void *devY = nullptr;
    CHECK_ACL(aclrtMalloc(&devX, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_ACL(aclrtMalloc(&devY, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_ACL(aclrtMemcpy(devX, bytes, hostX.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE));

    std::vector<int64_t> shape{length};
    std::vector<int64_t> strides{1};
    aclTensor *x = aclCreateTensor(shape.data(), shape.size(), ACL_FLOAT, strides.data(), 0, ACL_FORMAT_ND,
                                   shape.data(), shape.size(), devX);
    aclTensor *y = aclCreateTensor(shape.data(), shape.size(), ACL_FLOAT, strides.data(), 0, ACL_FORMAT_ND,
                                   shape.data(), shape.size(), devY);

    // stage 1: the host part runs the operator's tiling function and sizes the workspace
    uint64_t workspaceSize = 0;
    aclOpExecutor *executor = nullptr;
    CHECK_ACL(aclnnReluCustomGetWorkspaceSize(x, y, &workspaceSize, &executor));
    void *workspace = nullptr;
    if (workspaceSize > 0) {
        CHECK_ACL(aclrtMalloc(&workspace, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST));
    }
    // stage 2: launch on the stream, then wait for it
    CHECK_ACL(aclnnReluCustom(workspace, workspaceSize, executor, stream));
    CHECK_ACL(aclrtSynchronizeStream(stream));

    std::vector<float> hostY(length);
    CHECK_ACL(aclrtMemcpy(hostY.data(), bytes, devY, bytes, ACL_MEMCPY_DEVICE_TO_HOST));
    int64_t wrong = 0;
    for (int64_t i = 0; i < length; ++i) {
        if (hostY[i] != std::fmax(hostX[i], 0.0f)) {
            ++wrong;
        }
    }
    std::printf("ReluCustom: %lld elements, workspace %llu bytes, %lld mismatches against max(x, 0)\n",
                static_cast<long long>(length), static_cast<unsigned long long>(workspaceSize),
                static_cast<long long>(wrong));

    aclDestroyTensor(x);
    aclDestroyTensor(y);
    if (workspace != nullptr) {
        aclrtFree(workspace);
    }
    aclrtFree(devX);
    aclrtFree(devY);
    aclrtDestroyStream(stream);
    aclrtResetDevice(deviceId);
    aclFinalize();
    return wrong == 0 ? 0 : 1;
}
