"""Build and check ``atc`` command lines (ONNX/TF/Caffe/MindSpore-AIR → offline model ``.om``), with reasons.

``command(...)`` checks what ATC itself would only reject after minutes of work, or silently accept:
the framework code (0 Caffe, 1 MindSpore .air, 3 TensorFlow .pb, 5 ONNX — there is no 2 or 4), the
``--soc_version`` spelling (``"Ascend" + Chip Name`` from ``npu-smi info``), ``--input_shape`` against the
ONNX model's real input names and dimensions, ``--input_format`` for the framework and the input rank, and
``--precision_mode`` (including the BF16 modes that need an A2/A3 chip). Every emitted option comes with the
reason it is there. The facts and their sources are in ``npulab/data/atc.yaml``.
"""

from __future__ import annotations

import difflib
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

from npulab.core.paths import DATA_DIR, load_yaml

ATC_FILE = DATA_DIR / "atc.yaml"


class AtcError(ValueError):
    """An atc argument that cannot work; the message (Chinese) says what is wrong and what would be right."""


def facts() -> dict:
    """The data file: frameworks, product lines and SoC names, precision modes and their defaults."""
    return load_yaml(ATC_FILE)


def soc_versions() -> dict[str, str]:
    """Every known ``--soc_version`` value → its product-line key (``Ascend910B3`` → ``ascend910b``)."""
    return {soc: key for key, line in facts()["product_lines"].items() for soc in line["socs"]}


def product_line(soc_version: str) -> dict:
    """The product-line entry of a SoC name (KeyError for an unknown name)."""
    key = soc_versions()[soc_version]
    return {"key": key, **facts()["product_lines"][key]}


def soc_from_chip_name(name: str) -> str | None:
    """``--soc_version`` from the Name column of ``npu-smi info`` (``910B3`` → ``Ascend910B3``), or None.

    None means the name does not pin the SoC down: A3 boards print ``Ascend910`` and SoC products print a
    family such as ``310B``; read the chip name from ``npu-smi info -t board -i <id> -c <chip>`` then.
    """
    name = name.strip()
    candidate = name if name.startswith("Ascend") else f"Ascend{name}"
    return candidate if candidate in soc_versions() else None


def default_precision(soc_version: str) -> tuple[str, str]:
    """(ATC's documented default, explanation) of ``--precision_mode`` for a SoC.

    The ATC docs give one default for every product line (``force_fp16``; ``--precision_mode_v2`` defaults to
    ``fp16``). The per-product-line values of the CANN 6.3.RC2 AOE page belong to the AOE tuning tool, not to ATC;
    the explanation names them as such so that nobody mistakes them for ATC's.
    """
    data = facts()["precision_defaults"]
    key = soc_versions()[soc_version]
    by_line = next(v for v in data["by_product_line"].values() if key in v["applies_to"])
    atc = data["atc"]["value"]
    why = f"ATC 文档：默认 {atc}（--precision_mode_v2 的默认值 fp16 与之同义），支持 FP16 的算子一律按 FP16 计算，权重存成 FP16"
    if by_line["value"] != atc:
        why += (f"。CANN 6.3.RC2 的 AOE 调优工具文档给这一产品线写的默认值是 {by_line['value']}，"
                f"那是 AOE 的参数，不是 ATC 的")
    return atc, why


@dataclass
class AtcCommand:
    """An atc command line: ``argv`` (a list for subprocess), ``line`` (shell text), reasons and warnings."""

    argv: list[str]
    reasons: list[tuple[str, str]] = field(default_factory=list)  # (option as written, why)
    warnings: list[str] = field(default_factory=list)

    @property
    def line(self) -> str:
        return shlex.join(self.argv)

    @property
    def om_path(self) -> str:
        """Where ATC will usually write the model: ``--output`` with ``.om`` appended (see ``om_paths``)."""
        return self.om_paths[0]

    @property
    def om_paths(self) -> list[str]:
        """Both names the ATC docs give for the output: ``<output>.om`` or ``<output>_<os>_<arch>.om``."""
        out = next(a.split("=", 1)[1] for a in self.argv if a.startswith("--output="))
        return [out + ".om", out + "_<os>_<arch>.om"]

    def existing_om(self) -> str:
        """The OM file ATC actually wrote: ``<output>.om`` or ``<output>_<os>_<arch>.om``, whichever exists."""
        out = Path(self.om_paths[0][: -len(".om")])
        plain = out.with_name(out.name + ".om")
        if plain.exists():
            return str(plain)
        named = sorted(out.parent.glob(out.name + "_*.om"))
        if named:
            return str(named[0])
        raise FileNotFoundError(f"没有找到 ATC 的输出：既没有 {plain}，也没有 {out}_<os>_<arch>.om；先在昇腾主机上运行这条 atc 命令")

    def explain(self) -> str:
        """The command, then one line per option with its reason, then warnings."""
        from npulab.core.display import display_width

        width = max((display_width(opt) for opt, _ in self.reasons), default=0) + 2
        lines = [self.line, ""] + [f"  {opt}{' ' * (width - display_width(opt))}{why}" for opt, why in self.reasons]
        lines += [f"注意：{w}" for w in self.warnings]
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.line


