"""The CUDA → NPU migration analyzer: every rule (found and not found), notebooks, bad files, rewrites, CLI."""

import ast
import json
import os
import subprocess
import sys
import textwrap

import nbformat
import pytest

from npulab import migrate
from npulab.core.device import Device
from npulab.core.paths import REPO_ROOT
from npulab.migrate import sources, symbols, tables
from npulab.migrate.model import AUTO, BLOCKER, MANUAL
from npulab.migrate.standin import run_script

EXAMPLE = REPO_ROOT / "chapters" / "03_pytorch_npu" / "examples" / "train_cuda.py"


def rules(code: str) -> dict[str, str]:
    """rule → severity of the findings of a snippet (the most severe when a rule fires twice)."""
    order = {AUTO: 0, MANUAL: 1, BLOCKER: 2}
    found: dict[str, str] = {}
    for f in migrate.scan_source(textwrap.dedent(code)).findings:
        if f.rule not in found or order[f.severity] > order[found[f.rule]]:
            found[f.rule] = f.severity
    return found


# (rule, code, expected severity or None when the rule must NOT fire)
CASES = [
    ("cuda-method", "y = x.cuda()\n", AUTO),
    ("cuda-method", "y = x.cuda(0, non_blocking=True)\n", AUTO),
    ("cuda-method", "torch.Tensor.cuda(x)\n", AUTO),
    ("cuda-method", "if args.cuda:\n    pass\n", None),
    ("cuda-method", "m = getattr(model, 'cuda')()\n", AUTO),
    ("cuda-method", "use = getattr(args, 'cuda')\n", None),
    ("cuda-method", "from numba import cuda\ncuda.jit(f)\n", None),
    ("is-cuda", "if x.is_cuda:\n    pass\n", AUTO),
    ("is-cuda", "self.is_cuda = True\n", None),
    ("device-string", 'device = "cuda" if torch.cuda.is_available() else "cpu"\n', AUTO),
    ("device-string", 'd = torch.device("cuda", 0)\n', AUTO),
    ("device-string", 'y = x.to(device="cuda:1")\n', AUTO),
    ("device-string", 'd = f"cuda:{local_rank}"\n', AUTO),
    ("device-string", 'd = "cuda:{}".format(gpu)\n', AUTO),
    ("device-string", 'd = "cuda:%d" % gpu\n', AUTO),
    ("device-string", 'd = "cuda:" + str(gpu)\n', AUTO),
    ("device-string", 'def f(device="cuda"):\n    pass\n', AUTO),
    ("device-string", 'ok = x.device.type == "cuda"\n', AUTO),
    ("device-string", 'print("cuda is not available, using cpu")\n', None),
    ("device-string", 'print("cuda")\n', None),
    ("device-string", 'logger.info(f"cuda:{rank} ready")\n', None),
    ("device-string", 'raise RuntimeError("cuda")\n', None),
    ("device-string", '"""Train on cuda."""\n', None),
    ("device-string", 'flag = cfg["cuda"]\n', None),
    ("device-string", 'flag = cfg.get("cuda", False)\n', None),
    ("device-string", 'flag = getattr(args, "cuda")\n', None),
    ("device-string", 'p.add_argument("--cuda", action="store_true", help="cuda")\n', None),
    ("device-string", 'msg = "the cuda device"\n', None),
    ("device-string", 'name = "CUDA"\n', None),
    ("device-key", 'backends = {"cuda": "nccl", "cpu": "gloo"}\n', MANUAL),
    ("device-key", 'backends = {"npu": "hccl", "cuda": "nccl", "cpu": "gloo"}\n', None),
    ("nccl-backend", 'backends = {"npu": "hccl", "cuda": "nccl", "cpu": "gloo"}\n', None),
    ("device-string", 'p.add_argument("--device", choices=["cpu", "cuda", "npu"])\n', None),
    ("device-string", 'import torch_npu\nuse_amp = device.type in ("cuda", "npu")\nok = device.type == "cuda"\n', MANUAL),
    ("device-string", 'import torch_npu\nok = device.type == "cuda"\n', AUTO),
    ("tensor-type-string", 'x = x.type("torch.cuda.FloatTensor")\n', AUTO),
    ("torch-cuda", "torch.cuda.synchronize()\n", AUTO),
    ("torch-cuda", "import torch as th\nn = th.cuda.device_count()\n", AUTO),
    ("torch-cuda", "import torch.cuda as tc\ntc.synchronize()\n", AUTO),
    ("torch-cuda", "mem = torch.cuda.memory.mem_get_info()\n", AUTO),
    ("torch-cuda", 'ok = hasattr(torch, "cuda")\n', AUTO),
    ("torch-cuda", "torch.npu.synchronize()\n", None),
    ("torch-cuda-import", "from torch.cuda.amp import autocast, GradScaler\nwith autocast():\n    pass\n", AUTO),
    ("torch-cuda-import", "from torch import cuda\ncuda.empty_cache()\n", AUTO),
    ("torch-cuda-alias", "import torch.cuda as tc\ntc.synchronize()\ntc.nvtx.range_push('x')\n", MANUAL),
    ("torch-cuda-missing", "torch.cuda.nvtx.range_push('step')\n", MANUAL),
    ("torch-cuda-missing", "g = torch.cuda.CUDAGraph()\n", MANUAL),
    ("torch-cuda-missing", "f = torch.cuda.jiterator._create_jit_fn('x')\n", BLOCKER),
    ("torch-cuda-review", "t = torch.cuda.DoubleTensor(3)\n", MANUAL),
    ("torch-cuda-unknown", "torch.cuda.some_future_api()\n", MANUAL),
    ("amp-device", 'with torch.autocast("cuda", dtype=torch.bfloat16):\n    pass\n', AUTO),
    ("amp-device", 'with torch.amp.autocast(device_type="cuda"):\n    pass\n', AUTO),
    ("amp-device", "with torch.autocast(device_type=device.type):\n    pass\n", None),
    ("amp-default-device", "scaler = torch.amp.GradScaler()\n", AUTO),
    ("amp-default-device", "scaler = torch.amp.GradScaler(init_scale=1024)\n", AUTO),
    ("amp-default-device", 'scaler = torch.amp.GradScaler("npu")\n', None),
    ("cudnn", "torch.backends.cudnn.benchmark = True\n", MANUAL),
    ("cudnn", "import torch.backends.cudnn as cudnn\ncudnn.deterministic = True\n", MANUAL),
    ("backends-cuda", "torch.backends.cuda.matmul.allow_tf32 = True\n", MANUAL),
    ("backends-cuda", "from torch.nn.attention import SDPBackend, sdpa_kernel\nwith sdpa_kernel(SDPBackend.FLASH_ATTENTION):\n    pass\n", MANUAL),
    ("backends-cuda", "from torch.nn.attention import SDPBackend\nb = SDPBackend.MATH\n", None),
    ("torch-cuda-review", "if torch.cuda.get_device_capability()[0] >= 8:\n    pass\n", MANUAL),
    ("torch-version-cuda", "print(torch.version.cuda)\n", MANUAL),
    ("nccl-backend", 'dist.init_process_group("nccl")\n', AUTO),
    ("nccl-backend", 'dist.init_process_group(backend="nccl", init_method="env://")\n', AUTO),
    ("nccl-backend", 'p.add_argument("--dist-backend", default="nccl", type=str)\n', AUTO),
    ("nccl-backend", 'dist.init_process_group(backend="cpu:gloo,cuda:nccl")\n', AUTO),
    ("nccl-backend", 'dist.init_process_group("gloo")\n', None),
    ("nccl-backend", 'print("nccl")\n', None),
    ("nccl-api", "import torch.distributed as dist\nok = dist.is_nccl_available()\n", AUTO),
    ("nccl-api", "b = torch.distributed.Backend.NCCL\n", MANUAL),
    # CUDA_VISIBLE_DEVICES is manual: CUDA takes any order, UUIDs and MIG ids; ASCEND_RT_VISIBLE_DEVICES only ascending
    # logical ids and stops reading silently at the first bad one (envref_07_0028), so renaming is not a safe rewrite
    ("env-var-manual", 'os.environ["CUDA_VISIBLE_DEVICES"] = "0,1"\n', MANUAL),
    ("env-var-manual", 'os.environ.setdefault("CUDA_VISIBLE_DEVICES", "0")\n', MANUAL),
    ("env-var-manual", 'subprocess.run("CUDA_VISIBLE_DEVICES=1 python t.py", shell=True)\n', MANUAL),
    ("env-var", 'os.environ["CUDA_LAUNCH_BLOCKING"] = "1"\n', AUTO),
    ("env-var", 'os.environ["HOME"] = "/root"\n', None),
    ("env-var", 'p.add_argument("--gpus", help="set CUDA_VISIBLE_DEVICES yourself")\n', None),
    ("env-var-manual", 'os.environ["NCCL_DEBUG"] = "INFO"\n', MANUAL),
    ("env-var-manual", 'os.environ["PYTORCH_CUDA_ALLOC_CONF"] = "expandable_segments:True"\n', MANUAL),
    ("nvidia-tool", 'subprocess.run(["nvidia-smi"])\n', MANUAL),
    ("nvidia-tool", 'out = subprocess.check_output("nvidia-smi --query-gpu=name --format=csv", shell=True)\n', MANUAL),
    ("nvidia-tool", 'os.system("sleep 1; /usr/bin/nvidia-smi -L")\n', MANUAL),
    ("nvidia-tool", 'print("run nvidia-smi to check the GPU")\n', None),
    ("profiler-cuda", "acts = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]\n", MANUAL),
    ("profiler-cuda", "with torch.autograd.profiler.profile(use_cuda=True) as prof:\n    pass\n", MANUAL),
    ("profiler-cuda", "acts = [torch.profiler.ProfilerActivity.CPU]\n", None),
    ("compile", "model = torch.compile(model)\n", MANUAL),
    ("compile", "@torch.compile\ndef f(x):\n    return x\n", MANUAL),
    ("compile", "torch._dynamo.config.suppress_errors = True\n", MANUAL),
    ("compile", "model = torch.jit.trace(model, x)\n", None),
    ("cpp-extension", "from torch.utils.cpp_extension import load_inline\nm = load_inline('m', cpp_sources=a, cuda_sources=b)\n", BLOCKER),
    ("cpp-extension", "from torch.utils.cpp_extension import load_inline\nm = load_inline('m', cpp_sources=a)\n", None),
    ("cpp-extension", "from torch.utils import cpp_extension\nm = cpp_extension.load('m', sources=['a.cpp', 'k.cu'])\n", BLOCKER),
    ("cpp-extension", "from torch.utils.cpp_extension import load\nm = load('m', sources=['a.cpp'])\n", None),
    ("cpp-extension", "from torch.utils.cpp_extension import CUDAExtension\next = CUDAExtension('k', ['k.cu'])\n", BLOCKER),
    ("cuda-home", "from torch.utils.cpp_extension import CUDA_HOME\nprint(CUDA_HOME)\n", MANUAL),
    ("cuda-package", "import apex\n", MANUAL),  # a named replacement (torch.amp …): manual, as 06/03 says
    ("cuda-package", "from apex.parallel import DistributedDataParallel\n", MANUAL),
    ("cuda-package", "from flash_attn import flash_attn_func\n", MANUAL),
    ("cuda-package", "import bitsandbytes as bnb\n", BLOCKER),  # no Ascend version
    ("cuda-package", "import transformer_engine\n", BLOCKER),
    ("cuda-package", "from numba import cuda\n", BLOCKER),
    ("cuda-package", "import numba\nf = numba.cuda.jit(g)\n", BLOCKER),
    ("cuda-package", "import pynvml\n", MANUAL),
    ("cuda-package", "import triton\n", MANUAL),
    ("cuda-package", "try:\n    import apex\nexcept ImportError:\n    apex = None\n", MANUAL),
    ("cuda-package", "import numba\nimport numpy\nfrom . import cuda_utils\n", None),
    ("pip-package", "import os\nos.system('pip install flash-attn==2.5.0 numpy')\n", MANUAL),
    ("pip-package", "import os\nos.system('pip install bitsandbytes')\n", BLOCKER),
    ("pip-package", "import os\nos.system('pip install numpy')\n", None),
    ("device-map", 'm = AutoModel.from_pretrained(p, device_map="cuda")\n', MANUAL),
    ("device-map", 'm = AutoModel.from_pretrained(p, device_map={"": "cuda:0"})\n', MANUAL),
    ("device-map", 'm = AutoModel.from_pretrained(p, device_map="auto")\n', None),
    ("accelerator-gpu", 'trainer = Trainer(accelerator="gpu", devices=2)\n', MANUAL),
    ("tensor-type-string", 'x = x.type("torch.FloatTensor")\n', None),
    ("torch-cuda-import", "from torch.amp import autocast\n", None),
    ("torch-cuda-missing", "g = torch.npu.NPUGraph()\n", None),
    ("torch-cuda-review", "t = torch.cuda.FloatTensor(3)\n", None),
    ("torch-cuda-unknown", "torch.cuda.synchronize()\n", None),
    ("torch-cuda-alias", "import torch.cuda as tc\ntc.synchronize()\n", None),
    ("cudnn", "torch.backends.mkldnn.enabled = True\n", None),
    ("backends-cuda", "ok = torch.backends.mps.is_available()\n", None),
    ("torch-version-cuda", "print(torch.__version__)\n", None),
    ("nccl-api", "import torch.distributed as dist\nok = dist.is_gloo_available()\n", None),
    ("env-var-manual", 'os.environ["OMP_NUM_THREADS"] = "4"\ncmd = "CUDA_FLAG=1 ./run.sh"\n', None),
    ("cuda-home", "from torch.utils.cpp_extension import CppExtension\next = CppExtension('x', ['x.cpp'])\n", None),
    ("cpp-extension", "from torch.utils.cpp_extension import CppExtension\next = CppExtension('x', ['x.cpp'])\n", None),
    ("accelerator-gpu", 'trainer = Trainer(accelerator="cpu")\n', None),
    ("profiler-cuda", "with torch.autograd.profiler.profile(use_cuda=False) as prof:\n    pass\n", None),
    ("import-torch-npu", "import torch\nx = torch.ones(1).cuda()\n", AUTO),
    ("import-torch-npu", "import torch\nimport torch_npu\nx = torch.ones(1).cuda()\n", None),
    ("import-torch-npu", "from torch.cuda.amp import autocast\nwith autocast():\n    pass\n", None),
    ("import-torch-npu", "import torch\ntorch.backends.cudnn.benchmark = True\n", None),
]


