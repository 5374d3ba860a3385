"""Ask the device what it is, and look it up in the course's chip table (``npulab.hw.chips``).

Three independent witnesses, each optional:

- the runtime: ``torch.npu.get_device_properties(i)`` has ``name`` (the SoC name, e.g. ``Ascend910B3``),
  ``cube_core_num``, ``vector_core_num``, ``L2_cache_size`` and ``total_memory`` (the C API is
  ``aclrtGetDeviceInfo`` with ``ACL_DEV_ATTR_CUBE_CORE_NUM`` … ``ACL_DEV_ATTR_L2_CACHE_SIZE``);
- the CANN platform file ``<toolkit>/<arch>-linux/data/platform_config/<SoC>.ini`` that the compilers read;
- ``npu-smi info -t board -i 0 -c 0`` (``Chip Name``) or the Name column of ``npu-smi info``.

The runtime is read in a subprocess (importing torch_npu can abort a process without CANN). Without an NPU nothing
is found, and the course computes for the 910B3 (``npulab.hw.chips.DEFAULT``), saying so. Figures the device
reports are measured ones; a difference from the table (a vNPU slice with fewer cores, a 64 GB 910B4-1) is shown,
not hidden.
"""

from __future__ import annotations

import configparser
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from npulab.core.i18n import t
from npulab.hw.chips import DEFAULT, Chip, UnknownChip, get_chip

CHOICE_VARIABLE = "NPULAB_CHIP"  # names the chip every lesson computes for, instead of asking the device

# the properties torch_npu documents on get_device_properties, and the chip-table fields they correspond to
PROPERTY_FIELDS = {"cube_core_num": "cube_cores", "vector_core_num": "vector_cores", "L2_cache_size": "l2_bytes"}

_PROBE = r"""
import json
out = {}
try:
    import torch, torch_npu
    if torch.npu.is_available():
        p = torch.npu.get_device_properties(0)
        out = {k: getattr(p, k, None) for k in ("name", "cube_core_num", "vector_core_num", "L2_cache_size",
                                                "total_memory")}
        try:
            out["mem_get_info"] = list(torch.npu.mem_get_info(0))
        except Exception:
            pass
except BaseException as err:
    out = {"error": f"{type(err).__name__}: {err}"}
print("NPULAB-CHIP " + json.dumps(out))
"""


def read_device_properties(environ: Mapping[str, str] | None = None, timeout: float = 60.0) -> dict:
    """``get_device_properties(0)`` (and ``mem_get_info``) read in a subprocess; {} without an NPU or torch_npu."""
    import importlib.util

    if importlib.util.find_spec("torch_npu") is None:
        return {}
    env = dict(os.environ if environ is None else environ)
    try:
        proc = subprocess.run([sys.executable, "-c", _PROBE], env=env, capture_output=True, text=True, timeout=timeout)
    except (subprocess.TimeoutExpired, OSError) as err:
        return {"error": t("probe.read_failed", error=err)}
    for line in proc.stdout.splitlines():
        if line.startswith("NPULAB-CHIP "):
            try:
                return json.loads(line[len("NPULAB-CHIP "):])
            except ValueError:
                break
    return {"error": t("probe.read_crashed")}


def parse_platform_ini(text: str) -> dict[str, dict[str, str]]:
    """A CANN platform file as {section: {key: value}} (keys keep their case; values are strings)."""
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    parser.optionxform = str
    parser.read_string(text)
    return {section: dict(parser[section]) for section in parser.sections()}


def find_platform_ini(soc_version: str, toolkit: str | Path | None = None,
                      environ: Mapping[str, str] | None = None) -> Path | None:
    """The platform file of ``soc_version`` under a CANN toolkit (``ASCEND_HOME_PATH`` / ``ASCEND_TOOLKIT_HOME``)."""
    env = os.environ if environ is None else environ
    roots = [Path(toolkit)] if toolkit else [Path(env[k]) for k in ("ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME") if env.get(k)]
    roots += [Path("/usr/local/Ascend/ascend-toolkit/latest")] if not toolkit else []
    for root in roots:
        for candidate in sorted(root.glob(f"*-linux/data/platform_config/{soc_version}.ini")):
            return candidate
    return None


def ini_figures(ini: Mapping[str, Mapping[str, str]]) -> dict[str, float]:
    """The chip-table fields a platform file gives (cores, clock, memory, buffers), as numbers."""
    soc, core = ini.get("SoCInfo", {}), ini.get("AICoreSpec", {})
    keys = {"cube_cores": (soc, "cube_core_cnt", "ai_core_cnt"), "vector_cores": (soc, "vector_core_cnt", None),
            "cube_freq_mhz": (core, "cube_freq", None), "l2_bytes": (soc, "l2_size", None),
            "l1_bytes": (core, "l1_size", None), "ub_bytes": (core, "ub_size", None), "l0c_bytes": (core, "l0_c_size", None)}
    out: dict[str, float] = {}
    for name, (section, key, fallback) in keys.items():
        value = section.get(key) or (section.get(fallback) if fallback else None)
        if value and re.fullmatch(r"\d+", value.strip()):
            out[name] = int(value)
    if re.fullmatch(r"\d+", soc.get("memory_size", "").strip() or "x"):
        out["memory_gib"] = round(int(soc["memory_size"]) / 2**30, 2)
    return out


