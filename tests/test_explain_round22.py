"""explain round 22: what marks another machine (a CUDA release by number, OpenVINO's compile_model for one of its
devices, Linux's /dev/accel nodes), a probe whether an NPU is there that is no evidence of one."""

import npulab.env.explain as ex

MINDSPORE_GPU = ('  File "/home/u/.local/lib/python3.7/site-packages/mindspore/_version_check.py", line 256, in <module>\n'
                 "    check_version_and_env_config()\n"
                 "OSError: MindSpore version 1.0.0 and cuda version 10.0 does not match,\n")


def test_a_cuda_release_named_by_number_marks_another_machine():
    assert ex.explain_text(MINDSPORE_GPU).findings == []
    # the same MindSpore traceback without it is still read (MindSpore is weak Ascend evidence)
    assert ex.explain_text(MINDSPORE_GPU.replace("and cuda version 10.0 does not match",
                                                 "and Ascend AI software package version 7.0 does not match")).findings


def test_openvinos_compile_model_for_a_device_is_another_npu():
    log = 'RuntimeError  Traceback (most recent call last) ----> 1 compiled_model = core.compile_model(model, "NPU")\n'
    assert ex.explain_text(log).findings == []
    assert ex.explain_text("RuntimeError: the model failed to run on the NPU\n").findings  # a bare NPU: weak evidence


def test_an_accel_device_node_is_not_ascends():
    assert ex.explain_text("[ERROR] Failed to open file '/dev/accel/accel0': Permission denied\n").findings == []
    davinci = ex.explain_text("[ERROR] Failed to open file '/dev/davinci0': Permission denied\n")
    assert davinci.findings  # Ascend's own device node


def test_a_probe_whether_an_npu_is_there_is_no_evidence_of_one():
    frame = ('  File "/usr/lib/python3/site-packages/transformers/utils/import_utils.py", line 600, in '
             "is_torch_npu_available\n"
             "RuntimeError: operation failed\n")
    assert ex.explain_text(frame).findings == []
    assert ex.explain_text(frame.replace("is_torch_npu_available", "npu_init")).findings


def test_a_python_the_npu_stack_never_shipped_for_marks_another_machine():
    log = ('  File "/home/k/anaconda3/lib/python3.6/site-packages/torch/cuda/__init__.py", line 161, in _lazy_init\n'
           "AssertionError: Torch not compiled with CUDA enabled\n")
    assert ex.explain_text(log).findings == []
    assert ex.explain_text(log.replace("python3.6", "python3.10")).families == ["cuda_hardcoded"]


def test_the_python_of_canns_images_is_weak_ascend_evidence():
    """CANN's images build Python into /usr/local/python<version>: an error there is read, unless another machine shows."""
    log = ('  File "/usr/local/python3.11.13/lib/python3.11/site-packages/vllm/entrypoints/cli/main.py", line 7, in <module>\n'
           "ModuleNotFoundError: No module named 'vllm.benchmarks.serve'\n")
    assert ex.explain_text(log).categories[0] == "missing_module"
    assert ex.explain_text(log.replace("/usr/local/python3.11.13", "/opt/conda")).findings == []
    assert ex.explain_text(log + "Is CUDA available: True, CUDA Version: 12.1\n").findings == []


def test_a_run_said_to_be_slow_with_its_measure_named_is_the_online_compilation():
    said = "I run vicuna on an Ascend 910A, but the inference speed very very slow, about 5 min per answer.\n"
    assert ex.explain_text(said).families == ["first_run_compile"]
    assert ex.explain_text(said.replace("Ascend 910A", "RTX 4090")).findings == []  # Ascend evidence needed
    assert ex.explain_text("Ascend 910B: the inference speed is fine now.\n").findings == []


def test_a_missing_symbols_cxx_abi_is_read_from_its_mangled_signature():
    from npulab.env.explain.rules.symbol import cxx_abi

    assert cxx_abi("_ZNK6AsdOps3Ops18GetOperationByNameERKSs") == 0  # const std::string& of the old ABI
    assert cxx_abi("_ZN3c106detail14torchCheckFailEPKcS2_jRKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE") == 1
    assert cxx_abi("_ZN4Ssab3fooEv") is None and cxx_abi("aclnnAddRmsNormBias") is None  # "Ss" inside a name: no ABI


