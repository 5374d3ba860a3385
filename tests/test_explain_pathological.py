"""``explain`` finishes quickly on any log: no regular expression of its rules backtracks without bound.

A 396-byte log from a public thread (a parenthesised run of words, ``Kunpeng-920 (standard ModelArts notebook
environment)``) kept ``explain`` busy for minutes: the launcher-prefix pattern ``\\((?:[\\w.]+ ?)+pid=\\d+\\)`` can
split a run of word characters in exponentially many ways before it fails. Here lines of the shapes that make such
patterns blow up (long runs of words, letters, dots, digits, underscores, spaces and repeated phrases, bare and after
error words and Ascend words) go through the whole reader in a child process with a time limit, one log each; every
one must finish in a fraction of the time a reader waits, and every log of every explain set too.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from explain_heldout_eval import DATA

RUN = """
import json, sys, time
from npulab.env.explain import explain_file, explain_text
explain_text("[ERROR] torch_npu ACL call failed")  # one-time loading (the message catalogue) is not a log's time
times = {}
for path in sys.argv[1:]:
    start = time.process_time()
    explain_file(path)
    times[path] = time.process_time() - start
    print(json.dumps([path, times[path]]), flush=True)
"""
LIMIT_S = 2.0  # CPU seconds per log (the child's own, so a busy machine does not count); a normal log takes milliseconds

RUNS = {
    "words_in_parentheses": "(" + " ".join(["word"] * 60) + ")",
    "words_then_close": "Kunpeng-920 (" + " ".join(f"w{i}" for i in range(80)) + " environment)",
    "letters_in_parentheses": "(" + "a" * 5000 + ")",
    "dotted_run": "a." * 3000 + "so",
    "long_token": "x" * 20000,
    "underscores": "A_" * 3000 + " is too small",
    "rank_digits": "[rank" + "1" * 5000,
    "version_digits": "pkg==1" + ".1" * 3000 + "x",
    "python_list": "only supports python " + "3.8, " * 500,
    "spaces_then_solution": " " * 10000 + "Solution",
    "solutions": "Solution: " * 1000,
    "pid_words": "(" + "Worker " * 2000 + "pid=",
    "so_versions": "lib" + ".so.1" * 2000 + ": cannot",
    "requirement": "pkg>=1, " + "<2, " * 1000 + "but you have",
    "support_question": "Is " * 2000 + "support " * 2000 + "支持" * 1000,
    "npu_indices": "npu:1 " * 3000 + "device " * 2000,
    "wrapped_words": "please set the " + "word " * 4000,
    "library_words": "lib" + "a." * 3000 + " not found, missing " + "lib" * 2000,  # round 9: other wordings
    "pins": "requires " + "pkg==1.0 " * 2000 + "pkg-" * 2000,
    "variable_names": "export ASCEND" + "_A" * 3000 + " HCCL_" + "B_" * 3000,
    "variable_values": "export ASCEND_RT_VISIBLE_DEVICES=" + "1," * 5000 + " HCCL_BUFFSIZE=" + "9" * 5000,
    "symptoms": "cannot " * 2000 + "conflict garbled crash " * 500,
    "working_release": "switching to " * 1000 + "a1.2 " * 2000 + "切换到" * 1000 + "正常",
    # round 9b: a library's folder, a package said missing in words
    "library_folder": "/a" * 4000 + "/libx.so: cannot open shared object file " + "/" * 3000 + "libx.so",
    "backend_words": "backend is set to " * 1000 + "invalid backend " * 1000 + "implementation for device " * 1000,
    "cuda_calls": "torch.cuda." * 3000 + "cuda " * 2000 + "device = " * 1000 + ".to( " * 1000,
    "uncalled_checks": "elif " * 2000 + "a." * 3000 + "is_" + "x" * 3000 + " if not " * 1000 + "available",
    "missing_words": "missing the " * 1000 + "a." * 3000 + " 缺少" * 1000 + "a" * 3000 + " package " * 500,
    # round 12: a taken port, an inference chip, a symptom in words, a documented variable
    "port_words": "port " * 3000 + "bind " * 1000 + "端口" * 1000 + "already " * 1000,
    "chip_words": "atlas " * 2000 + "300 " * 2000 + "310" * 2000 + "orange pi " * 500,
    "symptom_words": "is " * 2000 + "running " * 1000 + "on " * 1000 + "silently " * 1000 + "mis" * 1000 + "跑在" * 1000,
    "documented_variables": "ASCEND_RT_VISIBLE_DEVICES " * 2000 + "wrong " * 1000,
    "device_not_seen": "docker " + "cannot detect the " * 1000 + "no npu " * 1000 + "davinci" * 2000 + " not " * 500,
    "cpu_words": "gguf " + "running on " * 2000 + "falls back to the " * 1000 + "cpu" * 1000,
    # round 24: a device list, npu-smi in other wordings, HCCL's root info, a command line, a parameter to set
    "device_lists": "valid device " * 2000 + "only supported on " * 1000 + "cuda " * 1000 + "devices",
    "npu_smi_words": "npu-smi " * 3000 + "cannot find " * 1000 + "找不到" * 1000,
    "root_info": "get root info " * 3000 + "HcclGetRootInfo " * 1000 + "when using " * 1000 + "transfer_to_npu",
    "command_line": "$ " + "a/" * 3000 + "x " + "b " * 3000 + "-" * 3000,
    "parameter_advice": "maybe you should set " * 1000 + "a_" * 3000 + " --" * 1000,
}
FRAMES = ("{run}", "RuntimeError: {run}", "[ERROR] torch_npu ascend ACL {run}", "  File \"x.py\", line 1\n{run}\nValueError: {run}")


def _timed(paths: list[Path]) -> dict[str, float]:
    done = subprocess.run([sys.executable, "-c", RUN, *map(str, paths)], capture_output=True, text=True,
                          timeout=60 + LIMIT_S * len(paths))
    assert done.returncode == 0, done.stderr[-2000:]
    return dict(json.loads(line) for line in done.stdout.splitlines())


def test_lines_shaped_to_backtrack_are_read_quickly(tmp_path):
    paths = []
    for name, run in RUNS.items():
        for i, frame in enumerate(FRAMES):
            path = tmp_path / f"{name}_{i}.log"
            path.write_text(frame.format(run=run) + "\n", encoding="utf-8")
            paths.append(path)
    slow = {Path(p).name: round(s, 2) for p, s in _timed(paths).items() if s > LIMIT_S}
    assert not slow, slow


def test_every_log_of_every_set_is_read_quickly():
    paths = sorted(DATA.glob("explain_*/**/*.log"))
    assert len(paths) > 300
    slow = {Path(p).name: round(s, 2) for p, s in _timed(paths).items() if s > LIMIT_S}
    assert not slow, slow