@pytest.mark.parametrize(("rule", "code", "expected"), CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_rule(rule, code, expected):
    found = rules(code)
    if expected is None:
        assert rule not in found, found
    else:
        assert found.get(rule) == expected, found


def test_every_rule_of_the_table_has_cases():
    tested = {rule for rule, *_ in CASES} | {"cuda-source"}  # .cu files: test_cuda_source_files
    positive = {rule for rule, _, expected in CASES if expected}
    negative = {rule for rule, _, expected in CASES if expected is None}
    assert set(tables.load()["rules"]) <= tested
    assert set(tables.load()["rules"]) - {"cuda-source"} <= positive & negative


def test_no_false_alarm_on_device_agnostic_code():
    code = """
    import torch
    from npulab.core.device import pick_device

    device = pick_device()
    model = torch.nn.Linear(4, 2).to(device.torch)
    with torch.autocast(device_type=device.kind, dtype=torch.bfloat16, enabled=device.kind == "cpu"):
        y = model(torch.randn(3, 4, device=device.torch))
    print("running on", device, "— no cuda strings here")
    """
    assert migrate.scan_source(textwrap.dedent(code)).findings == []


def test_finding_fields_positions_and_json():
    result = migrate.scan_source("import torch\n\nx = torch.zeros(2).cuda()\n", "t.py")
    f = next(f for f in result.findings if f.rule == "cuda-method")
    assert (f.path, f.line, f.col, f.severity) == ("t.py", 3, 20, AUTO)
    assert f.message and f.suggestion and f.cell is None
    doc = result.to_dict()
    assert set(doc) >= {"files_scanned", "findings", "errors"} and doc["files_scanned"] == 1
    assert set(doc["findings"][0]) == {"path", "line", "col", "rule", "severity", "message", "suggestion"}


def test_effort_summary():
    assert migrate.scan_source("x = 1\n").effort()["scenario"] is None
    effort = migrate.scan_source("import torch\nx = torch.ones(1).cuda()\n").effort()
    assert effort["scenario"]["id"] == "device_strings" and effort["counts"][AUTO] == 2
    effort = migrate.scan_source("import torch\ntorch.backends.cudnn.benchmark = True\nimport tensorrt\n").effort()
    assert [s["id"] for s in effort["scenarios"]] == ["env_debugging", "full_pipeline"]
    assert effort["scenario"]["seed_estimate"] and effort["scenario"]["days"] == [14, 28]
    assert set(effort["transfer_to_npu"]) == {"covered", "partly", "not_covered"}


def test_cuda_source_files(tmp_path):
    (tmp_path / "kernels.cu").write_text("#include <cuda_runtime.h>\n\n__global__ void add(float *a) {}\n")
    (tmp_path / "k.cuh").write_text("__global__ void k();\n")
    (tmp_path / "host.cpp").write_text("int main() { return 0; }\n")  # C++ without CUDA: not scanned
    result = migrate.scan([tmp_path])
    found = [f for f in result.findings if f.rule == "cuda-source"]
    assert len(found) == 2 and all(f.severity == BLOCKER for f in found)
    assert found[1].line == 3 and "1 个 __global__" in found[1].message
    assert result.effort()["scenario"]["id"] == "simple_kernel"


def test_notebook_cells_magics_and_shell(tmp_path):
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell("在 cuda 上训练"),
        nbformat.v4.new_code_cell("import torch\nfrom torch.cuda.amp import autocast"),
        nbformat.v4.new_code_cell("!nvidia-smi\n%env CUDA_VISIBLE_DEVICES=1\nx = torch.ones(2).cuda()"),
        nbformat.v4.new_code_cell("%%time\nwith autocast():\n    y = x * 2\ntorch.cuda.synchronize()"),
        nbformat.v4.new_code_cell("%%bash\nCUDA_VISIBLE_DEVICES=0 python t.py\nnvidia-smi"),
        nbformat.v4.new_code_cell("def broken(:\n    pass"),
        nbformat.v4.new_code_cell("%pip install bitsandbytes"),
        nbformat.v4.new_code_cell("%%writefile train.py\nimport torch\nmodel = torch.nn.Linear(2, 2).cuda()\n"),
        nbformat.v4.new_code_cell("%%html\n<b>cuda</b>"),
    ]
    path = tmp_path / "n.ipynb"
    nbformat.write(nb, path)
    result = migrate.scan([path])
    got = {(f.cell, f.line, f.rule, f.severity) for f in result.findings}
    assert {(1, 2, "torch-cuda-import", AUTO), (2, 1, "nvidia-tool", MANUAL), (2, 2, "env-var-manual", MANUAL),
            (2, 3, "cuda-method", AUTO), (3, 4, "torch-cuda", AUTO), (4, 2, "env-var-manual", MANUAL),
            (4, 3, "nvidia-tool", MANUAL), (6, 1, "pip-package", BLOCKER), (7, 3, "cuda-method", AUTO)} <= got
    assert not any(f.cell == 8 for f in result.findings)
    assert result.files_scanned == 1 and len(result.errors) == 1 and "第 5 个代码单元" in result.errors[0].message
    assert result.findings[0].to_dict()["cell"] == 1

    written, errors = migrate.write(result)
    assert written == [str(path)] and errors == []
    nbformat.validate(nbformat.read(path, as_version=4))
    again = migrate.scan([path])
    assert again.counts()[AUTO] == 0
    cells = [c.source for c in nbformat.read(path, as_version=4).cells]
    assert "from torch_npu.npu.amp import autocast" in cells[1] and "%env CUDA_VISIBLE_DEVICES=1" in cells[2]  # manual: left for a person


