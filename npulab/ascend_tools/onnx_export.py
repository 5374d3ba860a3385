"""ONNX export and inspection for the ATC lesson: export, check, compare with PyTorch, look inside.

Exporter choice (docs/DECISIONS.md, "ONNX export"): ``torch.onnx.export(..., dynamo=False)``, the TorchScript
exporter, with **opset 15**. Reasons: the opsets ATC documents differ by CANN version (v9–v18 in the 7.0
docs, v11–v15 in the 8.0.RC docs, v11–v18 in 9.1; hiascend ATC parameter pages, atlasatcparam_16_0014), so the highest opset every one of
them accepts is 15; the dynamo exporter starts at opset 18, needs the onnxscript package (not in the course
environment) and writes the weights to a separate ``.onnx.data`` file by default; and it takes about 4× as
long (measured on the course's 2-core CI machine, 2026-11). The TorchScript exporter is deprecated in PyTorch and prints a DeprecationWarning;
``export_onnx`` silences exactly that warning, because the choice is deliberate. ``exporter="dynamo"`` is
there for when onnxscript is installed.
"""

from __future__ import annotations

import importlib.util
import time
import warnings
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from npulab.core.i18n import t

DEFAULT_OPSET = 15
_ELEM_NAMES = {1: "float32", 2: "uint8", 3: "int8", 5: "int16", 6: "int32", 7: "int64", 9: "bool", 10: "float16",
               11: "float64", 16: "bfloat16"}


@dataclass(frozen=True)
class ExportResult:
    """What an export produced."""

    path: Path
    seconds: float
    opset: int
    exporter: str
    nbytes: int  # the .onnx file plus any external-data file next to it


@dataclass(frozen=True)
class TensorSpec:
    """A graph input or output: name, shape (ints, or a name for a dynamic dimension) and element type."""

    name: str
    shape: tuple[int | str, ...]
    dtype: str

    @property
    def static(self) -> bool:
        return all(isinstance(d, int) and d > 0 for d in self.shape)


@dataclass(frozen=True)
class Comparison:
    """ONNX Runtime output against PyTorch output for the same input."""

    max_abs: float
    max_ref: float  # largest |PyTorch output|, to judge max_abs against
    same_argmax: bool
    ort_ms: float  # one ONNX Runtime run after a warm-up run (a rough figure, not a benchmark)

    @property
    def max_rel(self) -> float:
        return self.max_abs / self.max_ref if self.max_ref else float("inf")


def _file_bytes(path: Path) -> int:
    extra = path.with_name(path.name + ".data")
    return path.stat().st_size + (extra.stat().st_size if extra.exists() else 0)


def export_onnx(model, example, path: Path | str, *, opset: int = DEFAULT_OPSET, input_names=("input",),
                output_names=("logits",), dynamic_batch: bool = False, exporter: str = "torchscript") -> ExportResult:
    """Export ``model`` (put in eval mode) with ``example`` inputs to ``path``; see the module note on the exporter."""
    import torch

    path = Path(path)
    if exporter not in ("torchscript", "dynamo"):
        raise ValueError(t("onnx.bad_exporter", exporter=repr(exporter)))
    if exporter == "dynamo" and importlib.util.find_spec("onnxscript") is None:
        raise ValueError(t("onnx.needs_onnxscript"))
    model = model.eval()
    args = example if isinstance(example, tuple) else (example,)
    dynamic = {name: {0: "batch"} for name in (*input_names, *output_names)} if dynamic_batch else None
    start = time.perf_counter()
    with warnings.catch_warnings(), torch.no_grad():
        warnings.filterwarnings("ignore", category=DeprecationWarning, module=r"torch\.onnx")
        warnings.filterwarnings("ignore", message=r".*legacy TorchScript-based ONNX export.*")
        torch.onnx.export(model, args, str(path), dynamo=(exporter == "dynamo"), opset_version=opset,
                          input_names=list(input_names), output_names=list(output_names),
                          dynamic_axes=dynamic, do_constant_folding=True)
    return ExportResult(path, time.perf_counter() - start, opset, exporter, _file_bytes(path))


def export_resnet50(path: Path | str, *, batch: int = 1, image_size: int = 224, opset: int = DEFAULT_OPSET,
                    seed: int = 0, **kwargs):
    """Export the course's ResNet-50 (random weights, fixed seed); returns ``(model, example, ExportResult)``."""
    import torch

    from npulab.pytorch.resnet import resnet50

    torch.manual_seed(seed)
    model = resnet50().eval()
    example = torch.randn(batch, 3, image_size, image_size)
    return model, example, export_onnx(model, example, path, opset=opset, **kwargs)


