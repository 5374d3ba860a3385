"""Round 18 of issue 36: the failing component — the package, source tree or Ascend component an error is raised in,
with the version the log lists — as the finding ``failing_component`` when no catalog family and no documented entry
spoke. Each case is a log written here from the documented forms (Python tracebacks, pybind11's "At:" list, the
compiler's diagnostic line, Ascend's install paths, pip's listings), never a log of a set."""

from __future__ import annotations

import pytest

from npulab.env import explain as ex
from npulab.env import torch_install
from npulab.env.explain import failing

ASCEND = "[INFO] torch_npu on Ascend 910B3, CANN 8.0.RC3\n"  # a line that makes a log about Ascend
PLUGIN = ("Traceback (most recent call last):\n"
          '  File "/srv/run.py", line 3, in <module>\n'
          '  File "/usr/local/lib/python3.10/site-packages/vllm_ascend/worker/model_runner_v1.py", line 88, in load\n'
          "    self.budget = self.runner.budget\n"
          "AttributeError: 'NPUModelRunner' object has no attribute 'budget'\n")


def _failing(report: ex.Report) -> ex.Finding:
    return next(f for f in report.findings if f.category == failing.CATEGORY)


def test_an_error_raised_inside_a_package_names_it_and_its_upgrade_among_the_first_two():
    report = ex.explain_text(ASCEND + "vllm-ascend        0.9.1\n" + PLUGIN)
    assert failing.CATEGORY in report.categories[:2]
    found = _failing(report)
    assert "vllm-ascend 0.9.1" in found.title  # the distribution's name (vllm_ascend → vllm-ascend) and its version
    assert "pip install --upgrade vllm-ascend" in found.fix
    assert report.categories[-1] == ex.GENERIC  # the generic finding stays last


def test_an_npu_package_frame_is_ascend_evidence_enough_never_silent():
    report = ex.explain_text(PLUGIN)  # no other Ascend word: the frame is in an NPU package
    assert failing.CATEGORY in report.categories[:2]


def test_pybind11_frame_list_names_the_innermost_frame():
    log = (ASCEND + "RuntimeError: expected a tensor on the same device\n\nAt:\n"
           "  /opt/py/lib/python3.11/site-packages/mindspeed/core/fusions/rotary.py(41): apply\n"
           "  /opt/py/lib/python3.11/site-packages/megatron/core/models/gpt.py(300): forward\n")
    found = _failing(ex.explain_text(log))
    assert "mindspeed" in found.title and "pip install --upgrade mindspeed" in found.fix


def test_a_compiler_error_names_the_source_tree_and_its_update():
    log = ("/work/llama.cpp/ggml/src/ggml-cann/aclnn_ops.cpp:1203:5: error: use of undeclared identifier "
           "'aclnnFoo'\n")
    report = ex.explain_text(log)
    assert report.categories[0] == failing.CATEGORY  # a tree with a CANN back end: an Ascend log
    found = _failing(report)
    assert "llama.cpp" in found.title and "git pull" in found.fix and "rebuild" in report.findings[0].fix


@pytest.mark.parametrize(("path", "tree"), [
    ("/home/u/llama.cpp/ggml/src/ggml-cann/common.h", "llama.cpp"),
    ("/root/PaddleCustomDevice/backends/npu/kernels/conv_kernel.cc", "PaddleCustomDevice"),
    ("/tmp/build/src/main.cc", None),  # "build" is no tree's name
])
def test_tree_of(path, tree):
    assert failing.tree_of(path) == tree


def test_an_ascend_component_path_names_the_component():
    log = (ASCEND + "Traceback (most recent call last):\n"
           '  File "/usr/local/Ascend/atb-models/atb_llm/runner/model_runner.py", line 120, in load_weights\n'
           "ValueError: weight shape mismatch for lm_head\n")
    found = _failing(ex.explain_text(log))
    assert "atb-models" in found.title and "CANN" in found.fix


def test_torch_npu_is_reinstalled_only_through_the_courses_install_helper():
    log = (ASCEND + "Traceback (most recent call last):\n"
           '  File "/usr/lib/python3/site-packages/torch_npu/utils/_module.py", line 9, in wrap\n'
           "TypeError: wrap() takes 2 positional arguments but 3 were given\n")
    report = ex.explain_text(log)
    found = next((f for f in report.findings if f.category == failing.CATEGORY), None)
    if found is not None:
        placeholder = torch_install.PLACEHOLDER
        assert torch_install.pair_text(placeholder, placeholder) in found.fix
        assert "pip install --upgrade torch" not in found.fix


