"""Check torch.ops.course_ops.relu_custom against torch.relu on an NPU (course 06).

Run on an Ascend host after ``pip install --no-build-isolation .`` in this folder:
``python run_relu_custom.py``. Exits with 1 when any result differs.
"""

import sys

import torch
import torch_npu  # noqa: F401  (registers the npu device; load it before the extension that links against it)


def main() -> int:
    import relu_custom_ext  # noqa: F401  (registers torch.ops.course_ops.relu_custom)

    torch.manual_seed(0)
    failures = 0
    for dtype in (torch.float16, torch.float32, torch.int32):
        for length in (1, 7, 16, 1000, 100003, 2**20 + 5):
            x = (torch.randn(length) * 10).to(dtype).npu()
            y = torch.ops.course_ops.relu_custom(x)
            ok = torch.equal(y.cpu(), torch.relu(x.cpu()))
            failures += not ok
            print(f"{str(dtype):>14} n={length:>8}: {'一致' if ok else '不一致'}")
    print("meta 张量上只推导形状：", torch.ops.course_ops.relu_custom(torch.empty(3, 5, device="meta")).shape)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
