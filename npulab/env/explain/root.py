"""Finding the root error line of a log: the first error in time, of the strongest kind present.

Error-looking lines are ranked by how specific they are: 3 — an exception line (``RuntimeError: …``) or a line
with a CANN code and its message (``EZ1001: …``); 2 — a line at ERROR level (``[ERROR]``, ``ERROR 09-03``, a
glog ``E1204``), a torch_npu ``ERRxxyyy`` or an ``error code is`` line; 1 — any other line saying ``failed`` or
``error``, or a Python traceback's first line (its exception line may be cut off). The root error is the
earliest line of the highest rank: in a chained Python traceback that is the innermost exception (printed first),
and the trailing ``Aborted`` or ``EngineCore failed to start`` noise loses to it. Lines at WARNING/INFO level are never errors, and a bare ``Inner Error!`` is a weaker line than the
message that follows it. The scan keeps a few candidates per rank, so memory stays bounded.

The finder also notes what the log says about its machine: Ascend evidence (``ascend_context``: Ascend's own words,
or an NPU plugin's class name such as vLLM-Ascend's ``NPUWorker``), evidence of a
CUDA/NVIDIA machine or another accelerator (``foreign_context``: nvidia-smi, NVML, libcudnn, a ``+cu121`` wheel, a tensor
on ``cuda:0``, ROCm/HIP, OpenVINO/Intel NPU, MetaX, Apple's MPS, DirectML …; never code such as ``.cuda()``), weaker Ascend evidence
(``weak_context``: "NPU" as a word, MindSpore), and the warnings CANN's
own components print when they turn an error into a warning (``[WARNING] HCCL(…): … timeout``, ``ErrToWarn``):
a log that ends in those, with no error line, is still a log a user acts on.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from npulab.env.explain.reader import CODE_LITERAL, decode_line, hit_lines, line_at, shorten, standalone

PER_RANK = 3  # candidates kept per rank
WHOLE_CHARS = 2000  # of a candidate line, kept for the generic fix to read (an option or a version past the evidence)

_CANDIDATE_NEEDLES = (b"error", b"exception", b"fail", b"fatal", b"core dumped", b"segmentation fault", b"abort",
                      "报错".encode(), "错误".encode(), "失败".encode(), "找不到".encode(), "未找到".encode(),
                      "无法".encode(), "异常".encode(), "崩溃".encode(), b"cannot find", b"could not find",
                      b"unable to", b"not found", b"traceback (most recent call last)",
                      b"killed", b"has no attribute", b"required positional argument", b"keyword argument",
                      b"positional argument", b"no module named", b"crash", b"conflict", b"garbled", b"incompatib",
                      b"detect", b"recogni", b"incorrect", b"wrong", b"silently", b"cpu", "冲突".encode(), "乱码".encode(), "不兼容".encode(), "安装不了".encode(),
                      "装不上".encode(), "识别不到".encode(), "检测不到".encode())
_NOT_ERROR = re.compile(r"\b(?:WARNING|WARN|INFO|DEBUG|EVENT)\b|\[W(?:\d{4}| )|^W\d{4} |UserWarning|FutureWarning|"
                        r"DeprecationWarning|RuntimeWarning|ImportWarning|\b0 (?:errors?|failed)\b|"
                       r"(?i:\b(?:this|the) (?:error|message|log|warning)(?: log| message)? can be (?:safely )?ignored)|"
                        r"(?i:\b(?:fail(?:ed|ures?)|errors?|error[ _]?code|ret(?:code)?|errno)\s*(?:is|=|:)\s*0\b(?![.\d]))")
_EXCEPTION = re.compile(r"(?:^|[\s:\]\)>|：])(?:[A-Za-z_][\w.]*\.)?[A-Z]\w*(?:Error|Exception)(?::\s|:$)")
_CANN_MESSAGE = re.compile(r"(?<![0-9A-Za-z_])E[0-9A-Z]\d{4}(?:\[PID|\s*:|\s*\(|\))")
# the Ascend driver's kernel messages at error level ("[ascend] [ERROR] [devmm] [devmm_svm_device_fault 438] … Vm fault
# failed"), as dmesg shows them and as the device's slog files them under its own "[EVENT] KERNEL(…)" header: the
# form hiascend.com's troubleshooting pages quote from the device-os logs (CANN "日志参考", device-side system logs)
_DRIVER_ERROR = re.compile(r"\[ascend\] \[ERROR\] \[[a-z_]+\]")
_LEVEL_ERROR = re.compile(r"\[ERROR\]|\bERROR\b|^\[?E\d{4} |\bERR\d{5}\b|(?i:error code)|\[E\d{4} ")
# the work found on the CPU instead of the device, in words ("It is running on CPU", "falls back to CPU", "跑在CPU上")
CPU_RUN = (r"\b(?:runs?|running|ran|falls? back|fell back|falling back|using|uses|used) (?:\w+ )?(?:on|to) (?:the )?cpu\b|"
           r"\b(?:using|uses) cpu only\b|(?:跑|运行|回退|退回)(?:在|到)\s*cpu")
_WEAK = re.compile(r"(?i:\berror\b|\bfail(?:ed|ure|s)?\b|fatal|core dumped|segmentation fault|\baborted\b)|报错|错误|失败|"
                   # what cannot be found or done, in either language ("找不到 libascendcl", "无法加载", "unable to open")
                   r"找不到|未找到|无法|异常|崩溃|(?i:\b(?:cannot|could not|couldn't|can't) find\b|\bunable to\b|\bnot found\b)|"
                   r"^\W*Traceback \(most recent call last\)|"  # a traceback whose exception line is cut off
                   r"^\W*(?:\[\d+\]\+?\s+)?Killed\b|"  # the shell's report of a SIGKILL
                   # a Python exception's message without its type (a title, a cut-off paste)
                   r"object has no attribute '|missing \d+ required (?:positional|keyword-only) arguments?\b|"
                   r"takes \d+ positional arguments? but \d+ (?:was|were) given|got an unexpected keyword argument|"
                   r"No module named ['\"]?\w|"
                   # uv's resolver report ("× No solution found when resolving dependencies", "… unsatisfiable")
                   r"(?i:\bno solution found when resolving\b|\brequirements are unsatisfiable\b)|"
                   # a symptom told in words, with no error line: a crash, a version conflict, garbled output, a device
                   # not detected ("版本冲突", "输出乱码", "the worker cannot detect the NPU devices")
                   r"(?i:\bcrash(?:es|ed)?\b|\bconflict(?:s|ing)?\b|\bgarbled\b|\bincompatib(?:le|ilit(?:y|ies))\b|"
                   r"\b(?:cannot|can't|could not|couldn't|unable to|fails? to|does not|doesn't) (?:detect|recogni[sz]e)\b|"
                   # … a result said to be wrong, a check that silently gives the wrong answer, the work found on the CPU
                   # instead of the device ("was incorrect", "silently return False", "It is running on CPU")
                   r"\b(?:is|are|was|were|be|gets?|got|returns?|returned) (?:\w+ )?(?:incorrect|wrong)\b|\bmis-?detect\w*|"
                   r"\bsilently (?:return|fail|fall|ignor|skip|us)\w*|"
                   + CPU_RUN + r")|冲突|乱码|不兼容|安装不了|装不上|识别不到|检测不到|(?i:结果不对|结果不正确)")
_INNER_ONLY = re.compile(r"(?i:inner error!?\s*$)")
_TRACEBACK_FRAME = re.compile(r"^\s*(?:File \"|frame #\d|at |\^+\s*$|raise )")
_CONTEXT_NEEDLES = (  # searched in the lower-cased block; "cann" only as a word ("cannot" is not)
    b"ascend", b"torch_npu", b"torch-npu", b"npu-smi", b"hccl",
    b"davinci", b"aclnn", b"aclrt", b"dcmi", b" cann ", b"cann_", b"cann-", b"/cann", b" cann.",
    b"aicore", b"ai core", b"ai_core", b"[tbe", b"tbe.", b"tbe-", b"910b", b"910c", b"310p",  # Ascend's own words
    b"mindspeed", b"mindie", b"msprobe", b"msprof", b"torchair",
    b"torch.npu", b"transfer_to_npu", b".npu()", b"npu_fusion", b"hwhiaiuser", b"op-plugin", b"op_plugin", b"aicpu",
    b"rank_table", b"atlas 800", b"atlas 300", b"atlas 900", b"nnal/",  # Ascend's APIs, user, plugins and products
    b"cannexecutionprovider", b"onnxruntime-cann", b"providers_cann",  # ONNX Runtime's CANN execution provider
    "昇腾".encode(),
    b"acl graph",  # vLLM-Ascend's "Capturing ACL graphs" (ACL: the Ascend Computing Language runtime)
    # the device's black-box logs as msnpureport exports them, hisi_logs/device-<id>/<time>/bbox/ (CANN troubleshooting
    # "HBM比特ECC故障", hicann/docs docs/troubleshooting/zh/hbm_bit_ecc_fault.md at c94cf50)
    b"hisi_logs/device-",
    # torch_npu's own C bindings, which only its extension defines (TorchNpuMethods in torch_npu/csrc/InitNpuBindings.cpp
    # and torch_npu/csrc/npu/Module.cpp, Ascend/pytorch at fbef11e: _npu_shutdown, _npu_setDevice, _npu_init,
    # _npu_synchronize …), called as torch_npu._C._npu_<name> or, in Ascend's PyTorch 1.5 fork, torch._C._npu_<name>
    b"_c._npu_",
    # MindSpore's kernel selection on Ascend names the graph engine's operator prototypes and adapters (GE), which only
    # its Ascend back end has (kernel_select_ascend.cc CollectNotMatchMessage, ge_kernel_executor.cc; rules/kernel_select.py)
    b"operator prototype library", b"please check in `transform` directory", b"for the current operator are: node is")
# weaker evidence: "NPU" as a word ("input", "intel_npu" are not; "NPU上", "[NPU]" are) and MindSpore, which other
# accelerators also run (Intel's NPU, MindSpore on GPU); it counts only in a log that shows no other accelerator
# ModelArts notebooks, whose home is /home/ma-user, are Huawei Cloud's, most of them on Ascend
# … and an API named for the NPU ("enable_npu", "is_npu": a word that ends in "_npu")
# Paddle-Lite's NNAdapter (lite/kernels/nnadapter, NNAdapterException): its interface to NPUs, Huawei's Ascend and
# Kirin among them (paddlepaddle.org.cn/lite/develop/develop_guides/nnadapter.html) — weak like a bare "NPU": the
# other accelerators it drives (Rockchip, Cambricon …) are other accelerators' words
# … and the Python that CANN's installation guide and its official images build into /usr/local/python<version>
# (Ascend/cann-container-image cann/*/Dockerfile: ./configure --prefix=/usr/local/python3.11.13; the CANN 5/6 guides:
# --prefix=/usr/local/python3.7.5), which vLLM-Ascend's, MindIE's and torch_npu's images are built on
_WEAK_CONTEXT = re.compile(rb"(?<![a-z0-9])(?:[a-z][a-z0-9]*_)?npus?(?![a-z0-9_])|mindspore|/home/ma-user/|nnadapter|"
                           rb"/usr/local/python3\.\d+(?:\.\d+)?/")
# a probe that asks whether an NPU is there runs on every machine, so its name is no evidence of one: Paddle's
# paddle.is_compiled_with_npu() (python/paddle/device/__init__.py, 2.1-2.4), transformers' is_torch_npu_available()
# (transformers/utils/import_utils.py), accelerate's is_npu_available() (accelerate/utils/imports.py)
_NPU_PROBE = re.compile(rb"\bis_(?:compiled_with_|torch_)?npu(?:_available)?\b")
# also weaker evidence, since other vendors name things for their NPU too (Rockchip RKNN's NPUTransfer client):
# class names of the NPU plugins, case-sensitive: vLLM-Ascend's NPUWorker, NPUModelRunner, NPUPlatform, NPUCommunicator…
_NPU_CLASS = re.compile(rb"\bNPU[A-Z][a-z]")
# torch_npu's and the plugins' API and module names: npu_fusion_attention, transformers' npu_flash_attention, npu_format_cast
# (case-sensitive, not inside a longer name such as intel_npu_…)
_NPU_API = re.compile(rb"(?<![A-Za-z0-9_])npu_[a-z]")
_FOREIGN_NEEDLES = (  # another accelerator's machine (lower-cased); "Found no NVIDIA driver" is not one: Ascend users see it
    b"nvidia-smi", b"nvml", b"nvidia-container", b"nvidia-persistenced", b"nvidia driver version", b"cuda version:",
    b"libcudart", b"libcudnn", b"nccl info", b"libtorch_cuda", b"geforce", b"+cu11", b"+cu12",
    b"/usr/local/cuda", b"nvcc", b"cuda_home", b"cudnn version", b"nvidia a100", b"nvidia h100", b"tesla v100",
    b"tesla t4", b"nvidia rtx", b"rtx 30", b"rtx 40", b"nvidia/cuda:",  # the CUDA toolkit, NVIDIA's cards and images
    b"cuda stream", b"cudnn error", b"cudnn_status", b"cudafree", b"cudamalloc", b"cuda_driver", b"cuda driver version",
    b"cuda out of memory", b"cuda error: ", b"cublas_status_", b"cudaerror", b"cudasuccess",  # CUDA's runtime failing
    b"device/gpu/", b"cuda_visible_devices=",  # CUDA's runtime at work, MindSpore's GPU plugin, a GPU launch line
    b"rocm", b"hipblas", b"hiperror", b"hip error", b"amdgpu", b"rocblas", b"miopen",  # AMD's ROCm/HIP
    b"openvino", b"intel_npu", b"vpux", b"ze_result", b"level zero", b"level_zero", b"npu_drv", b"npu_vcl",  # Intel's NPU
    b"metax", b"mx-smi", b"maca", b"cambricon", b"cnmon", b"musa",  # MetaX, Cambricon, Moore Threads
    b"mps backend", b"mps framework", b"torch.backends.mps", b"pytorch_enable_mps_fallback",  # Apple's Metal (MPS)
    b"directml", b"torch_directml",  # Microsoft's DirectML
    b"rknn", b"rknpu", b"hailort", b"hl-smi", b"libtpu", b"tenstorrent",  # other NPUs and TPUs
    # Habana Gaudi: its name (the bridge's "Habana exception raised from …", /usr/lib/habanalabs, habana_frameworks),
    # its Synapse API status and its PyTorch bridge's graph class (HPUGraph.cpp; docs.habana.ai, "HPU Graphs");
    # not "hpu" alone, which PyTorch's own lists of device types name on every machine
    b"habana", b"synstatus", b"hpugraph",
    # nvidia-smi's table header (docs.nvidia.com/deploy/nvidia-smi); Qualcomm's Adreno GPU and Hexagon NPU with its
    # QNN/SNPE SDK libraries (docs.qualcomm.com, AI Engine Direct: libQnnHtp.so); Cambricon MLU's torch_mlu and CNRT
    # (github.com/Cambricon/torch_mlu); Google Coral's Edge TPU runtime (coral.ai/docs: libedgetpu); Intel's GPU
    # extension (intel/intel-extension-for-pytorch, xpu-smi); AWS Inferentia/Trainium (awsdocs-neuron: torch_neuronx)
    b"gpu-util", b"adreno", b"hexagon", b"libqnn", b"qnn_htp", b"snpe", b"torch_mlu", b"cnrt", b"edgetpu",
    b"intel_extension_for_pytorch", b"xpu-smi", b"torch_neuronx", b"neuronx-cc",
    # PyTorch's allocator out of memory on ROCm ("HIP out of memory", c10/hip) and on Intel GPUs ("XPU out of memory",
    # torch.xpu: docs.pytorch.org/docs/stable/notes/get_start_xpu.html)
    b"hip out of memory", b"xpu out of memory", b"torch.xpu",
    b"libnvinfer")  # NVIDIA TensorRT's runtime library (docs.nvidia.com/deeplearning/tensorrt, installation guide)
# a traceback frame in a file on a Windows drive ('File "E:\\…"'): torch_npu and CANN ship for Linux only (PyPI's
# torch-npu files are manylinux x86_64 and aarch64 wheels), so such a log comes from another machine; so do Windows'
# own reports — an OSError's "[WinError 126]", the loader's "DLL load failed", a path under C:\Users or C:\Windows
_WINDOWS_FRAME = re.compile(rb'file "[a-z]:\\|\[winerror \d+\]|\bdll load failed\b|'
                            rb'(?<![a-z0-9])[a-z]:\\{1,2}(?:users|windows|program files)\\')
# … and a package installed for a Python the NPU stack never shipped for: torch_npu's wheels start at Python 3.7
# (Ascend/pytorch README at v1.5.0: Python 3.7.5; at v1.11.0: 3.7-3.10), as CANN's and MindSpore's Ascend builds do
_OLD_PYTHON = re.compile(rb"[/\\]python(?:2\.\d+|3\.[0-6])[/\\](?:site|dist)-packages[/\\]")
# a tensor or an allocation on a CUDA device ("device='cuda:0'", "on device cuda:1"); never code such as .to("cuda:0")
_FOREIGN_DEVICE = re.compile(rb"(?:device[ =]'?|on )cuda:\d|"
                             # a CUDA toolkit's release named by number: MindSpore's GPU build checking it at import
                             # ("MindSpore version 1.0.0 and cuda version 10.0 does not match", GPUEnvChecker in
                             # mindspore/python/mindspore/_version_check.py, r1.0-r2.10), CUDA images' "CUDA Version 12.1"
                             rb"\bcuda version\s*[:=]?\s*\d+\.\d|"
                             # OpenVINO's Python API compiling a model for one of its devices ("NPU" is Intel's NPU
                             # there): ov.Core().compile_model(model, "NPU") (docs.openvino.ai, "Inference Devices and Modes")
                             rb"\bcompile_model\(\s*[\w.]+\s*,\s*[\"'](?:npu|gpu|cpu|auto|hetero|multi|batch)\b|"
                             # Linux's compute-accelerator device nodes (/dev/accel/accel0: Intel's NPU, Habana, AMD XDNA,
                             # Qualcomm AIC; docs.kernel.org/accel/introduction.html): Ascend's driver makes /dev/davinci<N>
                             rb"/dev/accel/accel\d|"
                             # NVIDIA's data-centre and desktop cards named by model ("32GB V100", "RTX 4090")
                             rb"(?<![a-z0-9_])(?:[vapb]100|[ah]800|h100|h200|l40s?|rtx ?\d{4}|gtx ?\d{3,4})(?![a-z0-9_])")
# a CANN component's plog line at WARNING level that reports a time-out or an error turned into a warning
_WARNING_NEEDLES = (b"timeout", b"time out", b"errtowarn", b"fail")  # searched in the lower-cased block
_CANN_WARNING = re.compile(rb"^.{0,40}\[WARNING\] [A-Z_]+\(\d+,[^)]*\):")
# ONNX Runtime's warning that the CANN execution provider asked for is not in this build: the session runs on the CPU
_FALLBACK_WARNING = re.compile(rb"Specified provider '\w*CANN\w*' is not in available provider names")
# a Python traceback frame inside an installed package: File ".../site-packages/<package>/…"
_FRAME = re.compile(rb'File "[^"\n]*[/\\](?:site|dist)-packages[/\\]([A-Za-z_][\w]*)')
# a frame in an unpacked release of a package, outside site-packages: File ".../verl-0.5.0/verl/workers/…"
_SOURCE_FRAME = re.compile(rb'File "[^"\n]*[/\\]([A-Za-z_]\w*)-\d[\w.+-]*[/\\]\1[/\\]')
# any traceback frame: its file and function; a frame of Python's own library (…/lib/python3.11/subprocess.py) is not
# the caller that failed, the innermost frame outside it is
_ANY_FRAME = re.compile(rb'File "([^"\n]+)", line \d+, in ([\w<>.]+)')
_STDLIB = re.compile(rb'[/\\]lib[/\\]python\d(?:\.\d+)?[/\\](?!(?:site|dist)-packages)|^<frozen')
FRAME_REACH = 40  # lines between the last frame and the exception line it belongs to, at most
# a module the user's command imports: `python -c "import fla_npu; …"`, the interactive prompt's `>>> import x`
_IMPORT_COMMAND = re.compile(rb"(?:\bpython[\d.]*\s+-c\s+[\"']\s*|>>>\s*)(?:import|from)\s+([A-Za-z_]\w*)")
# a process that died in native (C/C++) code, with no Python exception: the C++ runtime's report of an uncaught
# exception (libstdc++'s verbose terminate handler), the shell's report of SIGABRT/SIGSEGV, Python's faulthandler
# a line that may say which release works ("… 3.10.12 的版本可以正常安装", "with 2.3.1 it works"): a version and a word of
# success, read by triage.working_release wherever it stands in the log (not only on the error lines)
_WORKS_NEEDLES = (b"works", b"worked", b"fine", b"no longer", "正常".encode(), "可以".encode(), "没问题".encode(),
                  "没有问题".encode(), "成功".encode(), "不报错".encode(), "好了".encode())
_VERSIONED = re.compile(rb"\d\.\d")
# the summary a finished run prints last: pytest's "==== 12 passed in 3.4s ====" (no failure counted), unittest's "OK"
# after "Ran N tests", a trainer's "Training completed" / "训练完成", "All tests passed" (docs.pytest.org, "How to
# interpret the output"; docs.python.org unittest; Hugging Face Trainer's "Training completed. Do not forget to share
# your model"): a log that ends so, with no exception and no code, is a run that finished
_SUCCESS_END = re.compile(r"(?i)^\W*=*\s*\d+ passed(?:,\s*\d+ (?:skipped|deselected|warnings?|xfailed|xpassed))*"
                          r"(?:,?\s*\d+ warnings?)?\s+in\s+[\d.]+\s*s|^OK(?: \(skipped=\d+\))?$|"
                          r"\btraining (?:is )?(?:completed|finished|done)\b|\ball tests passed\b|"
                          r"\bfinished training\b|训练(?:完成|结束)|推理完成")
# a log pasted as one line (a web form that dropped the newlines): a traceback's header with its first frame after the
# warnings that preceded it on the same line ("… RuntimeWarning: … Traceback (most recent call last): File \"…\"");
# the warning words before it do not make it a warning (Python's traceback module prints the header, then the frames)
# a log whose last line tells how the process ended, not why (round 16, "never silent"): a non-zero exit code or
# status as shells, IDEs and launchers print it ("Process finished with exit code 139", "exit status 1", torchrun's
# "exitcode  : -9", PyCharm's "进程已结束，退出代码为 -1"), a signal that ended it (signal(7): SIGKILL, which the kernel's
# OOM killer sends, SIGTERM, SIGSEGV …; "Killed", "Terminated", "core dumped"), an errno text left as the last word
# (errno(3): "No such file or directory", "Permission denied", "Connection refused"), or a run said to hang ("stuck",
# "hangs", "卡住", "没有输出"). Read on the last line only, and only in an Ascend log with no error line: a healthy log
# rarely ends so, and another machine's log is set aside before
_ABNORMAL_END = re.compile(r"(?i)\bexit(?:ed)?\s*(?:with\s+)?(?:code|status)\s*(?:is|of|was|=|:)?\s*(?!0\b)[-+]?\d+|"
                           r"退出(?:代码|码|状态)\s*(?:为|是)?\s*[:：]?\s*(?!0\b)-?\d+|"
                           r"\bkilled\b|\bterminated\b|\bkilled by signal\b|\bsignal\s*:?\s*(?:\d+|SIG[A-Z]+)\b|"
                           r"\bSIG(?:KILL|TERM|SEGV|ABRT|BUS|ILL|FPE)\b|core dumped|"
                           r"\bno such file or directory\b|\bpermission denied\b|\bconnection refused\b|\bbroken pipe\b|"
                           r"\b(?:hangs?|hanging|hung|stuck|freezes|frozen)\b|卡住|卡死|卡在|没有(?:任何)?(?:输出|反应|响应)|无响应")
_BY_USER = re.compile(r"(?i)\bby (?:the )?user\b|ctrl[+-]c|keyboardinterrupt|用户(?:手动)?(?:终止|中断|停止)")
PASTED_TRACEBACK = re.compile(r"\S.*?\bTraceback \(most recent call last\):?\s+File \"")
NATIVE_CRASH = re.compile(r"terminate called after throwing an instance of|\bAborted\b.*core dumped|"
                          r"Segmentation fault|Fatal Python error|\bSIG(?:SEGV|ABRT|BUS|ILL)\b")


def quiet(line: str) -> bool:
    """Whether a line is at WARNING/INFO/DEBUG level (and carries no exception): a message, not an error. The Ascend
    driver's own [ERROR] tag outranks the EVENT level of the slog line that files it."""
    return bool(_NOT_ERROR.search(line)) and not _EXCEPTION.search(line) and not _DRIVER_ERROR.search(line)


