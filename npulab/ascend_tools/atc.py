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

from npulab.core.i18n import localized, t
from npulab.core.paths import DATA_DIR, load_yaml

ATC_FILE = DATA_DIR / "atc.yaml"


class AtcError(ValueError):
    """An atc argument that cannot work; the message (Chinese) says what is wrong and what would be right."""


def facts() -> dict:
    """The data file: frameworks, product lines and SoC names, precision modes and their defaults; the texts a
    reader sees (names, notes, what a mode does) in the reader's language where the file has an English twin."""
    data = load_yaml(ATC_FILE)
    for table, field_name in (("frameworks", "note"), ("product_lines", "name"), ("precision_modes", "what"),
                              ("precision_modes_v2", "what")):
        for entry in data[table].values():
            entry[field_name] = localized(entry, field_name)
    for entry in data["precision_defaults"]["by_product_line"].values():
        if "note" in entry:
            entry["note"] = localized(entry, "note")
    data["modes"] = localized(data, "modes")
    return data


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
    why = t("atc.default_precision", atc=atc)
    if by_line["value"] != atc:
        why += t("atc.default_precision_aoe", value=by_line["value"])
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
        raise FileNotFoundError(t("atc.no_output", plain=plain, out=out))

    def explain(self) -> str:
        """The command, then one line per option with its reason, then warnings."""
        from npulab.core.display import display_width

        width = max((display_width(opt) for opt, _ in self.reasons), default=0) + 2
        lines = [self.line, ""] + [f"  {opt}{' ' * (width - display_width(opt))}{why}" for opt, why in self.reasons]
        lines += [t("atc.note", warning=w) for w in self.warnings]
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
                raise AtcError(t("atc.shape_item", part=repr(part)))
            items.append((name.strip(), dims))
    shapes: dict[str, list[int]] = {}
    for name, dims in items:
        try:
            values = [int(d) for d in (dims.split(",") if isinstance(dims, str) else dims)]
        except (TypeError, ValueError):
            raise AtcError(t("atc.shape_dims", name=repr(name), dims=repr(dims))) from None
        if not values:
            raise AtcError(t("atc.shape_no_dims", name=repr(name)))
        shapes[str(name)] = values
    if not shapes:
        raise AtcError(t("atc.shape_empty"))
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
        raise AtcError(t("atc.soc_case", right=lower[soc.lower()], soc=soc))
    if f"ascend{soc.lower()}" in lower:
        raise AtcError(t("atc.soc_prefix", right=lower["ascend" + soc.lower()]))
    near = difflib.get_close_matches(soc, known, n=3, cutoff=0.6)
    hint = (t("atc.did_you_mean", names=t("atc.or_separator").join(near)) if near
            else t("atc.known_socs", names=", ".join(sorted(known))))
    raise AtcError(t("atc.soc_unknown", soc=repr(soc), hint=hint))


def _check_framework(model: Path, framework: int | None) -> int:
    table = facts()["frameworks"]
    by_suffix = {s: code for code, f in table.items() for s in f["suffixes"]}
    guessed = by_suffix.get(model.suffix.lower())
    if framework is None:
        if guessed is None:
            raise AtcError(t("atc.framework_suffix", suffix=repr(model.suffix)))
        return guessed
    if framework not in table:
        valid = t("atc.list_separator").join(f"{c} {f['name']}" for c, f in table.items())
        raise AtcError(t("atc.framework_invalid", framework=framework, valid=valid))
    if guessed is not None and guessed != framework:
        raise AtcError(t("atc.framework_mismatch", framework=framework, name=table[framework]["name"],
                         suffix=model.suffix, guessed=table[guessed]["name"]))
    return framework


