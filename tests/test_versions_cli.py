"""``python -m npulab versions``: install commands for a CANN / driver / chip, read from compatibility.yaml."""

import json
import subprocess
import sys

from npulab.env import compatibility as compat
from npulab.env import torch_install
from npulab.env.versions_cli import resolve


def run(*args):
    return subprocess.run([sys.executable, "-m", "npulab", "versions", *args], capture_output=True, text=True)


def test_commands_are_the_official_rows_for_this_cann():
    torch = next(s for s in resolve("8.0.0") if s.title.startswith("PyTorch"))
    rows = compat.torch_npu_for_cann("8.0.0")
    assert rows and torch.commands == [torch_install.pair_text(r["pytorch"], r["torch_npu"]) for r in rows]
    assert all(c.startswith(f"pip install torch=={r['pytorch']} --index-url {torch_install.CPU_INDEX} && ")
               for c, r in zip(torch.commands, rows, strict=True))
    assert torch.sources and torch.status == "ok"


def test_driver_checked_against_the_matrix():
    driver = next(s for s in resolve("9.1.0", "26.1.0") if "驱动" in s.title)
    assert compat.hdk_compatible("9.1.0", "26.1.0") is True and driver.status == "ok"
    unknown = next(s for s in resolve("8.0.0", "1.0.0") if "驱动" in s.title)
    assert compat.hdk_compatible("8.0.0", "1.0.0") is None and unknown.status == "warn" and "无法判断" in unknown.lines[-1]


def test_mindspore_pairs_are_exact_matches():
    ms = next(s for s in resolve("8.0.0") if s.title.startswith("MindSpore"))
    assert ms.commands, ms.lines
    for cmd in ms.commands:
        version = cmd.rsplit("==", 1)[1]
        assert any(p["match"] == "exact" for p in compat.cann_for_mindspore(version))


def test_without_cann_the_recommended_row_and_json():
    r = run("--json")
    assert r.returncode == 0, r.stderr
    sections = json.loads(r.stdout)["sections"]
    row = compat.table("recommended")[0]
    assert sections[-1]["commands"] == [f"pip install torch=={row['pytorch']} --index-url {torch_install.CPU_INDEX}"
                                        f" && pip install torch-npu=={row['torch_npu']}"]


def test_chip_section_and_text_output():
    r = run("--cann", "9.1.0", "--chip", "910B3")
    assert r.returncode == 0 and "芯片 910B3" in r.stdout and "$ pip install torch==" in r.stdout


def test_usage_errors_in_chinese():
    for args, words in ((("--cann", "foo"), "无法识别的 CANN 版本"), (("--chip", "nope"), "芯片表里没有")):
        r = run(*args)
        assert r.returncode == 2 and words in r.stderr and "Traceback" not in r.stderr
