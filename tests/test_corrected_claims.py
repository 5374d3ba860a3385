"""Corrected claims stay corrected: scans lessons, labs, data files and modules for errors a review fixed.

Each rule names the public source that contradicts the old text:

- ``ASCEND_RT_VISIBLE_DEVICES`` lists the processor's *logical* IDs, ascending only (CANN env-var reference
  envref_07_0028, CANN 8.0–9.1); text must not call its values physical IDs / 物理编号.
- ``HCCL_EXEC_TIMEOUT`` defaults to 1836 s on Atlas A2/A3 (CANN 7.0–9.x: envref_07_0078, hcclug_000074);
  1800 s was the CANN 6.x default and may appear only when that older version is named.
- A cold first CPU run inflates the CPU time, which is the *numerator* of a CPU/NPU speed-up.
- torch_npu has a catch-all CPU fallback (``VariableFallbackKernel.cpp``): text must not claim there is none.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from npulab.core.paths import REPO_ROOT

SCAN_DIRS = ("chapters", "notebooks", "npulab", "docs")
SUFFIXES = {".ipynb", ".md", ".yaml", ".yml", ".py"}
SELF = Path(__file__).resolve()


def _course_files():
    """The course's own text files under SCAN_DIRS; not the data files generated from the products' released code
    (their head says "do not edit by hand": npu_messages.yaml, cann_error_registry.yaml), which quote the products'
    words, not the course's."""
    for folder in SCAN_DIRS:
        for path in sorted((REPO_ROOT / folder).rglob("*")):
            if path.suffix not in SUFFIXES or not path.is_file() or ".ipynb_checkpoints" in path.parts:
                continue
            if path.suffix == ".yaml" and "do not edit by hand" in path.read_text(encoding="utf-8")[:1000]:
                continue
            yield path, path.relative_to(REPO_ROOT)


def _units() -> list[tuple[str, str]]:
    """(where, text) for every notebook cell and every paragraph of the other text files."""
    units = []
    for path, rel in _course_files():
        if path.suffix == ".ipynb":
            for i, cell in enumerate(json.loads(path.read_text(encoding="utf-8"))["cells"]):
                for j, para in enumerate(re.split(r"\n\s*\n", "".join(cell["source"]))):
                    units.append((f"{rel} 单元 {i} 段 {j}", para))
        else:
            for j, para in enumerate(re.split(r"\n\s*\n", path.read_text(encoding="utf-8"))):
                units.append((f"{rel} 段 {j}", para))
    return units


UNITS = _units()

# "physical" wording next to the variable: 物理编号 / 物理 NPU / 物理上的第 / physical id / physical NPU
PHYSICAL = re.compile(r"物理编号|物理\**\s*NPU|物理卡|物理上的第|physical\s+(?:NPU|id|ids|device)", re.IGNORECASE)
NEGATED = re.compile(r"(?:不是|并非|not(?: the)?)\s*(?:物理|physical)", re.IGNORECASE)


def test_the_scan_sees_the_course():
    assert len(UNITS) > 500
    assert any("ASCEND_RT_VISIBLE_DEVICES" in text for _, text in UNITS)


def _sentences(text: str) -> list[str]:
    """Lines (a table row is one line) cut further at Chinese and English full stops."""
    return [s for line in text.splitlines() for s in re.split(r"(?<=[。；])|(?<=\. )", line) if s.strip()]


def test_visible_devices_values_are_never_called_physical():
    bad = []
    for where, para in UNITS:
        for text in _sentences(para) if "ASCEND_RT_VISIBLE_DEVICES" in para or "visible_devices" in para else []:
            bad += _physical_wording(where, text)
    assert not bad, "ASCEND_RT_VISIBLE_DEVICES 的取值是逻辑 ID（envref_07_0028），不要写成物理编号：\n" + "\n".join(bad)


VARIABLE = re.compile(r"ASCEND_RT_VISIBLE_DEVICES|visible_devices|visible-devices")
# a sentence with one of these is about the physical numbering itself (or contrasts it with the logical one)
EXPLAINS_PHYSICAL = re.compile(r"逻辑|logical|/dev/davinci|phyid|Phy-ID|device-node|节点名|corrected", re.IGNORECASE)


def _sections() -> list[tuple[str, str]]:
    """(where, text) per notebook section (from one Markdown heading to the next) and per YAML/Markdown paragraph.

    A sentence may name a device without naming the variable ("npu:0 对应 …") when the section it stands in is about
    the variable: the scan must see the whole section, not the sentence alone.
    """
    out = []
    for path, rel in _course_files():
        if path.suffix != ".ipynb":
            out += [(f"{rel} 段 {j}", para) for j, para in
                    enumerate(re.split(r"\n\s*\n", path.read_text(encoding="utf-8")))]
            continue
        start, lines = 0, []
        for i, cell in enumerate(json.loads(path.read_text(encoding="utf-8"))["cells"]):
            for line in "".join(cell["source"]).splitlines():
                if cell["cell_type"] == "markdown" and re.match(r"#{1,6} ", line) and lines:
                    out.append((f"{rel} 单元 {start}", "\n".join(lines)))
                    start, lines = i, []
                lines.append(line)
        out.append((f"{rel} 单元 {start}", "\n".join(lines)))
    return out