def test_an_undefined_symbol_of_one_abi_names_the_abi_switch_and_atbs_build():
    log = ("ImportError: /usr/local/lib/python3.11/site-packages/mindie_turbo/libturbo.so: undefined symbol: "
           "_ZNK6AsdOps3Ops18GetOperationByNameERKSs\n")
    found = ex.explain_text(log).findings[0]
    assert found.category == "missing_symbol"
    assert "_GLIBCXX_USE_CXX11_ABI=0" in found.fix and "--cxx_abi=" in found.fix and "cxx_abi_0" in found.fix
    linked = ex.explain_text("/usr/bin/ld: main.o: undefined reference to "
                             "`atb::CreateOperation(std::__cxx11::basic_string<char>)'\n"
                             "collect2: error: ld returned 1 exit status (ATB_HOME_PATH=/usr/local/Ascend/nnal/atb)\n")
    assert linked.findings and "_GLIBCXX_USE_CXX11_ABI=1" in linked.findings[0].fix
    plain = ex.explain_text("ImportError: libtorch_npu.so: undefined symbol: aclnnAddRmsNormBias\n")
    assert "_GLIBCXX_USE_CXX11_ABI" not in plain.findings[0].fix


def test_a_name_a_release_removed_names_the_release_before_it():
    from npulab.env.explain.rules.module import removed_in

    assert removed_in("numpy", "float_")["release"] == "2.0" and removed_in("numpy", "float")["release"] == "1.24"
    assert removed_in("numpy", "float64") is None and removed_in("torch", "float_") is None
    log = "import torch_npu\nAttributeError: module 'numpy' has no attribute 'float_'\n"
    found = next(f for f in ex.explain_text(log).findings if f.category == "missing_module")
    assert "pip install 'numpy<2.0'" in found.fix
    hub = "import torch_npu\nImportError: cannot import name 'cached_download' from 'huggingface_hub'\n"
    assert "pip install 'huggingface_hub<0.26'" in ex.explain_text(hub).findings[0].fix


def test_vllms_engine_process_prefix_shows_vllm_for_the_graph_advice():
    log = ("(EngineCore_DP0 pid=31) RuntimeError: Cannot run aclop operators during NPU graph capture. Current working "
           "aclop is Fill.\n")
    found = next(f for f in ex.explain_text(log).findings if f.category == "graph_capture")
    assert "enforce-eager" in found.fix or "enforce_eager" in found.fix
    plain = next(f for f in ex.explain_text(log.replace("(EngineCore_DP0 pid=31) ", "")).findings
                 if f.category == "graph_capture")
    assert "enforce" not in plain.fix


def test_an_op_missing_from_a_torch_ops_namespace_names_the_package_that_registers_it():
    own = ex.explain_text("AttributeError: '_OpNamespace' '_C_ascend' object has no attribute 'weak_ref_tensor'\n")
    found = own.findings[0]
    assert found.category == "python_exception" and "torch.ops._C_ascend" in found.title
    assert "COMPILE_CUSTOM_KERNELS=1" in found.fix and "vllm_ascend_C" in found.fix
    cuda = ex.explain_text("import torch_npu\nAttributeError: '_OpNamespace' '_C' object has no attribute 'rms_norm'\n")
    assert "VLLM_TARGET_DEVICE=empty" in cuda.findings[0].fix
    other = ex.explain_text("import torch_npu\nAttributeError: '_OpNamespace' 'mylib' object has no attribute 'f'\n")
    assert "torch.ops.mylib" in other.findings[0].fix
    plain = ex.explain_text("import torch_npu\nAttributeError: 'Foo' object has no attribute 'bar'\n")
    assert "torch.ops" not in plain.findings[0].fix