def test_bad_files_go_to_errors_and_the_scan_goes_on(tmp_path, monkeypatch):
    (tmp_path / "good.py").write_text("x = y.cuda()\n")
    (tmp_path / "syntax.py").write_text("print 'python 2'\n")
    (tmp_path / "latin.py").write_bytes("# é\nx = 1\n".encode("latin-1"))
    (tmp_path / "nul.py").write_bytes(b"x = 1\x00\n")
    (tmp_path / "huge.py").write_text("x = 1\n" * 100)
    (tmp_path / "broken.ipynb").write_text("{not json")
    (tmp_path / "r.ipynb").write_text(json.dumps({"cells": [], "metadata": {"kernelspec": {"language": "R"}}}))
    (tmp_path / "gone.py").symlink_to(tmp_path / "missing.py")
    monkeypatch.setattr(sources, "MAX_SOURCE_BYTES", 300)
    result = migrate.scan([tmp_path, tmp_path / "no-such-file.py"])
    errors = {e.path.rsplit("/", 1)[-1]: e.message for e in result.errors}
    assert set(errors) == {"syntax.py", "latin.py", "nul.py", "huge.py", "broken.ipynb", "r.ipynb", "gone.py",
                           "no-such-file.py"}
    assert "语法错误" in errors["syntax.py"] and "解码" in errors["latin.py"] and "过大" in errors["huge.py"]
    assert "读取失败" in errors["gone.py"] and "路径不存在" in errors["no-such-file.py"]
    assert result.files_scanned == 1 and {f.rule for f in result.findings} == {"cuda-method", "import-torch-npu"}