def _physical_in_section(where: str, section: str) -> list[str]:
    """Sentences of a section about the variable that call a device physical without contrasting it with logical."""
    if not VARIABLE.search(section):
        return []
    bad = []
    for text in _sentences(section):
        if EXPLAINS_PHYSICAL.search(text):
            continue  # sets logical against physical IDs, or describes the physical numbering itself
        for match in PHYSICAL.finditer(text):
            if not NEGATED.search(text[max(0, match.start() - 12):match.end()]):
                bad.append(f"{where}: …{text[max(0, match.start() - 40):match.end() + 20]}…")
    return bad


def test_sections_about_the_variable_never_call_its_devices_physical():
    bad = [hit for where, section in _sections() for hit in _physical_in_section(where, section)]
    assert not bad, "ASCEND_RT_VISIBLE_DEVICES 的取值与 npu:i 背后的设备是逻辑 ID（envref_07_0028）：\n" + "\n".join(bad)


def test_the_section_rule_catches_the_old_casebook_and_catalog():
    casebook = ("### 3.5 `ASCEND_RT_VISIBLE_DEVICES` 与设备号\n\n设置这个变量后，进程内的设备号从 0 重新编号。\n\n"
                "**注意**：`npu:0` 对应物理 NPU 4；代码若仍按物理编号去找设备，就会出现上面日志里的错误。")
    assert len(_physical_in_section("old", casebook)) == 2
    catalog = ("- id: visible_devices\n  cause: >-\n    而代码仍去打开物理编号 4 或一个超出范围的编号；\n"
               "  fix: >-\n    列表写成升序、不重复、不越界的物理编号。")
    assert len(_physical_in_section("old", catalog)) == 2
    assert not _physical_in_section("new", "`ASCEND_RT_VISIBLE_DEVICES` 写逻辑 ID，宿主机上它与物理编号通常相同。")
    assert not _physical_in_section("other", "`npu-smi info -t phyid-remap -p <物理编号>`")


def test_the_catalog_entry_that_explain_prints_says_logical():
    from npulab.env import explain as ex

    (entry,) = [e for e in ex.load_catalog() if e.id == "visible_devices"]
    text = entry.cause + entry.fix
    assert "逻辑 ID" in text and "npu-smi info -m" in text
    assert not PHYSICAL.search(text), text
    assert "丢掉整个列表" not in text  # no source says so (envref_07_0028: reading stops at the first bad ID)


def _physical_wording(where: str, text: str) -> list[str]:
    bad = []
    if "ASCEND_RT_VISIBLE_DEVICES" in text or "visible_devices" in text or "npu:" in text:
        for match in PHYSICAL.finditer(text):
            before = text[max(0, match.start() - 12):match.end()]
            if not NEGATED.search(before):
                bad.append(f"{where}: …{text[max(0, match.start() - 40):match.end() + 20]}…")
    return bad


def test_the_physical_rule_catches_the_old_wording():
    old = "原文的所有实验都用 `ASCEND_RT_VISIBLE_DEVICES=7`，所以代码里的 `npu:0` 其实是物理上的第 7 张卡。"
    assert _physical_wording("old", old)
    assert _physical_wording("old", "哪张**物理** NPU 在背后，由 `ASCEND_RT_VISIBLE_DEVICES` 决定")
    assert not _physical_wording("new", "`ASCEND_RT_VISIBLE_DEVICES` 写的是逻辑 ID，不是物理 ID")


def test_hccl_exec_timeout_default_is_not_1800():
    bad = []
    for where, text in UNITS:
        if "HCCL_EXEC_TIMEOUT" not in text:
            continue
        for match in re.finditer(r"(?:默认|default)[^。；;\n]{0,30}?1800", text, re.IGNORECASE):
            context = text[max(0, match.start() - 60):match.end() + 60]
            # the CANN 6.x default may be quoted as history (旧, old); a real EI0002 log quotes CANN's own (older) hint verbatim
            if not re.search(r"6\.[x0-9]|旧|\bolder?\b|You can set the interval", context):
                bad.append(f"{where}: …{context}…")
    assert not bad, "HCCL_EXEC_TIMEOUT 在 Atlas A2/A3 上默认 1836 s（CANN 7.0–9.x）：\n" + "\n".join(bad)


