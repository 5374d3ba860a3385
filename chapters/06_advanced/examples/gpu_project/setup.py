"""Builds the CUDA extension of the sample GPU project (needs nvcc; the course never runs it)."""

from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension

setup(
    name="fused_gelu_ext",
    ext_modules=[CUDAExtension("fused_gelu_ext", ["fused_gelu.cu"])],
    cmdclass={"build_ext": BuildExtension},
)