def parse_input_shape(value: str | dict) -> dict[str, list[int]]:
    """``"input:1,3,224,224;mask:1,128"`` or a dict → ``{name: [dims]}``; AtcError on malformed text."""
    if isinstance(value, dict):
        items = value.items()
    else:
        items = []
        for part in str(value).split(";"):
            if not part.strip():
                continue
            name, sep, dims = part.rpartition(":")
            if not sep or not name.strip():
                raise AtcError(f"--input_shape 的每一项应写成 名字:维度,维度,…，收到 {part!r}")
            items.append((name.strip(), dims))
    shapes: dict[str, list[int]] = {}
    for name, dims in items:
        try:
            values = [int(d) for d in (dims.split(",") if isinstance(dims, str) else dims)]
        except (TypeError, ValueError):
            raise AtcError(f"输入 {name!r} 的维度应为逗号分隔的整数，收到 {dims!r}") from None
        if not values:
            raise AtcError(f"输入 {name!r} 没有给出维度")
        shapes[str(name)] = values
    if not shapes:
        raise AtcError("--input_shape 为空")
    return shapes


def format_input_shape(shapes: dict[str, list[int]]) -> str:
    """``{name: dims}`` → ``"name:1,3,224,224;other:…"`` (ATC's syntax)."""
    return ";".join(f"{name}:{','.join(map(str, dims))}" for name, dims in shapes.items())


def _check_soc(soc: str) -> dict:
    known = soc_versions()
    if soc in known:
        return product_line(soc)
    lower = {k.lower(): k for k in known}
    if soc.lower() in lower:
        raise AtcError(f"--soc_version 区分大小写：应写 {lower[soc.lower()]}，不是 {soc}")
    if f"ascend{soc.lower()}" in lower:
        raise AtcError(f"--soc_version 要带 Ascend 前缀：应写 {lower['ascend' + soc.lower()]}（npu-smi 的 Name 列前加 Ascend）")
    near = difflib.get_close_matches(soc, known, n=3, cutoff=0.6)
    hint = f"是不是 {'、'.join(near)}？" if near else f"已知的有：{', '.join(sorted(known))}"
    raise AtcError(f"未知的 --soc_version {soc!r}。{hint}")


def _check_framework(model: Path, framework: int | None) -> int:
    table = facts()["frameworks"]
    by_suffix = {s: code for code, f in table.items() for s in f["suffixes"]}
    guessed = by_suffix.get(model.suffix.lower())
    if framework is None:
        if guessed is None:
            raise AtcError(f"无法从后缀 {model.suffix!r} 推断框架：请给 framework（0 Caffe、1 MindSpore、3 TensorFlow、5 ONNX）")
        return guessed
    if framework not in table:
        valid = "、".join(f"{c} {f['name']}" for c, f in table.items())
        raise AtcError(f"--framework={framework} 无效：只有 {valid}（没有 2 和 4）")
    if guessed is not None and guessed != framework:
        raise AtcError(f"--framework={framework}（{table[framework]['name']}）与模型后缀 {model.suffix} "
                       f"（{table[guessed]['name']}）不一致")
    return framework


