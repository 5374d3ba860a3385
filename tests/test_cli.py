import subprocess
import sys


def run(*args):
    return subprocess.run([sys.executable, "-m", "npulab", *args], capture_output=True, text=True)


def test_no_tool_is_a_usage_error_in_chinese():
    r = run()
    assert r.returncode == 2
    assert "参数错误" in r.stderr and "Traceback" not in r.stderr


def test_unknown_tool():
    r = run("no-such-tool")
    assert r.returncode == 2 and "无效的选项" in r.stderr and "Traceback" not in r.stderr


def test_help_lists_tools():
    r = run("--help")
    assert r.returncode == 0
    for tool in ("doctor", "lint-npu", "record", "lab-export"):
        assert tool in r.stdout


def test_record_refuses_without_npu(tmp_path):
    r = run("record", str(tmp_path))
    assert r.returncode == 2 and "没有可用的昇腾 NPU" in r.stderr and "Traceback" not in r.stderr


def test_record_bad_path():
    r = run("record", "/no/such/dir")
    assert r.returncode == 2 and "路径不存在" in r.stderr


def test_bench_matmul_json_and_bad_input():
    import json

    r = run("bench", "matmul", "--sizes", "64", "--repeats", "2", "--json")
    assert r.returncode == 0
    result = json.loads(r.stdout)["results"][0]
    assert result["n"] == 64 and result["gflops"] > 0
    for bad in (["--sizes", "0"], ["--sizes", "x"], ["--dtype", "nope", "--sizes", "8"], ["--repeats", "0", "--sizes", "8"]):
        r = run("bench", "matmul", *bad)
        assert r.returncode == 2 and "错误" in r.stderr and "Traceback" not in r.stderr