def test_hccl_settings_data_default():
    from npulab.pytorch import distributed

    row = next(s for s in distributed.hccl_settings() if s["name"] == "HCCL_EXEC_TIMEOUT")
    assert row["default"] == "1836" and "2147483647" in row["range"] and "68" in row["range"]


def test_cold_cpu_run_inflates_the_numerator():
    bad = [where for where, text in UNITS
           if re.search(r"冷启动[^。]{0,30}分母偏大", text)]
    assert not bad, "CPU 冷启动拉长的是 CPU 时间，即加速比的分子：" + ", ".join(bad)


@pytest.mark.parametrize("pattern", [r"不会因为包在 autocast 里就被挪到 CPU", r"没有\s*CPU\s*回退", r"不会回退到 CPU"])
def test_no_claim_that_torch_npu_never_falls_back_to_cpu(pattern):
    bad = [where for where, text in UNITS if re.search(pattern, text)]
    assert not bad, "torch_npu 为 PrivateUse1 注册了 CPU 回退（VariableFallbackKernel.cpp）：" + ", ".join(bad)


def test_parser_rejects_what_the_old_course_accepted():
    from npulab.env.visible_devices import parse_visible

    assert not parse_visible("6,4", 8).ok  # the old lesson showed this as a valid mapping
    assert parse_visible("1, 2,3", 8).ids == [1]  # the old parser read three devices


@pytest.mark.parametrize("pattern, why", [
    (r"\.om\.om", "ATC 文档（atlasatcparam_16_0029）只说自动加 .om 或 _<os>_<arch>.om"),
    (r"7\s*条\s*HCCS(?![^。]{0,25}的说法)", "每卡 7 条 HCCS 链路没有可引用的官方出处"),
    (r"第三方[^。]{0,12}ascend-deployer", "ascend-deployer 是华为昇腾自己的部署工具"),
    (r"force_fp32[^。]{0,40}(?:模型不会变小|自相矛盾)", "force_fp32 与 cube_fp16in_fp32out 等价，Cube 算子仍取 FP16 输入"),
    (r"`lambda` 会让编译失败", "只有直接写在 value_and_grad(...) 里的 lambda 会失败"),
    (r"CANN ≥ 8\.5 的新布局没有 `version\.cfg`", "文档只给出 ascend_toolkit_install.info，没有说 version.cfg 不存在"),
])
def test_withdrawn_claims_stay_withdrawn(pattern, why):
    bad = [where for where, text in UNITS if re.search(pattern, text)]
    assert not bad, why + "：" + ", ".join(bad)