def test_write_keeps_encoding_line_endings_and_parses(tmp_path):
    path = tmp_path / "legacy.py"
    path.write_bytes("# -*- coding: latin-1 -*-\r\n# café\r\nimport torch\r\nx = torch.ones(1).cuda()\r\n".encode("latin-1"))
    migrate.write(migrate.scan([path]))
    data = path.read_bytes()
    assert b"\r\nimport torch_npu" in data and b".npu()" in data and "café".encode("latin-1") in data
    assert data.count(b"\r\n") == data.count(b"\n")
    assert migrate.scan([path]).counts()[AUTO] == 0


def test_the_course_example_is_rewritten_clean(tmp_path):
    target = tmp_path / EXAMPLE.name
    target.write_bytes(EXAMPLE.read_bytes())
    result = migrate.scan([target])
    assert result.counts()[AUTO] >= 10 and not result.errors
    diff = result.diff()
    assert diff.startswith("---") and "+import torch_npu" in diff
    migrate.write(result)
    ast.parse(target.read_text(encoding="utf-8"))
    again = migrate.scan([target])
    assert again.counts()[AUTO] == 0 and again.counts()[MANUAL] >= 1
    run = run_script(target, Device("cpu", "test"), "--steps", "3", "--batch-size", "8")  # torch_npu stand-in
    assert run.returncode == 0 and "loss:" in run.stdout, run.stderr


