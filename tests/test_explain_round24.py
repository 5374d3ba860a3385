"""explain round 24: HCCL's documented messages at initialisation (the P2P status wait, HcclGetRootInfo), a library's
device check that lists CUDA and no NPU, the runtime's own words for a device that did not start, a failure tied to
transfer_to_npu, npu-smi missing in any program's wording, and the runtime's sync-timeout codes."""

import npulab.env.explain as ex


def _first(log: str) -> str | None:
    cats = ex.explain_text(log).categories
    return cats[0] if cats else None


def test_hccls_p2p_status_wait_is_a_timeout_even_on_its_own():
    assert _first("Wait timeout for get P2P status\n") == "hccl_timeout"


def test_a_failed_hcclgetrootinfo_is_the_root_nic():
    glog = ("F20251111 12:28:58.504206 214989 collective_service.cpp:37] Check failed: status == HCCL_SUCCESS (1 vs. 0) "
            "HCCL get root info failed.\n")
    assert _first(glog) == "hccl_network"
    assert _first("[ERROR] HcclGetRootInfo failed, ret = 11\n") == "hccl_network"
    assert "hccl_network" not in ex.explain_text("[INFO] HCCL get root info success\n").categories


def test_a_device_check_listing_cuda_but_no_npu():
    assert _first("ValueError: Please input valid device: 'cpu', 'cuda', 'cuda:0', '0' !\n") == "cuda_hardcoded"
    assert _first("ValueError: FlexAttention is only supported on CUDA, CPU, HPU, or MPS devices.\n") == "cuda_hardcoded"
    # a list that holds the NPU is not the library's missing NPU path
    listed = ex.explain_text("ValueError: Invalid device 'cuda:3'. Supported devices: cpu, cuda, npu\n")
    assert "cuda_hardcoded" not in listed.categories
    # another accelerator's log is set aside as before
    assert ex.explain_text("Tesla V100\nValueError: Please input valid device: 'cpu', 'cuda'\n").findings == []


def test_the_runtime_saying_the_device_did_not_start():
    assert _first("[Error]: Failed to start the device.\n") == "device_setup_failed"
    tsd = ("E39999[PID: 3600530] 2026-09-15-13:02:35.314.621 (E39999):  TsdOpen failed. devId=9, tdt error=1"
           "[FUNC:PrintfTsdError][FILE:runtime.cc][LINE:2638]\n")
    assert _first(tsd) == "device_setup_failed"


def test_a_failure_the_log_ties_to_transfer_to_npu():
    assert _first("NPU backend and distributed_type was incorrect when using `transfer_to_npu`\n") == "transfer_to_npu"
    assert _first("使用 transfer_to_npu 后报错：RuntimeError: backend mismatch\n") == "transfer_to_npu"
    # the notice the tool prints on every import is no failure
    notice = ("RuntimeWarning: torch.jit.script and torch.jit.script_method will be disabled by transfer_to_npu, which "
              "currently does not support them\n")
    assert "transfer_to_npu" not in ex.explain_text(notice).categories


def test_npu_smi_missing_in_any_programs_wording():
    go = 'Allocate failed: exec: "npu-smi": executable file not found in $PATH\n'
    assert _first(go) == "driver_not_mounted"
    assert _first("npu-smi set device-share -i 1 -c 0 -d 1: npu-smi not found in PATH\n") == "driver_not_mounted"
    assert _first("[ERROR] 找不到 npu-smi\n") == "driver_not_mounted"
    assert "driver_not_mounted" not in ex.explain_text("[ERROR] npu-smi info shows no process\n").categories


def test_the_runtimes_sync_timeout_codes_are_timeouts():
    log = ("RuntimeError: npuSynchronizeDevice:torch_npu/csrc/core/npu/NPUStream.cpp:435 NPU function error: "
           "aclrtSynchronizeDevice, error code is 507046\n")
    assert _first(log) == "hccl_timeout"
    # another code of the same call is not a timeout
    other = log.replace("507046", "507015")
    assert "hccl_timeout" not in ex.explain_text(other).categories


def test_msaicerrs_report_is_an_ai_core_error():
    report = ("********************Root cause conclusion*********************\n"
              "***********************2. AICERROR code***********************\n"
              "code  : 0x10\n")
    assert _first(report) == "aicore_exception"
    assert "aicore_exception" not in ex.explain_text("Root cause conclusion: the port was taken\n").categories


def test_advice_naming_an_option_of_the_command_the_log_echoes():
    atc = ("atc --model=./resnet_shape.pb --framework=3 --output=./out/resnet_shape --soc_version=Ascend310\n"
           "ATC run failed, Please check the detail log, Try 'atc --help' for more information\n"
           "E10001: Value [-1] for parameter [Inputs] is invalid. Reason: maybe you should set input_shape to specify "
           "its shape\n")
    advice = next(f for f in ex.explain_text(atc).findings if f.category == "message_advice")
    assert "`--input_shape=…`" in advice.fix and "`atc`" in advice.fix
    # a command whose options are written with hyphens gets the option in that spelling
    vllm = ("$ vllm serve /models/qwen --max-model-len 4096 --tensor-parallel-size 2\n"
            "ERROR torch_npu: ValueError: No available memory for the cache blocks. Try increasing "
            "`gpu_memory_utilization` when initializing the engine.\n")
    advice = next(f for f in ex.explain_text(vllm).findings if f.category == "message_advice")
    assert "`--gpu-memory-utilization=…`" in advice.fix and "`vllm serve`" in advice.fix
    # without a command line in the log the advice is quoted as it is
    alone = next(f for f in ex.explain_text(vllm.split("\n", 1)[1]).findings if f.category == "message_advice")
    assert "--gpu-memory-utilization" not in alone.fix