def test_a_header_of_the_ascend_stack_the_compiler_cannot_find_names_its_include_tree():
    from npulab.env.explain.rules import header

    assert header.component("acl/acl.h")["name"] == "CANN Toolkit" and header.component("atb/atb_infer.h")
    assert header.component("kernel_operator.h") and header.component("Python.h") is None
    gcc = ex.explain_text("main.cpp:1:10: fatal error: acl/acl.h: No such file or directory\n")
    assert gcc.findings[0].category == "missing_header" and "-I${ASCEND_HOME_PATH}/include" in gcc.findings[0].fix
    clang = ex.explain_text("fatal error: 'atb/atb_infer.h' file not found\n")
    assert "ATB_HOME_PATH" in clang.findings[0].fix
    assert ex.explain_text("fatal error: Python.h: No such file or directory\n").findings == []  # no Ascend header
    assert ex.explain_text("nvcc\nfatal error: acl/acl.h: No such file or directory\n").findings == []  # a CUDA log


def test_a_cann_tool_or_set_env_sh_the_shell_cannot_find_is_the_environment_not_loaded():
    for line in ("/bin/sh: 1: atc: not found", "bash: msprof: command not found",
                 "bash: /usr/local/Ascend/ascend-toolkit/set_env.sh: No such file or directory"):
        assert ex.explain_text(line + "\n").families == ["env_not_loaded"], line
    assert ex.explain_text("bash: bisheng: command not found\n").findings == []  # Kunpeng's compiler has the name too
    assert ex.explain_text("bash: cat: command not found\n").findings == []


def test_windows_own_reports_mark_a_machine_the_npu_stack_does_not_run_on():
    oom = "RuntimeError: out of memory on the NPU (mindspore)\n"
    assert ex.explain_text(oom).findings  # MindSpore and a bare NPU: weak Ascend evidence
    for windows in ("ImportError: DLL load failed while importing _c_expression\n",
                    "OSError: [WinError 126] The specified module could not be found\n",
                    "  at C:\\Users\\me\\train.py line 3\n"):
        assert ex.explain_text(windows + oom).findings == [], windows


def test_hccl_links_not_established_read_as_the_hccl_timeout():
    log = ("[ERROR] HCCL(55,):2026-06-03-06:04:59.040.458 [hccl_socket_manager.cc:399] [6][Create][Sockets]Wait links "
           "establish completed failed, local role is client. ret[9]\n")
    assert ex.explain_text(log).families[:1] == ["hccl_timeout"]


def test_rocms_and_intels_allocators_running_out_of_memory_are_other_machines():
    for line in ("torch.OutOfMemoryError: HIP out of memory. Tried to allocate 2.00 GiB (mindspore)\n",
                 "RuntimeError: XPU out of memory. Tried to allocate 1.00 GiB on the NPU\n"):
        assert ex.explain_text(line).findings == [], line


def test_habanas_bridge_marks_a_gaudi_machine():
    """Round 23 (set 12u as development data): the Gaudi bridge names itself and its graph class; "hpu" in PyTorch's
    list of device types does not mark one."""
    crash = ("terminate called after throwing an instance of 'c10::Error'\n"
             "  what():  [Rank:0] FATAL ERROR :: MODULE:PT_DEVICE GRAPH:: Capture must end on the same stream it began on.\n")
    assert ex.explain_text(crash + "[Rank:0] Habana exception raised from mark_step at HPUGraph.cpp:138\n").findings == []
    device_list = ("RuntimeError: Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, ort, "
                   "xla, lazy, vulkan, mps, meta, hpu, mtia, privateuseone device type at start of device string: npu\n")
    assert ex.explain_text(device_list).findings


def test_the_ascend_drivers_error_line_is_an_error_under_an_event_header():
    """Round 23: the device slog files the driver's kernel messages as EVENT lines; its own [ERROR] tag decides."""
    line = ("device-os.log:461:[EVENT] KERNEL(4128,sklogd):2024-01-22-05:03:02.259.649 [klogd.c:253] [ascend] [ERROR] "
            "[devmm] [devmm_svm_device_fault 438] <kworker/u16:186:9871,9871> Vm fault failed.\n")
    found = ex.explain_text("Analysis result: success.\n" + line)
    assert found.findings and "Vm fault failed" in found.root_error.text
    assert ex.explain_text(line.replace("[ascend] [ERROR]", "[ascend] [INFO]")).findings == []
