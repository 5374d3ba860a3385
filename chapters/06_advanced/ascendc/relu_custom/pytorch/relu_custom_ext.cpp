/*
 * torch.ops.course_ops.relu_custom: ReluCustom as a PyTorch operator on the NPU (course 06, Apache-2.0).
 *
 * The operator is registered for the PrivateUse1 dispatch key (the slot torch_npu names "npu") and for
 * Meta (shape only, for tracing). The NPU implementation makes the two aclnn calls itself and hands the
 * launch to torch_npu's task queue (OpCommand::RunOpApiV2), so it runs in order with the other operators
 * on the current stream.
 */
#include <torch/extension.h>
#include <torch/library.h>

#include "acl/acl.h"
#include "aclnn_relu_custom.h"
#include "torch_npu/csrc/core/npu/NPUStream.h"
#include "torch_npu/csrc/framework/OpCommand.h"

namespace {

aclDataType ToAclDataType(const at::Tensor &t)
{
    switch (t.scalar_type()) {
        case at::kHalf:
            return ACL_FLOAT16;
        case at::kFloat:
            return ACL_FLOAT;
        case at::kInt:
            return ACL_INT32;
        default:
            TORCH_CHECK(false, "relu_custom supports float16, float32 and int32, got ", t.scalar_type());
    }
}

aclTensor *ToAclTensor(const at::Tensor &t)  // t is contiguous
{
    std::vector<int64_t> shape(t.sizes().begin(), t.sizes().end());
    std::vector<int64_t> strides(t.strides().begin(), t.strides().end());
    std::vector<int64_t> storage{t.numel()};
    return aclCreateTensor(shape.data(), shape.size(), ToAclDataType(t), strides.data(), 0, ACL_FORMAT_ND,
                           storage.data(), storage.size(), t.data_ptr());
}

at::Tensor ReluCustomNpu(const at::Tensor &input)
{
    at::Tensor x = input.contiguous();
    at::Tensor y = at::empty_like(x);
    if (x.numel() == 0) {
        return y;
    }
    aclTensor *aclX = ToAclTensor(x);
    aclTensor *aclY = ToAclTensor(y);
    uint64_t workspaceSize = 0;
    aclOpExecutor *executor = nullptr;
    auto status = aclnnReluCustomGetWorkspaceSize(aclX, aclY, &workspaceSize, &executor);
    TORCH_CHECK(status == ACL_SUCCESS, "aclnnReluCustomGetWorkspaceSize failed: ", aclGetRecentErrMsg());
    at::Tensor workspace;
    void *workspaceAddr = nullptr;
    if (workspaceSize > 0) {
        workspace = at::empty({static_cast<int64_t>(workspaceSize)}, x.options().dtype(at::kByte));
        workspaceAddr = workspace.data_ptr();
    }
    aclrtStream stream = c10_npu::getCurrentNPUStream().stream(false);
    // the lambda holds x, y and the workspace so that their memory outlives the queued launch
    auto launch = [x, y, workspace, workspaceAddr, workspaceSize, executor, stream, aclX, aclY]() -> int {
        int ret = aclnnReluCustom(workspaceAddr, workspaceSize, executor, stream);
        aclDestroyTensor(aclX);
        aclDestroyTensor(aclY);
        return ret;
    };
    at_npu::native::OpCommand::RunOpApiV2("aclnnReluCustom", launch);
    return y;
}

at::Tensor ReluCustomMeta(const at::Tensor &x)
{
    return at::empty_like(x);
}

}  // namespace

TORCH_LIBRARY(course_ops, m)
{
    m.def("relu_custom(Tensor x) -> Tensor");
}

TORCH_LIBRARY_IMPL(course_ops, PrivateUse1, m)
{
    m.impl("relu_custom", &ReluCustomNpu);
}

TORCH_LIBRARY_IMPL(course_ops, Meta, m)
{
    m.impl("relu_custom", &ReluCustomMeta);
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m)
{
    m.doc() = "ReluCustom (course 06): importing this module registers torch.ops.course_ops.relu_custom";
}