def cli(*args, cwd=None):
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    return subprocess.run([sys.executable, "-m", "npulab", "migrate", *map(str, args)], capture_output=True,
                          text=True, cwd=cwd, env=env)


def test_cli_exit_codes_json_diff_write(tmp_path):
    (tmp_path / "t.py").write_text("import torch\ndevice = 'cuda'\ntorch.backends.cudnn.benchmark = True\n")
    r = cli(tmp_path)
    assert r.returncode == 0 and "可自动改写" in r.stdout and "transfer_to_npu" in r.stdout
    r = cli(tmp_path, "--json")
    doc = json.loads(r.stdout)
    assert r.returncode == 0 and doc["files_scanned"] == 1 and {f["rule"] for f in doc["findings"]} >= {"device-string", "cudnn"}
    r = cli(tmp_path / "t.py", "--diff")
    assert r.returncode == 0 and "-device = 'cuda'" in r.stdout and "+device = 'npu'" in r.stdout
    r = cli(tmp_path, "--write")
    assert r.returncode == 0 and "已改写 1 个文件" in r.stdout and "可自动改写 0" in r.stdout
    assert "device = 'npu'" in (tmp_path / "t.py").read_text()
    for bad in (["/no/such/path"], []):
        r = cli(*bad)
        assert r.returncode == 2 and "Traceback" not in r.stderr and ("路径不存在" in r.stderr or "参数错误" in r.stderr)