def _check_shapes(model: Path, given: dict[str, list[int]] | None, reasons, warnings) -> dict[str, list[int]] | None:
    """Match --input_shape against the ONNX inputs (when the file can be read)."""
    from npulab.ascend_tools import onnx_export
    try:
        specs = onnx_export.inputs(model)
    except Exception as err:  # a missing or unreadable model: the check is impossible, say so
        warnings.append(t("atc.inputs_unreadable", model=model, error=type(err).__name__))
        return given
    by_name = {s.name: s for s in specs}
    if given is None:
        dynamic = [s for s in specs if not s.static]
        if dynamic:
            raise AtcError(t("atc.dynamic_inputs",
                             inputs=t("atc.item_separator").join(f"{s.name} {list(s.shape)}" for s in dynamic)))
        reasons.append((t("atc.no_input_shape"),
                        t("atc.static_inputs", inputs=t("atc.item_separator").join(f"{s.name} {list(s.shape)}" for s in specs))))
        return None
    for name, dims in given.items():
        if name not in by_name:
            raise AtcError(t("atc.no_such_input", name=repr(name), names=", ".join(by_name) or t("atc.none")))
        spec = by_name[name]
        if len(dims) != len(spec.shape):
            raise AtcError(t("atc.rank_mismatch", name=name, rank=len(spec.shape), shape=list(spec.shape), given_rank=len(dims),
                                 dims=dims))
        for i, (want, got) in enumerate(zip(spec.shape, dims, strict=True)):
            if got <= 0:
                raise AtcError(t("atc.dim_not_positive", name=name, index=i, got=got))
            if isinstance(want, int) and want > 0 and want != got:
                raise AtcError(t("atc.dim_fixed", name=name, index=i, want=want, got=got))
    missing = [s.name for s in specs if s.name not in given and not s.static]
    if missing:
        raise AtcError(t("atc.dynamic_missing", names=", ".join(missing)))
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
        raise AtcError(t("atc.mode_invalid", mode=mode, modes=", ".join(map(str, data["modes"]))))
    if mode == 1:
        raise AtcError(t("atc.mode_json"))
    fw = _check_framework(model, framework)
    fw_info = data["frameworks"][fw]
    line = _check_soc(soc_version)
    argv = ["atc", f"--model={model}", f"--framework={fw}"]
    reasons.append((f"--model={model}", t("atc.why_model")))
    reasons.append((f"--framework={fw}", t("atc.why_framework", name=fw_info["name"], note=localized(fw_info, "note"))))
    if fw == 0:
        if not line["caffe"]:
            raise AtcError(t("atc.no_caffe", line=localized(line, "name"), soc=soc_version))
        if not weight or not str(weight).endswith(fw_info["weight_suffix"]):
            raise AtcError(t("atc.caffe_weight"))
        argv.append(f"--weight={weight}")
        reasons.append((f"--weight={weight}", t("atc.why_weight")))
    elif weight:
        raise AtcError(t("atc.weight_not_caffe", name=fw_info["name"]))
    if output is None:
        output = f"{model.with_suffix('')}_{soc_version}"
    if output.endswith(".om"):
        warnings.append(t("atc.output_om"))
    argv.append(f"--output={output}")
    reasons.append((f"--output={output}", t("atc.why_output")))
    argv.append(f"--soc_version={soc_version}")
    reasons.append((f"--soc_version={soc_version}", t("atc.why_soc", line=localized(line, "name"))))
    shapes = parse_input_shape(input_shape) if input_shape is not None else None
    if fw == 5:
        shapes = _check_shapes(model, shapes, reasons, warnings)
    elif shapes is None:
        warnings.append(t("atc.no_shape_not_onnx"))
    if shapes:
        text = format_input_shape(shapes)
        argv.append(f"--input_shape={text}")
        reasons.append((f"--input_shape={text}", t("atc.why_input_shape")))
    if input_format is not None:
        if input_format not in data["input_formats"]:
            raise AtcError(t("atc.format_invalid", format=input_format, formats=", ".join(data["input_formats"])))
        if input_format not in fw_info["formats"]:
            raise AtcError(t("atc.format_framework", name=fw_info["name"], formats=", ".join(fw_info["formats"])))
        rank = data["format_ranks"].get(input_format)
        for name, dims in (shapes or {}).items():
            if rank and len(dims) != rank:
                raise AtcError(t("atc.format_rank", format=input_format, rank=rank, name=name, given=len(dims)))
        argv.append(f"--input_format={input_format}")
        reasons.append((f"--input_format={input_format}", t("atc.why_input_format")))
    modes = data["precision_modes"]
    if precision_mode is None:
        value, why = default_precision(soc_version)
        reasons.append((t("atc.no_precision_mode"), t("atc.why_default_precision", why=why)))
        if line["training"]:
            warnings.append(t("atc.precision_implicit"))
    else:
        if precision_mode not in modes:
            near = difflib.get_close_matches(precision_mode, modes, n=2)
            raise AtcError(t("atc.precision_unknown", mode=repr(precision_mode))
                           + (t("atc.precision_near", names=t("atc.or_separator").join(near)) if near
                              else t("atc.precision_choices", modes=", ".join(modes))))
        info = modes[precision_mode]
        if info.get("needs_bf16") and not line["bf16"]:
            raise AtcError(t("atc.needs_bf16", mode=precision_mode, soc=soc_version, line=localized(line, "name")))
        argv.append(f"--precision_mode={precision_mode}")
        reasons.append((f"--precision_mode={precision_mode}", localized(info, "what")))
    if log not in data["log_levels"]:
        raise AtcError(t("atc.log_invalid", log=log, levels=", ".join(data["log_levels"])))
    argv.append(f"--log={log}")
    reasons.append((f"--log={log}", t("atc.why_log")))
    if mode:
        argv.append(f"--mode={mode}")
        reasons.append((f"--mode={mode}", localized(data, "modes")[mode]))
    return AtcCommand(argv, reasons, warnings)


def parse_command(line: str) -> dict[str, str]:
    """``--key=value`` (or ``--key value``) options of an atc command line, e.g. one copied from a script."""
    tokens = shlex.split(line)
    if not tokens or Path(tokens[0]).name != "atc":
        raise AtcError(t("atc.not_atc"))
    out: dict[str, str] = {}
    i = 1
    while i < len(tokens):
        token = tokens[i]
        match = re.fullmatch(r"--([\w-]+)(?:=(.*))?", token, flags=re.S)
        if not match:
            raise AtcError(t("atc.bad_token", token=repr(token)))
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
        raise AtcError(t("atc.needs_model_soc"))
    try:
        framework = int(opts["framework"]) if "framework" in opts else None
        mode = int(opts.get("mode", 0))
    except ValueError:
        raise AtcError(t("atc.int_options")) from None
    cmd = command(opts["model"], soc_version=opts["soc_version"], framework=framework, output=opts.get("output"),
                  input_shape=opts.get("input_shape"), input_format=opts.get("input_format"),
                  precision_mode=opts.get("precision_mode"), log=opts.get("log", "error"), weight=opts.get("weight"),
                  mode=mode)
    if unknown:
        cmd.warnings.append(t("atc.unchecked", names=", ".join(sorted(unknown))))
    return cmd