def _check_shapes(model: Path, given: dict[str, list[int]] | None, reasons, warnings) -> dict[str, list[int]] | None:
    """Match --input_shape against the ONNX inputs (when the file can be read)."""
    from npulab.ascend_tools import onnx_export
    try:
        specs = onnx_export.inputs(model)
    except Exception as err:  # a missing or unreadable model: the check is impossible, say so
        warnings.append(f"无法读取 {model} 的输入（{type(err).__name__}），--input_shape 未与模型核对")
        return given
    by_name = {s.name: s for s in specs}
    if given is None:
        dynamic = [s for s in specs if not s.static]
        if dynamic:
            raise AtcError("模型输入有动态维度，必须用 input_shape 给定："
                           + "；".join(f"{s.name} {list(s.shape)}" for s in dynamic))
        reasons.append(("（不写 --input_shape）", "模型输入形状都是固定的：" +
                        "；".join(f"{s.name} {list(s.shape)}" for s in specs)))
        return None
    for name, dims in given.items():
        if name not in by_name:
            raise AtcError(f"模型没有名为 {name!r} 的输入；真实的输入名是：{', '.join(by_name) or '（无）'}")
        spec = by_name[name]
        if len(dims) != len(spec.shape):
            raise AtcError(f"输入 {name} 是 {len(spec.shape)} 维 {list(spec.shape)}，--input_shape 给了 {len(dims)} 维 {dims}")
        for i, (want, got) in enumerate(zip(spec.shape, dims, strict=True)):
            if got <= 0:
                raise AtcError(f"输入 {name} 第 {i} 维为 {got}：离线模型需要确定的正整数（动态形状要用 ATC 的动态档位参数）")
            if isinstance(want, int) and want > 0 and want != got:
                raise AtcError(f"输入 {name} 第 {i} 维在模型中固定为 {want}，--input_shape 给了 {got}")
    missing = [s.name for s in specs if s.name not in given and not s.static]
    if missing:
        raise AtcError(f"这些输入有动态维度但没有出现在 --input_shape 中：{', '.join(missing)}")
    return given


def command(model: str | Path, *, soc_version: str, framework: int | None = None, output: str | None = None,
            input_shape: str | dict | None = None, input_format: str | None = None,
            precision_mode: str | None = None, log: str = "error", weight: str | None = None,
            mode: int = 0) -> AtcCommand:
    """Build a checked atc command; raise ``AtcError`` (Chinese) for arguments that cannot work.

    >>> command("resnet50.onnx", soc_version="Ascend910B3", precision_mode="force_fp16").argv[:3]
    ['atc', '--model=resnet50.onnx', '--framework=5']
    """
    data = facts()
    model = Path(model)
    reasons: list[tuple[str, str]] = []
    warnings: list[str] = []
    if mode not in data["modes"]:
        raise AtcError(f"--mode={mode} 无效：可选 {', '.join(map(str, data['modes']))}")
    if mode == 1:
        raise AtcError("mode=1 把模型转成 JSON（用 --om/--json），不是转换命令；本函数只生成 mode 0（或 3）")
    fw = _check_framework(model, framework)
    fw_info = data["frameworks"][fw]
    line = _check_soc(soc_version)
    argv = ["atc", f"--model={model}", f"--framework={fw}"]
    reasons.append((f"--model={model}", "要转换的模型文件"))
    reasons.append((f"--framework={fw}", f"{fw_info['name']}：{fw_info['note']}"))
    if fw == 0:
        if not line["caffe"]:
            raise AtcError(f"{line['name']}（{soc_version}）不再支持 Caffe 模型")
        if not weight or not str(weight).endswith(fw_info["weight_suffix"]):
            raise AtcError("Caffe 模型需要 weight=<权重文件>.caffemodel")
        argv.append(f"--weight={weight}")
        reasons.append((f"--weight={weight}", "Caffe 的权重单独存放"))
    elif weight:
        raise AtcError(f"--weight 只用于 Caffe；{fw_info['name']} 模型的权重在模型文件里")
    if output is None:
        output = f"{model.with_suffix('')}_{soc_version}"
    if output.endswith(".om"):
        warnings.append("--output 不要带 .om：ATC 文档说它会自动加 .om（文件名为 <名字>.om 或 <名字>_<os>_<arch>.om），"
                        "没有说明名字里已有 .om 时怎样处理")
    argv.append(f"--output={output}")
    reasons.append((f"--output={output}", "输出路径与文件名，ATC 在后面加 .om（也可能是 _<os>_<arch>.om）"))
    argv.append(f"--soc_version={soc_version}")
    reasons.append((f"--soc_version={soc_version}", f"{line['name']}；OM 只能在同一 SoC 上加载（来自 npu-smi 的 Name 列加 Ascend 前缀）"))
    shapes = parse_input_shape(input_shape) if input_shape is not None else None
    if fw == 5:
        shapes = _check_shapes(model, shapes, reasons, warnings)
    elif shapes is None:
        warnings.append("没有给 --input_shape：非 ONNX 模型的输入名与形状未核对")
    if shapes:
        text = format_input_shape(shapes)
        argv.append(f"--input_shape={text}")
        reasons.append((f"--input_shape={text}", "每个输入的名字与确定的形状（名字必须与模型中的输入名一致）"))
    if input_format is not None:
        if input_format not in data["input_formats"]:
            raise AtcError(f"--input_format={input_format} 无效：可选 {', '.join(data['input_formats'])}")
        if input_format not in fw_info["formats"]:
            raise AtcError(f"{fw_info['name']} 模型的 --input_format 只能是 {', '.join(fw_info['formats'])}")
        rank = data["format_ranks"].get(input_format)
        for name, dims in (shapes or {}).items():
            if rank and len(dims) != rank:
                raise AtcError(f"{input_format} 需要 {rank} 维输入，{name} 是 {len(dims)} 维")
        argv.append(f"--input_format={input_format}")
        reasons.append((f"--input_format={input_format}", "输入数据的排布；要与预处理产出的张量一致"))
    modes = data["precision_modes"]
    if precision_mode is None:
        value, why = default_precision(soc_version)
        reasons.append(("（不写 --precision_mode）", f"使用默认值：{why}"))
        if line["training"]:
            warnings.append("没有显式指定 --precision_mode：ATC 默认按 FP16 计算、权重存成 FP16；"
                            "要保持原始精度，写 --precision_mode=must_keep_origin_dtype（或 --precision_mode_v2=origin）")
    else:
        if precision_mode not in modes:
            near = difflib.get_close_matches(precision_mode, modes, n=2)
            raise AtcError(f"未知的 --precision_mode {precision_mode!r}"
                           + (f"，是不是 {'、'.join(near)}？" if near else f"；可选：{', '.join(modes)}"))
        info = modes[precision_mode]
        if info.get("needs_bf16") and not line["bf16"]:
            raise AtcError(f"{precision_mode} 需要支持 BF16 的芯片，{soc_version}（{line['name']}）不支持")
        argv.append(f"--precision_mode={precision_mode}")
        reasons.append((f"--precision_mode={precision_mode}", info["what"]))
    if log not in data["log_levels"]:
        raise AtcError(f"--log={log} 无效：可选 {', '.join(data['log_levels'])}")
    argv.append(f"--log={log}")
    reasons.append((f"--log={log}", "屏幕日志级别；排查问题时改成 debug，并设 ASCEND_SLOG_PRINT_TO_STDOUT=1"))
    if mode:
        argv.append(f"--mode={mode}")
        reasons.append((f"--mode={mode}", data["modes"][mode]))
    return AtcCommand(argv, reasons, warnings)


