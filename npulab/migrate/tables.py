"""The analyzer's data: rule texts, CUDA-only packages, environment variables, tools and the torch.cuda map.

Everything a rule says or maps lives in ``npulab/data/migration_rules.yaml`` (hand-written) and
``npulab/data/cuda_npu_symbols.yaml`` (generated from the real torch_npu wheel); this module reads them.
"""

from __future__ import annotations

from dataclasses import dataclass

from npulab.core.i18n import localized, t
from npulab.core.paths import DATA_DIR, load_yaml
from npulab.migrate import symbols

RULES_FILE = DATA_DIR / "migration_rules.yaml"


def load() -> dict:
    """The hand-written rule table."""
    return load_yaml(RULES_FILE)


def rule(rule_id: str) -> dict:
    """Severity, texts and flags of one rule."""
    return load()["rules"][rule_id]


@dataclass(frozen=True)
class CudaName:
    """A ``torch.cuda`` name and what stands for it on the NPU."""

    key: str  # the longest name of the map that the used name starts with
    npu: str | None  # the torch.npu name, None when there is none
    severity: str  # "auto" when npu is a same-meaning name, else from the overrides
    note: str


def torch_cuda(name: str) -> CudaName | None:
    """Look up a dotted ``torch.cuda...`` name (longest known prefix); None for names not in the map."""
    names = symbols.load()["names"]
    overrides = load()["torch_cuda_overrides"]
    parts = name.split(".")
    prefixes = [".".join(parts[:end]) for end in range(len(parts), 1, -1)]
    key = next((p for p in prefixes if p in names or p in overrides), None)
    if key is None:
        return None
    tail = parts[key.count(".") + 1:]
    if tail and _is_module(key) and names.get(key) is not None:
        return None  # torch.cuda.<a name the map does not know>: a module's unknown member
    extra = overrides.get(key, {})
    npu = extra.get("npu", names.get(key))
    if npu and tail:
        npu = ".".join([npu, *tail])  # torch.cuda.Stream.wait_event → torch.npu.Stream.wait_event
    advice = next((overrides[p] for p in prefixes if p in overrides), {})  # torch.cuda.nvtx.mark → torch.cuda.nvtx
    severity = extra.get("severity") or ("auto" if npu else advice.get("severity", "manual"))
    note = (localized(extra, "note") if extra.get("note") else None) or (t("migrate.change_to", npu=npu) if npu else
                                                                          localized(advice, "note") if advice.get("note")
                                                                          else t("migrate.no_same_name"))
    return CudaName(key, npu, severity, note)


def accelerator_target(name: str) -> str:
    """'；与设备无关的写法：torch.accelerator.X（PyTorch ≥ V）' (in the reader's language) for a torch.cuda name
    that has one, else ''."""
    entry = load().get("accelerator_targets", {}).get(name)
    return t("migrate.neutral", target=entry["target"], since=entry["since"]) if entry else ""


def _is_module(key: str) -> bool:
    return key == "torch.cuda" or (key.count(".") == 2 and key.rsplit(".", 1)[1] in symbols.SUBMODULES)


def versions() -> dict[str, str]:
    """The torch and torch_npu versions the shipped map was built from."""
    data = symbols.load()
    return {"torch": str(data["torch"]), "torch_npu": str(data["torch_npu"])}


def package(module: str) -> tuple[str, dict] | None:
    """The CUDA-only package entry a dotted module name belongs to (``flash_attn.layers`` → flash_attn)."""
    packages = load()["packages"]
    parts = module.split(".")
    for end in range(len(parts), 0, -1):
        key = ".".join(parts[:end])
        if key in packages:
            return key, packages[key]
    return None


def package_severity(spec: dict) -> str:
    """A CUDA-only package's severity: ``manual`` where its note names a replacement, else ``blocker``."""
    return spec.get("severity", "blocker")


def env_var(name: str) -> dict | None:
    """``{"new": ...}`` or ``{"note": ...}`` for a CUDA/NCCL environment variable name, None for others."""
    table = load()
    if name in table["env_vars"]:
        entry = dict(table["env_vars"][name])
        return {**entry, "note": localized(entry, "note")} if "note" in entry else entry
    for prefix, note in localized(table, "env_prefixes").items():
        if name.startswith(prefix) and len(name) > len(prefix):
            return {"note": note}
    return None