def test_symbol_map_matches_the_real_torch_npu_wheel(torch_npu_symbols):
    data = symbols.load()
    assert data["torch_npu"] == torch_npu_symbols.version
    wrong = [(cuda, npu) for cuda, npu in data["names"].items()
             if bool(npu) != bool(npu and torch_npu_symbols.resolve(npu)) or symbols.npu_equivalent(cuda, torch_npu_symbols) != npu]
    assert not wrong, f"cuda_npu_symbols.yaml 与 wheel 不一致（运行 python -m npulab.migrate.symbols 重新生成）：{wrong[:5]}"
    for cuda, spec in tables.load()["torch_cuda_overrides"].items():
        assert cuda in data["names"] or cuda.rsplit(".", 1)[0] in data["names"], cuda
        if spec.get("npu"):
            assert torch_npu_symbols.resolve(spec["npu"]), spec["npu"]
    for spec in tables.load()["nccl_api"].values():
        assert not spec.get("npu") or torch_npu_symbols.resolve(spec["npu"])


def test_symbol_map_covers_the_installed_torch():
    import torch

    if torch.__version__.split("+")[0] != str(symbols.load()["torch"]):
        pytest.skip("the map was built for another torch version")
    assert set(symbols.cuda_public_names()) <= set(symbols.load()["names"])


