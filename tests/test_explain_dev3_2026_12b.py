"""Third development set of issue 36 (tests/data/explain_dev3_2026_12b): 11 error logs and 9 healthy or non-Ascend
logs from public threads cited nowhere else in the repository, labelled before the third round of rules (loss-scale
messages, compile timing lines, import and attribute errors between releases).
``python tests/test_explain_dev3_2026_12b.py`` prints the table and rates."""

from __future__ import annotations

from explain_heldout_eval import DATA, check_new_set, evaluate, report_lines

from npulab.env import explain as ex

FOLDER = DATA / "explain_dev3_2026_12b"
EARLIER = (DATA / "explain_heldout", DATA / "explain_heldout_2026_12", DATA / "explain_dev_2026_12b",
           DATA / "explain_dev2_2026_12b", DATA / "explain_dev2_2026_12b" / "probe")


def test_set_is_real_sizeable_and_cited_nowhere_else():
    check_new_set(FOLDER, EARLIER, 20, 10, 8)


def test_rates_on_the_third_development_set():
    """Development numbers (the fresh set is measured elsewhere): never silent on an error log, nothing on healthy
    or non-Ascend logs, and the floors the baseline already met are kept."""
    result = evaluate(FOLDER)
    rates = result["rates"]
    assert rates["healthy"][0] >= BASELINE_HEALTHY, [r["log"] for r in result["rows"] if r["expect"] == "none" and not r["hit"]]
    assert rates["silent"][0] <= BASELINE_SILENT, [r["log"] for r in result["rows"] if r["silent"]]
    assert rates["unanticipated"][0] >= BASELINE_UNANTICIPATED, \
        [r for r in result["rows"] if r["expect"] == [] and not r["hit"]]


BASELINE_SILENT = 0  # round 22 (a CANN image's /usr/local/python3.x; after the third round 1, README: baseline 3, 8, 8)
BASELINE_UNANTICIPATED = 10  # round 22
BASELINE_HEALTHY = 8


def _fix(text: str) -> str:
    report = ex.explain_text(text)
    return report.findings[0].fix if report.findings else ""


def test_import_errors_name_the_concrete_pip_command():
    """Item 3 of issue 36: the fix names the action with the package's PyPI name (module.pypi in explain_rules.yaml)."""
    assert "pip install opencv-python" in _fix("import torch_npu\nModuleNotFoundError: No module named 'cv2'")
    assert "pip install -U vllm-ascend" in _fix("ModuleNotFoundError: No module named 'vllm_ascend.distributed'")
    fix = _fix("import torch_npu\nImportError: cannot import name 'foo' from 'transformers.utils'. "
               "This requires transformers>=4.40.0 to be installed")
    assert "pip install 'transformers>=4.40.0'" in fix and "upgrade" in fix
    assert "import it from transformers.integrations" in _fix(
        "import torch_npu\nImportError: cannot import name 'Foo' from 'transformers.utils'; "
        "it has been moved to transformers.integrations")


def test_npu_stack_errors_are_answered_without_other_evidence_and_cuda_logs_stay_silent():
    accelerate = "ImportError: cannot import name 'is_npu_available' from 'accelerate.utils'"
    assert "pip install -U accelerate" in _fix(accelerate)
    assert ex.explain_text("NVIDIA-SMI 535.54 Driver Version: 535.54\nnvidia-smi\n" + accelerate).findings == []
    assert ex.explain_text("ModuleNotFoundError: No module named 'cv2'").findings == []  # nothing of Ascend at all


def test_torch_npu_grad_scaler_notice_is_not_an_overflow():
    """op-plugin prints it once whenever GradScaler unscales on the NPU (catalog negative of fp16_overflow)."""
    assert ex.explain_text("import torch_npu\nWarning: Non finite check and unscale on NPU device!\n").findings == []


if __name__ == "__main__":
    print("\n".join(report_lines(evaluate(FOLDER))))


def test_source_printed_warnings_of_transfer_to_npu_and_acl_graph_capture():
    """transfer_to_npu.py's profiler warning asks for a code change (transfer_to_npu family); vLLM-Ascend's ACL graph
    capture lines (model_runner_v1.py) are start-up progress, not a finding by themselves."""
    profiler = ("import torch_npu\nfrom torch_npu.contrib import transfer_to_npu\n"
                "[WARNING] The parameter experimental_config of torch.profiler.profile has been deleted by the tool "
                "because it can only be used in cuda, please manually modify the code and use the experimental_config "
                "parameter adapted to npu.\n")
    report = ex.explain_text(profiler)
    assert report.categories[:1] == ["transfer_to_npu"] and "_ExperimentalConfig" in report.findings[0].fix
    capture = ("(Worker_TP0 pid=1) INFO 10-11 11:30:28 [model_runner_v1.py:3502] Starting to capture ACL graphs for "
               "cases: [512, 1], mode: PIECEWISE, uniform_decode: False\n"
               "Capturing ACL graphs (mixed prefill-decode, PIECEWISE): 100%\n")
    assert ex.explain_text(capture).findings == []