def parse_command(line: str) -> dict[str, str]:
    """``--key=value`` (or ``--key value``) options of an atc command line, e.g. one copied from a script."""
    tokens = shlex.split(line)
    if not tokens or Path(tokens[0]).name != "atc":
        raise AtcError("不是 atc 命令行")
    out: dict[str, str] = {}
    i = 1
    while i < len(tokens):
        token = tokens[i]
        match = re.fullmatch(r"--([\w-]+)(?:=(.*))?", token, flags=re.S)
        if not match:
            raise AtcError(f"无法理解的参数 {token!r}")
        if match[2] is None and i + 1 < len(tokens) and not tokens[i + 1].startswith("--"):
            out[match[1]] = tokens[i + 1]
            i += 2
            continue
        out[match[1]] = match[2] if match[2] is not None else ""
        i += 1
    return out


def check_line(line: str) -> AtcCommand:
    """Check a written atc command line by rebuilding it with ``command``; raises AtcError like it."""
    opts = parse_command(line)
    unknown = set(opts) - {"model", "framework", "output", "soc_version", "input_shape", "input_format",
                           "precision_mode", "log", "weight", "mode"}
    if "model" not in opts or "soc_version" not in opts:
        raise AtcError("atc 命令至少需要 --model 与 --soc_version")
    try:
        framework = int(opts["framework"]) if "framework" in opts else None
        mode = int(opts.get("mode", 0))
    except ValueError:
        raise AtcError("--framework 与 --mode 应为整数") from None
    cmd = command(opts["model"], soc_version=opts["soc_version"], framework=framework, output=opts.get("output"),
                  input_shape=opts.get("input_shape"), input_format=opts.get("input_format"),
                  precision_mode=opts.get("precision_mode"), log=opts.get("log", "error"), weight=opts.get("weight"),
                  mode=mode)
    if unknown:
        cmd.warnings.append(f"这些参数未做检查：{', '.join(sorted(unknown))}")
    return cmd