def test_a_dependency_the_error_line_names_is_checked_against_the_components_pin():
    log = (ASCEND + "Traceback (most recent call last):\n"
           '  File "/usr/local/lib/python3.10/site-packages/vllm_ascend/ops/sampler.py", line 12, in <module>\n'
           "AttributeError: `np.float_` was removed in the NumPy 2.0 release. Use `np.float64` instead.\n")
    fix = _failing(ex.explain_text(log)).fix
    assert "`numpy`" in fix and "pip check" in fix


def test_no_failing_component_when_a_family_spoke():
    log = ASCEND + PLUGIN + "ImportError: libhccl.so: cannot open shared object file: No such file or directory\n"
    report = ex.explain_text(log)
    assert report.families and failing.CATEGORY not in report.categories


def test_a_foreign_or_healthy_traceback_stays_clean():
    cuda = ("Traceback (most recent call last):\n"
            '  File "/usr/lib/python3/site-packages/transformers/trainer.py", line 9, in train\n'
            "RuntimeError: CUDA out of memory on device cuda:0\n")
    assert ex.explain_text(cuda).findings == []
    plain = ("Traceback (most recent call last):\n"
             '  File "/usr/lib/python3/site-packages/transformers/trainer.py", line 9, in train\n'
             "KeyError: 'labels'\n")  # no machine named, no NPU package: not the course's business
    assert failing.CATEGORY not in ex.explain_text(plain).categories


def test_the_listing_of_pip_show_gives_the_version():
    log = ASCEND + "Name: vllm_ascend\nVersion: 0.10.0rc1\n" + PLUGIN
    assert "0.10.0rc1" in _failing(ex.explain_text(log)).title


def test_english_edition(monkeypatch):
    monkeypatch.setenv("NPULAB_LANG", "en")
    found = _failing(ex.explain_text(ASCEND + PLUGIN))
    assert found.title.startswith("The error is raised inside vllm-ascend")
    assert "Upgrade `vllm_ascend` to its latest release" in found.fix


def test_an_error_raised_in_torch_on_a_callers_arguments_names_the_caller():
    log = (ASCEND + "Traceback (most recent call last):\n"
           '  File "/usr/local/lib/python3.10/site-packages/verl/workers/actor.py", line 40, in step\n'
           "    out = torch.cat(parts)\n"
           '  File "/usr/local/lib/python3.10/site-packages/torch/utils/_device.py", line 104, in __torch_function__\n'
           "    return func(*args, **kwargs)\n"
           "RuntimeError: Sizes of tensors must match except in dimension 1\n")
    found = _failing(ex.explain_text(log))
    assert found.title.startswith("报错出在 verl") and "`torch`" in found.cause
    assert "pip install --upgrade verl" in found.fix


def test_a_shared_object_a_symbol_error_names_is_its_package():
    log = (ASCEND + "ImportError: /usr/local/lib/python3.11/site-packages/sgl_kernel_npu/ops.cpython-311-aarch64-linux-gnu"
           ".so: undefined symbol: _Z12fused_moe_v2v\n")  # a symbol of the package's own, not of torch or CANN
    report = ex.explain_text(log)
    assert failing.CATEGORY in report.categories[:2]
    assert "sgl-kernel-npu" in _failing(report).title and "pip install --upgrade sgl-kernel-npu" in _failing(report).fix


def test_an_ascend_path_in_a_setting_is_not_the_failing_component():
    log = (ASCEND + "ATB_HOME_PATH=/usr/local/Ascend/nnal/atb/latest/atb/cxx_abi_1\n"
           "RuntimeError: the model failed to start\n")
    assert failing.CATEGORY not in ex.explain_text(log).categories


@pytest.mark.parametrize("line", ["vllm-ascend: v0.13.0rc1", "image: quay.io/ascend/vllm-ascend:v0.13.0rc1"])
def test_a_version_from_a_colon_row_or_an_image_tag(line):
    assert "0.13.0rc1" in _failing(ex.explain_text(ASCEND + line + "\n" + PLUGIN)).title


def test_the_cause_says_what_showed_the_component():
    native = ("[F 12/ 1 14:47:20.689 ...le-Lite/lite/kernels/nnadapter/engine.cc:294 Engine] Check failed: "
              "(device_names.size() > 0): 0!>0 No device specified.\n")
    assert "C++" in _failing(ex.explain_text(native)).cause  # its C++ sources, not a Python frame
    pybind = (ASCEND + "RuntimeError: bad shape\n\nAt:\n  /p/site-packages/mindspeed/ops/x.py(3): f\n")
    assert "At:" in _failing(ex.explain_text(pybind)).cause