def load(path_or_model, *, with_weights: bool = True):
    """An ``onnx.ModelProto`` from a path (weights optional) or the proto itself."""
    import onnx

    if isinstance(path_or_model, (str, Path)):
        return onnx.load(str(path_or_model), load_external_data=with_weights)
    return path_or_model


def check(path: Path | str) -> dict:
    """Run ``onnx.checker`` (by path, so models over 2 GB work); return ir_version, opsets, node count."""
    import onnx

    onnx.checker.check_model(str(path), full_check=True)
    model = load(path, with_weights=False)
    return {"ir_version": model.ir_version, "opset": {o.domain or "ai.onnx": o.version for o in model.opset_import},
            "nodes": len(model.graph.node), "producer": f"{model.producer_name} {model.producer_version}".strip()}


def _spec(value) -> TensorSpec:
    tensor = value.type.tensor_type
    dims = tuple(d.dim_value if d.HasField("dim_value") else (d.dim_param or "?") for d in tensor.shape.dim)
    return TensorSpec(value.name, dims, _ELEM_NAMES.get(tensor.elem_type, str(tensor.elem_type)))


def inputs(path_or_model) -> list[TensorSpec]:
    """The graph's real inputs (initializers excluded), as ATC's --input_shape must name them."""
    model = load(path_or_model, with_weights=False)
    weights = {i.name for i in model.graph.initializer}
    return [_spec(v) for v in model.graph.input if v.name not in weights]


def outputs(path_or_model) -> list[TensorSpec]:
    """The graph's outputs."""
    return [_spec(v) for v in load(path_or_model, with_weights=False).graph.output]


def op_histogram(path_or_model) -> Counter:
    """How many nodes of each operator type the graph has."""
    return Counter(node.op_type for node in load(path_or_model, with_weights=False).graph.node)


def weight_bytes(path_or_model) -> dict[str, int]:
    """Bytes of the initializers (weights) by element type, e.g. ``{"float32": 102_000_000}``."""
    from onnx import numpy_helper

    out: Counter = Counter()
    for init in load(path_or_model).graph.initializer:
        arr = numpy_helper.to_array(init)
        out[str(arr.dtype)] += arr.nbytes
    return dict(out)


def fp16_weights_copy(src: Path | str, dst: Path | str) -> int:
    """Write a copy of ``src`` whose FP32 initializers are stored as FP16; return the new file's size in bytes.

    This shows where a halved file size comes from. The copy is not a runnable model: the graph still expects
    FP32 tensors (ONNX Runtime refuses it; ``load_error`` shows the message). ATC's ``force_fp16`` converts
    the whole graph, which is why its OM runs.
    """
    import numpy as np
    import onnx
    from onnx import numpy_helper

    model = load(src)
    for i, init in enumerate(model.graph.initializer):
        arr = numpy_helper.to_array(init)
        if arr.dtype == np.float32:
            model.graph.initializer[i].CopyFrom(numpy_helper.from_array(arr.astype(np.float16), init.name))
    onnx.save(model, str(dst))
    return Path(dst).stat().st_size


def session(path: Path | str):
    """An ONNX Runtime CPU session for ``path``."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.log_severity_level = 3  # errors only: keep ORT's warnings off the page
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def load_error(path: Path | str) -> str | None:
    """The message ONNX Runtime gives when it refuses to load ``path`` (None when it loads)."""
    try:
        session(path)
    except Exception as err:  # ORT raises its own exception types; the message is what we want
        return str(err).strip().splitlines()[-1][:400]
    return None


def compare_with_torch(model, path: Path | str, example) -> Comparison:
    """Run the same input through PyTorch and ONNX Runtime; return the largest absolute difference."""
    import numpy as np
    import torch

    sess = session(path)
    name = sess.get_inputs()[0].name
    feed = {name: example.detach().cpu().numpy()}
    sess.run(None, feed)  # warm-up
    start = time.perf_counter()
    got = sess.run(None, feed)[0]
    ort_ms = (time.perf_counter() - start) * 1e3
    with torch.no_grad():
        ref = model.eval()(example).detach().cpu().numpy()
    diff = float(np.abs(got - ref).max())
    return Comparison(diff, float(np.abs(ref).max()), bool((got.argmax(-1) == ref.argmax(-1)).all()), ort_ms)