def rank(line: str) -> int:
    """How specific an error line is: 3 exception or coded CANN message, 2 ERROR level, 1 weak, 0 not an error."""
    if _TRACEBACK_FRAME.search(line):
        return 0
    if quiet(line):
        return 1 if PASTED_TRACEBACK.search(line) else 0  # a warning, unless a whole traceback was pasted after it
    if _INNER_ONLY.search(line):
        return 2
    if _EXCEPTION.search(line) or _CANN_MESSAGE.search(line):
        return 3
    if _LEVEL_ERROR.search(line):
        return 2
    return 1 if _WEAK.search(line) else 0


@dataclass
class RootLine:
    """A candidate root error: line number, shortened text and rank."""

    line: int
    text: str
    rank: int
    whole: str = ""  # the line as written (up to WHOLE_CHARS), for what it says past the shortened text
    fallback: bool = False  # a warning that the NPU was given up for the CPU (no error line says so)
    ending: bool = False  # the log's last line, telling how the process ended or that it hangs (no error line)
    frame: bool = False  # the innermost call-stack frame in an Ascend install (no error line: failing.ascend_frame)

    def to_dict(self) -> dict:
        return {"line": self.line, "text": self.text, "rank": self.rank}


class RootFinder:
    """Tracks error-looking lines over the blocks of a log, and whether the log is about Ascend at all."""

    def __init__(self):
        self.candidates: dict[int, list[RootLine]] = {1: [], 2: [], 3: []}
        self.ascend_context = False  # Ascend's own words: they decide alone
        self.weak_context = False  # "NPU" as a word, MindSpore: Ascend only when no other accelerator shows
        self.foreign_context = False  # another accelerator; looked for only until Ascend's own words are seen
        self.warnings: list[RootLine] = []  # CANN components' error-like warnings, earliest first
        self.fallbacks: list[RootLine] = []  # a warning that the NPU's provider is missing and the CPU runs instead
        self.components: dict[int, str] = {}  # exception line → package of the traceback frame just above it
        self.calls: dict[int, tuple[str, str]] = {}  # exception line → (file, function) of the innermost frame of
        # the program or a package above it (Python's own library skipped)
        self._frame: tuple[str, int] | None = None  # the last frame seen: package, line
        self.imports: list[tuple[int, str]] = []  # (line, module) of the modules the user's commands import
        self.said_working: list[str] = []  # lines with a version and a word of success (see _WORKS_NEEDLES)
        self.last_line = ""  # the log's last non-blank line (of the last block seen)
        self.last_number = 0  # … and its number

    def feed(self, first_line: int, block: bytes) -> None:
        """Scan one block of whole lines."""
        lowered = block.lower()
        tail = block.rstrip()
        if tail:
            self.last_line = decode_line(tail[tail.rfind(b"\n") + 1:])[:WHOLE_CHARS]
            self.last_number = first_line + tail.count(b"\n")
        unprobed = _NPU_PROBE.sub(b"", lowered) if b"npu" in lowered else lowered
        if not self.ascend_context and any(n in unprobed for n in _CONTEXT_NEEDLES):
            self.ascend_context = True
        if not self.weak_context and (_WEAK_CONTEXT.search(unprobed) or _NPU_CLASS.search(block)
                                      or _NPU_API.search(block)):
            self.weak_context = True
        if not (self.ascend_context or self.foreign_context) and (any(n in lowered for n in _FOREIGN_NEEDLES)
                                                                  or _FOREIGN_DEVICE.search(lowered)
                                                                  or _WINDOWS_FRAME.search(lowered)
                                                                  or _OLD_PYTHON.search(lowered)):
            self.foreign_context = True
        if len(self.warnings) < PER_RANK and b"[WARNING]" in block:
            for start, end in hit_lines(block, lowered, _WARNING_NEEDLES):
                if len(self.warnings) >= PER_RANK:
                    break
                if _CANN_WARNING.match(block, start, end):
                    self.warnings.append(RootLine(first_line + block.count(b"\n", 0, start),
                                                  shorten(decode_line(block[start:end])), 0))
        if not self.fallbacks and b"provider names" in block:
            m = _FALLBACK_WARNING.search(block)
            if m:
                s, e = line_at(block, m.start())
                line = decode_line(block[s:e])
                self.fallbacks.append(RootLine(first_line + block.count(b"\n", 0, s), shorten(line, "Specified provider"),
                                               0, line[:WHOLE_CHARS], fallback=True))
        if len(self.imports) < PER_RANK and b"import" in block:
            for m in _IMPORT_COMMAND.finditer(block):
                self.imports.append((first_line + block.count(b"\n", 0, m.start()), m.group(1).decode()))
        if len(self.said_working) < PER_RANK and _VERSIONED.search(block):
            for start, end in hit_lines(block, lowered, _WORKS_NEEDLES):
                if len(self.said_working) < PER_RANK and _VERSIONED.search(block, start, end):
                    self.said_working.append(decode_line(block[start:end])[:WHOLE_CHARS])
        if len(self.candidates[3]) >= PER_RANK:
            return  # later lines cannot be earlier than the strongest ones already kept
        coded = tuple(m.start() for m in CODE_LITERAL.finditer(block) if standalone(block, m.start(), m.end()))
        for start, end in hit_lines(block, lowered, _CANDIDATE_NEEDLES, coded):
            line = decode_line(block[start:end])
            r = rank(line)
            if r and len(self.candidates[r]) < PER_RANK:
                number = first_line + block.count(b"\n", 0, start)
                self.candidates[r].append(RootLine(number, shorten(line), r, line[:WHOLE_CHARS]))
                if r == 3:
                    self._note_component(first_line, block, start, number)
                if len(self.candidates[3]) >= PER_RANK:
                    self._last_frame(first_line, block)
                    return
        self._last_frame(first_line, block)

    def _note_component(self, first_line: int, block: bytes, start: int, number: int) -> None:
        """Remember the package of the traceback frame just above an exception line (the failing component)."""
        frame = None
        for m in _FRAME.finditer(block, max(0, start - 8192), start):
            frame = (m.group(1).decode(), first_line + block.count(b"\n", 0, m.start()))
        if frame is None:
            for m in _SOURCE_FRAME.finditer(block, max(0, start - 8192), start):
                frame = (m.group(1).decode(), first_line + block.count(b"\n", 0, m.start()))
        frame = frame or self._frame
        if frame and 0 < number - frame[1] <= FRAME_REACH:
            self.components[number] = frame[0]
        call = None
        for m in _ANY_FRAME.finditer(block, max(0, start - 8192), start):
            if not _STDLIB.search(m.group(1)):
                call = (m.group(1), m.group(2), m.start())
        if call and 0 < number - (first_line + block.count(b"\n", 0, call[2])) <= FRAME_REACH:
            path = call[0].decode("utf-8", "replace").replace("\\", "/").split("/")
            self.calls[number] = ("/".join(path[-3:]), call[1].decode("utf-8", "replace"))

    def _last_frame(self, first_line: int, block: bytes) -> None:
        pos = block.rfind(b"-packages")
        if pos >= 0:
            s, e = block.rfind(b"\n", 0, pos) + 1, block.find(b"\n", pos)
            m = _FRAME.search(block, s, len(block) if e < 0 else e)
            if m:
                self._frame = (m.group(1).decode(), first_line + block.count(b"\n", 0, s))

    def ended_in_success(self) -> bool:
        """Whether the log's last line is the summary of a run that finished (``_SUCCESS_END``)."""
        return bool(_SUCCESS_END.search(self.last_line.strip()))

    def abnormal_end(self) -> RootLine | None:
        """The log's last line when it tells that the process ended abnormally or hangs (``_ABNORMAL_END``)."""
        text = self.last_line.strip()
        if not text or quiet(text) or _BY_USER.search(text) or not _ABNORMAL_END.search(text):
            return None  # a message at INFO/WARNING level, or a run the user stopped, is not a failure
        return RootLine(self.last_number, shorten(text), 1, text, ending=True)

    def crashed_import(self, root: RootLine) -> str | None:
        """The module a command imported just before a native crash that is the root error (no Python exception was
        raised: the extension module's own code died while it was loaded or first used), if any."""
        if root.rank == 3 or not NATIVE_CRASH.search(root.whole or root.text):
            return None
        before = [name for line, name in self.imports if 0 <= root.line - line <= FRAME_REACH]
        return before[0] if before else None

    def root(self) -> RootLine | None:
        """The root error line, or None when nothing in the log looks like an error."""
        for r in (3, 2, 1):
            if self.candidates[r]:
                return self.candidates[r][0]
        return None

    def strongest(self) -> list[RootLine]:
        """The kept candidates of the highest rank present, earliest first."""
        for r in (3, 2, 1):
            if self.candidates[r]:
                return list(self.candidates[r])
        return []