# The December 2026 review (H1–L37): each pattern is the withdrawn wording, each reason its public source.
@pytest.mark.parametrize("pattern, why", [
    (r"--train_type lora", "ms-swift 4.0 把 --train_type 改名为 --tuner_type，4.1 删除旧名（swift/pipelines/base.py：remaining_argv）"),
    (r"BestPractices/NPU支持\.md>?$|blob/main/docs/source/BestPractices/NPU支持", "ms-swift 的 NPU 文档已改名 NPU-support.md（9e824aca0）"),
    (r"tests/0day/qwen3/qwen3-32b/tune_", "MindSpeed-LLM 26.1.0 的脚本在 examples/mcore/qwen3/tune_qwen3_32b_4K_lora_ptd.sh"),
    (r"python convert_ckpt\.py --use-mcore-models", "MindSpeed-LLM 26.1.0 的 convert_ckpt.py 只接受 transformers ≤ 4.57，示例用 convert_ckpt_v2.py"),
    (r"pkill -f \"vllm serve\"(?!\` 会)", "在 ! 行里 pkill -f 会连同执行它的 shell 一起杀掉；按进程号停止"),
    (r"\"npu_backend\": \"mlir\" / \"dvm\"", "torch_npu 2.12.0 的 npu_backend 只认 mlir 与 default；dvm/ascendc 自 26.2.0 起"),
    (r"TORCH_NPU_FALLBACK_CPU_DISABLE=1`（较新的 torch_npu 提供）", "课程钉住的 torch_npu 2.12.0 没有这个变量（PyPI 上 2.12.0.post3、2.13.0 起才有），设置它会被悄悄忽略"),
    (r"第二次 Dynamo 仍要重新捕获", "结构相同的新模型不会让 Dynamo 重新捕获（torch 2.13 实测 unique_graphs 仍为 1）"),
    (r"它们来自逐样本的循环，每个训练步调用 batch 大小那么多次", "aten::select 每步 4·B 次，一半来自 Dataset.__getitem__"),
    (r"auto-blockify，可解除这个上限；以所装版本", "TRITON_ALL_BLOCKS_PARALLEL 在 triton-ascend 3.2.0 的 wheel 里就有"),
    (r"启动的 Vector 核数，910B3 上最多 40", "blockDim 是逻辑核数，取值 [1, 65535]（SetBlockDim，atlasopapi_07_00236）"),
    (r"纯 Vector 算子在 \{platform\.name\} 上最多启动", "纯 Vector 算子的 blockDim 可以超过 Vector 核数，只是分轮执行"),
    (r"在 x86_64 上用 `pip install torch==<版本> --index-url", "TorchNPU 2.11 起 README 要求 aarch64 也用 CPU 索引"),
    (r"torch\.accelerator\.current_device_index\(\)", "PyTorch 2.6 只有 current_device_idx；要做版本判断"),
    (r"Tensor Core，在每个 SM 内部，从寄存器取数", "Hopper 的 wgmma 从共享内存取数，Blackwell 的 tcgen05 用张量内存"),
    (r"move_to\('Ascend'\)|需要时 `Tensor\.move_to", "MindSpore 2.10：Tensor.move_to 已弃用（2.9.0 之后移除），用 Tensor.to 与 device="),
    (r"\{new: ASCEND_RT_VISIBLE_DEVICES\}", "CUDA_VISIBLE_DEVICES 的取值规则与 ASCEND_RT_VISIBLE_DEVICES 不同（envref_07_0028），不能自动改名"),
    (r"`Wait Time\(us\)`、`Block Dim` \|", "v26.0.0 起列名是 Block Num（commit 48596093b）"),
    (r"`ExportType\.Db` 时只生成一个 `ascend_pytorch_profiler", "Db 导出还写 analysis.db，Text 导出默认也写 .db"),
    (r"命令行的 msprof 采集的是同一类数据", "msprof 采不到 Python 调用栈与框架层数据（atlasprofiling_16_1166）"),
    (r"torchvision 装不进本课程使用的 CPU 版 PyTorch 环境", "没有出处"),
    (r"到了 2\.10，整个 `set_context` 接口都标注为将要废弃", "2.6.0 的文档已把 set_context 标为将要废弃"),
    (r"HCCL_BUFFSIZE（本章第 3 [节课]）", "多卡 HCCL 是第 06 章第 4 课"),
    (r"bench allreduce --nproc 8`（本章第 3 [节课]）", "bench allreduce 在第 06 章第 4 课"),
    (r"MLA[^。]{0,40}小一个数量级以上", "DeepSeek-V2-Lite 形状下 MLA 只小约 8.9 倍"),
    (r"FP16 Cube 矩阵乘算力（ascend-dmi", "ToolBox 在 Atlas A2 上统计矩阵乘与向量乘（toolboxug_0016）"),
    (r"正文说默认 60 万次，命令注释说 600 万次", "--et 默认 60 × 100000 = 600 万次，60 万是笔误"),
    (r"`latest` 或 `cann` 只是一个符号链接", "ascend-toolkit/latest/ 是各组件链接组成的真实目录"),
    (r"msprof 的 op_summary 看流水", "Triton-Ascend 用 msprof op --kernel-name 与 msprof op simulator"),
    (r"aarch64 上的默认包|aarch64 的 PyPI wheel 已经是 CPU", "PyPI 的 aarch64 torch 从 2.11 起是 CUDA 13 构建（2.12.0+cu130）"),
    (r"CUDA 版 torch（版本号带 \+cu", "PyPI 的 CUDA torch 在 pip 里显示为 2.12.0，不带 +cu…"),
    # the third December review (review 2026-12c, Part B)
    (r"没有加速器时，较新的版本返回 `None`|先问 `current_accelerator\(\)`，为 `None`",
     "current_accelerator() 返回编译时的加速器（CUDA 版 torch 没有 GPU 也返回 cuda）；选设备要 check_available=True"),
    (r"这两个选项要 CANN 运行时 ≥ 8\.5\.0，更早的 CANN 上级别不起作用",
     "级别只在 NPU 初始化时写入 ACL；CANN < 8.5 上级别 1 仍有效，只有级别 2 的强一致性要 8.5（npu_sys_ctrl.cpp）"),
    (r"不在任何已发布的 torch_npu 里|还不在任何发布分支或标签里",
     "TORCH_NPU_FALLBACK_CPU_DISABLE 在 PyPI torch-npu 2.12.0.post3、2.13.0、2.14.0 里（发布分支 v2.12.0 的 01b6b00）"),
    (r"需要约 1\.915 GHz|说明频率或计数方式与配置不同|最可能出在频率或工具的计数方式上",
     "ToolBox 在 Atlas A2 上统计矩阵乘与向量乘（toolboxug_0016），294.9 + 18.4 ≈ 313.3 TFLOPS"),
])
def test_december_review_claims_stay_withdrawn(pattern, why):
    bad = [where for where, text in UNITS if re.search(pattern, text, re.MULTILINE) and SELF.name not in where]
    assert not bad, why + "：" + ", ".join(bad)