def npu_smi_chip_name(run=subprocess.run) -> str | None:
    """``Chip Name`` of NPU 0, chip 0 from ``npu-smi info -t board -i 0 -c 0`` (None without npu-smi)."""
    if shutil.which("npu-smi") is None:
        return None
    try:
        proc = run(["npu-smi", "info", "-t", "board", "-i", "0", "-c", "0"], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return None
    m = re.search(r"Chip Name\s*:\s*(\S+)", proc.stdout or "")
    return m[1] if m and m[1].lower() not in ("xxx", "na") else None


@dataclass
class Identity:
    """What the device said it is, which chip of the table that is, and where the two disagree."""

    chip: Chip
    detected: bool  # False: nothing was found, the chip is the course default
    how: str  # which witness named it
    soc_name: str | None = None
    reported: dict = field(default_factory=dict)  # the device's own figures (measured), by chip-table field
    differences: list[str] = field(default_factory=list)
    chosen: bool = False  # True: the learner named the chip (argument or NPULAB_CHIP), the device was not asked

    def describe(self) -> str:
        """One paragraph, in the reader's language, for doctor and the lessons."""
        series, role = self.chip.text("series"), self.chip.text("role")
        if self.chosen:
            return t("probe.chosen", chip=self.chip.key, soc=self.chip.soc_version, how=self.how, series=series, role=role)
        if not self.detected:
            return t("probe.default", how=self.how, chip=self.chip.key, soc=self.chip.soc_version)
        text = t("probe.detected", soc=self.soc_name, how=self.how, chip=self.chip.key, series=series, role=role)
        if self.differences:
            text += t("probe.differences", differences=t("probe.sep").join(self.differences))
        return t("probe.end", text=text)


def _compare(chip: Chip, reported: Mapping[str, float]) -> list[str]:
    diffs = []
    for name, value in reported.items():
        fig = chip.figure(name) if name in chip.raw else None
        if fig is not None and abs(float(fig.value) - float(value)) > 1e-6 * max(1.0, abs(float(fig.value))):
            diffs.append(t("probe.difference", name=name, here=f"{value:g}", table=f"{fig.value:g}"))
    return diffs


def identify(props: Mapping | None = None, ini: Mapping | None = None, smi_name: str | None = None) -> Identity:
    """Match the witnesses against the chip table: the runtime's name first, then npu-smi, then the default."""
    props = dict(props or {})
    name, how = props.get("name"), "torch.npu.get_device_properties"
    if not name and smi_name:
        name, how = smi_name, "npu-smi info -t board"
    if not name:
        why = props.get("error") or t("probe.no_npu")
        return Identity(get_chip(DEFAULT), False, why)
    try:
        chip = get_chip(name)
    except UnknownChip:
        return Identity(get_chip(DEFAULT), False, t("probe.unknown_name", name=repr(name)), soc_name=name)
    reported = {f: props[p] for p, f in PROPERTY_FIELDS.items() if isinstance(props.get(p), (int, float))}
    if isinstance(props.get("total_memory"), (int, float)):
        reported["runtime_total_bytes"] = props["total_memory"]
    diffs = _compare(chip, {k: v for k, v in reported.items() if k != "runtime_total_bytes"})
    if ini:
        diffs += [t("probe.platform_file", difference=d) for d in _compare(chip, ini_figures(ini))]
    return Identity(chip, True, how, name, reported, diffs)


def current_chip(environ: Mapping[str, str] | None = None, timeout: float = 60.0) -> Identity:
    """Read this machine's chip (runtime, platform file, npu-smi); the course default when there is none."""
    props = read_device_properties(environ, timeout)
    smi = None if props.get("name") else npu_smi_chip_name()
    name = props.get("name") or smi
    ini = None
    if name:
        path = find_platform_ini(name, environ=environ)
        ini = parse_platform_ini(path.read_text(encoding="utf-8", errors="replace")) if path else None
    return identify(props, ini, smi)


def lesson_chip(choice: str | None = None, environ: Mapping[str, str] | None = None, timeout: float = 60.0) -> Identity:
    """The chip a lesson computes for: the learner's choice, else this machine's chip, else the course default.

    The choice is the lesson's ``CHIP`` variable or, for every lesson at once, the environment variable
    ``NPULAB_CHIP`` (``NPULAB_CHIP=910B4 jupyter lab``); any name ``npulab.hw.chips.get_chip`` accepts.
    An unknown name raises ``UnknownChip`` with the names the table knows.
    """
    env = os.environ if environ is None else environ
    if choice:
        return Identity(get_chip(choice), False, t("probe.chip_variable"), chosen=True)
    if env.get(CHOICE_VARIABLE, "").strip():
        return Identity(get_chip(env[CHOICE_VARIABLE].strip()), False, t("probe.environment_variable", name=CHOICE_VARIABLE),
                        chosen=True)
    return current_chip(environ, timeout)


def chip_check(environ: Mapping[str, str] | None = None, *, has_npu: bool, timeout: float = 60.0) -> tuple[str, str, str]:
    """(status, message, fix) for ``doctor``: which chip this is and what it supports (and a lesson override)."""
    env = os.environ if environ is None else environ
    choice = env.get(CHOICE_VARIABLE, "").strip()
    note = t("probe.override", name=CHOICE_VARIABLE, choice=choice) if choice else ""
    if not has_npu:
        return "skip", identify().describe() + note, ""
    ident = current_chip(environ, timeout)
    if not ident.detected:
        return ("warn", ident.describe() + note,
                t("probe.not_detected_fix"))
    chip = ident.chip
    supports = t("probe.supports", paths=t("probe.list_sep").join(chip.text("programming")),
                 bf16=t("probe.bf16_yes") if chip.bf16 else t("probe.bf16_no"), role=chip.text("role"))
    return ("warn" if ident.differences else "ok"), f"{ident.describe()} {supports}{note}", ""