def test_torch_cuda_suggestions_name_the_device_neutral_torch_accelerator_target():
    """The edit stays torch.npu; the suggestion adds torch.accelerator where PyTorch has it (and from which release)."""
    found = {f.message.split(" ")[0]: f.suggestion for f in migrate.scan_source(
        "import torch\ntorch.cuda.synchronize()\ni = torch.cuda.current_device()\ntorch.cuda.empty_cache()\n").findings
        if f.rule == "torch-cuda"}
    assert "torch.accelerator.synchronize（PyTorch ≥ 2.6）" in found["torch.cuda.synchronize"]
    assert "torch.accelerator.current_device_index（PyTorch ≥ 2.7）" in found["torch.cuda.current_device"]
    assert "torch.accelerator" not in found["torch.cuda.empty_cache"]  # not in torch_npu 2.12's support list


@pytest.mark.parametrize("value, expected", [(None, 300.0), ("1800", 1800.0), ("2.5", 2.5), ("0", 300.0),
                                             ("-5", 300.0), ("ten", 300.0), ("", 300.0)])
def test_script_timeout_reads_the_environment(monkeypatch, value, expected):
    from npulab.migrate.standin import TIMEOUT_ENV, script_timeout

    if value is None:
        monkeypatch.delenv(TIMEOUT_ENV, raising=False)
    else:
        monkeypatch.setenv(TIMEOUT_ENV, value)
    assert script_timeout() == expected


@pytest.mark.parametrize("language, words", [("zh", "超过 0.5 s 被停止"), ("en", "more than 0.5 s")])
def test_a_script_past_its_limit_comes_back_with_a_message_not_a_traceback(tmp_path, monkeypatch, language, words):
    from npulab.migrate.standin import TIMED_OUT, TIMEOUT_ENV

    monkeypatch.setenv("NPULAB_LANG", language)
    script = tmp_path / "slow.py"
    script.write_text("import sys, time\nprint('step 1', flush=True)\ntime.sleep(30)\n")
    run = run_script(script, Device("cpu", "test"), timeout=0.5)
    assert run.returncode == TIMED_OUT
    assert words in run.stderr and TIMEOUT_ENV in run.stderr
