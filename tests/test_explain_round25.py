"""explain round 25: CANN's own Python packages (a missing te/te_fusion/tbe in either quotation, pip naming one of them
as the requirer of a dependency it lacks), torch_npu's warning that CANN lacks a function it calls, the device's
black-box report of a multi-bit ECC fault, the Task Scheduler's AI Core task time-out, and a library of the Linux
distribution (libGL.so.1) with the package that installs it."""

import npulab.env.explain as ex


def _categories(log: str) -> list[str]:
    return ex.explain_text(log).categories


def test_cann_modules_missing_in_either_quotation():
    assert "cann_python_deps" in _categories('ModuleNotFoundError: No module named "te_fusion"\n')[:2]
    assert "cann_python_deps" in _categories("ModuleNotFoundError: No module named 'te.platform'\n")[:2]
    # another package whose name starts with the same letters is not CANN's
    assert "cann_python_deps" not in _categories("ModuleNotFoundError: No module named 'tensorflow'\n")


def test_pip_naming_a_cann_wheel_as_the_requirer():
    log = ("ERROR: pip's dependency resolver does not currently take into account all the packages that are installed.\n"
           "opc-tool 0.1.0 requires psutil, which is not installed.\n"
           "te 0.4.0 requires numpy<2, but you have numpy 2.1.0 which is incompatible.\n")
    assert _categories(log)[0] == "cann_python_deps"
    # the same report about packages that are not CANN's is no Ascend log: nothing is said
    other = ("ERROR: pip's dependency resolver does not currently take into account all the packages that are installed.\n"
             "fastapi 0.110.0 requires starlette, which is not installed.\n")
    assert ex.explain_text(other).findings == []


def test_torch_npu_warning_that_cann_lacks_a_function():
    log = ("[W compiler_depend.ts:148] Warning: Failed to find function aclsysGetCANNVersion (function operator())\n"
           "RuntimeError: Initialize:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:153 NPU function error: "
           "c10_npu::SetDevice(device_id_),\n")
    assert _categories(log)[0] == "version_mismatch"
    # other warnings stay unread: torchvision's missing image extension is no finding of the symbol rule
    warned = ("UserWarning: Failed to load image Python extension: '/x/torchvision/image.so: undefined symbol: "
              "_ZN3c1017RegisterOperatorsD1Ev'\nimport torch_npu\n")
    assert "missing_symbol" not in _categories(warned)


def test_a_multi_bit_ecc_fault_in_the_devices_black_box():
    log = ("/hisi_logs/device-0/20250101000000-1/bbox/kbox.txt:12[10.1] {6}[Hardware Error]  section_type: memory error\n"
           "/hisi_logs/device-0/20250101000000-1/bbox/kbox.txt:13[10.2] {6}[Hardware Error]  error_type: 3, multi-bit ECC\n")
    report = ex.explain_text(log)
    assert report.categories[0] == "documented_case"
    assert "健康管理" in report.findings[0].fix or "health management" in report.findings[0].fix
    # the same kernel report on a host that shows no Ascend device is not read
    host = "[Hardware Error]  error_type: 3, multi-bit ECC\n"
    assert ex.explain_text(host).findings == []


def test_the_task_schedulers_ai_core_time_out():
    log = ("[ERROR] TSCH(-1,null):2024-01-01-10:00:00.000.000 28 (cpuid:0) ai_core_dispatcher.c:1012 "
           "bs_done_exception_proc_timeout: slot_id=1,TS_ctrl=0x4, fault_task=3\n")
    report = ex.explain_text(log)
    assert report.categories[0] == "documented_case"
    assert "TaskLaunched" in report.findings[0].fix


def test_a_library_of_the_distribution_names_its_package():
    log = "import torch_npu\nImportError: libGL.so.1: cannot open shared object file: No such file or directory\n"
    found = next(f for f in ex.explain_text(log).findings if f.category == "missing_library")
    assert "mesa-libGL" in found.fix and "libgl1" in found.fix and "opencv-python-headless" in found.fix
    glib = "import torch_npu\nImportError: libgthread-2.0.so.0: cannot open shared object file: No such file or directory\n"
    found = next(f for f in ex.explain_text(glib).findings if f.category == "missing_library")
    assert "glib2" in found.fix and "headless" not in found.fix
