"""Build the PyTorch binding of ReluCustom: ``pip install --no-build-isolation .`` on an Ascend host.

Needs torch + torch_npu matching the installed CANN, CANN's environment (``source .../set_env.sh``) and the
operator package installed by ``../build_and_install.sh`` (vendor ``npulab``). Then
``import relu_custom_ext`` registers ``torch.ops.course_ops.relu_custom``.
"""

import os

from setuptools import setup
from torch.utils.cpp_extension import BuildExtension
from torch_npu.utils.cpp_extension import NpuExtension

CANN = os.environ.get("ASCEND_HOME_PATH")
OPP = os.environ.get("ASCEND_OPP_PATH")
if not CANN or not OPP:
    raise SystemExit("没有 CANN 环境：请先 source /usr/local/Ascend/cann/set_env.sh")
OP_API = os.path.join(OPP, "vendors", os.environ.get("OPP_VENDOR", "npulab"), "op_api")

setup(
    name="relu_custom_ext",
    version="0.1.0",
    ext_modules=[
        NpuExtension(
            name="relu_custom_ext",
            sources=["relu_custom_ext.cpp"],
            include_dirs=[os.path.join(OP_API, "include"), os.path.join(CANN, "include")],
            library_dirs=[os.path.join(OP_API, "lib"), os.path.join(CANN, "lib64")],
            libraries=["cust_opapi", "nnopbase", "ascendcl"],
            extra_link_args=[f"-Wl,-rpath,{os.path.join(OP_API, 'lib')}"],
        )
    ],
    cmdclass={"build_ext": BuildExtension},
)
