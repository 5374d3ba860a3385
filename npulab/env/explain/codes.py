"""Decoding error codes from their documented schemes (data: ``npulab/data/error_codes.yaml``).

Five code systems appear in Ascend logs:

- CANN error codes ``E`` + module character + 4 digits (``EZ1001``): the module each character denotes and the
  user (0000–8999) / internal (9000–9999) ranges are documented, so an unknown code still decodes its module;
- AscendCL, runtime, GE and aclnn return codes, 6-digit integers (``507015``, ``161002``): the first digit is the
  class and digits 2–3 the component, read off the documented tables;
- torch_npu's ``ERRxxyyy`` (``ERR01100``): submodule ``xx`` and error kind ``yyy``;
- HCCL's ``HcclResult`` 1–24, in ``HCCL function error: …, error code is N``;
- DCMI's negative return codes (``-8005``), from ``npu-smi`` and device management;
- the driver's ``drvError_t`` (``87``), the value a call of its API (``halGetDeviceInfo``, ``drvGetDevNum``) returns,
  decoded only on a line that names such a call (``npulab/data/driver_error_codes.yaml``, extracted from CANN's
  runtime repository by ``scripts/extract_driver_error_codes.py``).

Numbers are read as codes only in an error context (``error code is``, ``ret =``, ``errno:``, ``failed:`` …), so a
metric such as ``0.107020`` or a step counter is never a code.

The tables' prose is Chinese; ``npulab/data/error_codes_en.yaml`` holds its English, one string per dotted path of
the tables (``cann.codes.EZ1001.meaning``), each stamped with the :func:`~npulab.env.explain.catalog.source_hash`
of the Chinese string it translates. The tables come in npulab's language (:func:`npulab.core.i18n.language`).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from npulab.core import i18n
from npulab.core.i18n import t
from npulab.core.paths import DATA_DIR, load_yaml
from npulab.env.explain.catalog import CJK
from npulab.env.explain.reader import CODE_LITERAL, decode_line, hit_lines, line_at, shorten, standalone
from npulab.env.explain.registry import INTERNAL_FROM, is_internal, registry

CODES_PATH = DATA_DIR / "error_codes.yaml"
CODES_EN_PATH = DATA_DIR / "error_codes_en.yaml"
DRIVER_PATH = DATA_DIR / "driver_error_codes.yaml"
MAX_CODES = 40  # distinct codes kept per log

_CANN = re.compile(r"^([EWI])([0-9A-Z])(\d{4})$")
_TORCH_NPU = re.compile(r"^ERR(\d{2})(\d{3})$")
_ACL = re.compile(r"^[1-5]\d{5}$")
_DCMI = re.compile(r"^-8\d{3}$")
# a call of the driver's user-space API (ascend_hal.h: halGetDeviceInfo, drvGetDevNum …) or its return code so named
DRIVER_CALL = re.compile(r"\b(?:hal|drv)[A-Z]\w*|\bdrvRetCode\b")
# in the log: CANN and torch_npu codes stand alone; numbers need an error context before them
# "failure": ONNX Runtime's CANN provider writes "CANN failure 507013: ACL_ERROR_…"; "returns": a call's return
# code reported in prose ("aclnnAddmm returns 561103"); "status": an aclnn call's aclnnStatus ("… GetWorkspaceSize failed
# with aclnnStatus=161001", the type of the aclnn API's return value)
_NUMBER_NEEDLES = (b"code", b"errno", b"ret", b"result", b"failed", b"failure", b"status", "错误码".encode(),
                   "错误代码".encode())
_NUMBER = re.compile(r"(?i:error[ _]?code(?:\s+is)?|errorcode|errcode|errno|ret(?:code|urn(?:s|ed)?)?|result|failed|failure|"
                     r"(?:aclnn|acl)?status|错误代?码)"
                     r"\s*(?:is\s*|=\s*|:\s*|\[\s*)?(-?\d{1,6})(?!\d|\.\d)")  # a sentence's full stop may follow


@dataclass(frozen=True)
class CodeInfo:
    """What one error code means: its scheme, module, documented name and meaning, and where that is written."""

    code: str
    scheme: str
    module: str
    name: str
    meaning: str
    source: str
    known: bool  # the specific code is in the documented table (not only its scheme and module)

    def describe(self, source: bool = True) -> str:
        """One line in npulab's language: ``EZ1001``: <module> — <name>: <meaning> (<source>); ``source=False``
        leaves the source out."""
        name = t("explain.code.name", name=self.name) if self.name else ""
        text = t("explain.code.describe", code=self.code, module=self.module, name=name, meaning=self.meaning)
        return t("explain.code.with_source", text=text, source=self.source) if source else text

    def to_dict(self) -> dict:
        return {"code": self.code, "scheme": self.scheme, "module": self.module, "name": self.name,
                "meaning": self.meaning, "source": self.source, "known": self.known}


def tables(lang: str | None = None) -> dict:
    """The code tables in ``lang`` (default: npulab's language), parsed once per process and language; a string
    without an English twin stays Chinese."""
    return _tables(lang or i18n.language())


@functools.cache
def _tables(lang: str) -> dict:
    data = load_yaml(CODES_PATH)
    return data if lang == "zh" else _translated(data, english_strings(), ())


@functools.cache
def english_strings() -> dict[str, dict]:
    """The English twin's strings by dotted path: ``{"cann.levels.E": {"source": <stamp>, "en": "error"}, …}``."""
    return load_yaml(CODES_EN_PATH)["strings"] if CODES_EN_PATH.exists() else {}


def chinese_strings(data=None, path: tuple[str, ...] = ()):
    """Every string of the Chinese tables that holds Chinese, as ``(dotted path, text)``: what the twin translates."""
    data = load_yaml(CODES_PATH) if data is None else data
    items = data.items() if isinstance(data, dict) else enumerate(data) if isinstance(data, list) else None
    if items is None:
        if isinstance(data, str) and CJK.search(data):
            yield ".".join(path), data
        return
    for key, value in items:
        yield from chinese_strings(value, (*path, str(key)))


def _translated(data, twin: dict[str, dict], path: tuple[str, ...]):
    if isinstance(data, dict):
        return {k: _translated(v, twin, (*path, str(k))) for k, v in data.items()}
    if isinstance(data, list):
        return [_translated(v, twin, (*path, str(i))) for i, v in enumerate(data)]
    entry = twin.get(".".join(path)) if isinstance(data, str) else None
    return entry["en"] if entry else data


def _cann(code: str) -> CodeInfo | None:
    m = _CANN.match(code)
    if not m:
        return None
    data = tables()["cann"]
    level, module_char, number = m.group(1), m.group(2), int(m.group(3))
    registered = registry().get(code, {})  # CANN's own registry names its class (rules/registry.py)
    module = data["modules"].get(module_char) or registered.get("class") or (
        t("explain.code.cann_registered") if registered else None)  # the operator checks' E5–E7 have no module row
    if module is None:
        return None
    module = t("explain.code.cann_module", level=data["levels"][level], char=module_char, module=module)
    entry = data["codes"].get(code)
    if entry:
        return CodeInfo(code, "cann", module, entry["name"], entry["meaning"], entry["source"], True)
    band = next(r["meaning"] for r in data["ranges"] if r["from"] <= number <= r["to"])
    if is_internal(code) and number < INTERNAL_FROM:  # a code below the band that the registry files as an inner error
        band = t("explain.code.cann_registered_inner")
    return CodeInfo(code, "cann", module, registered.get("title", ""),
                    t("explain.code.cann_number", number=f"{number:04d}", band=band),
                    registered.get("source", data["source"]), False)


def _torch_npu(code: str) -> CodeInfo | None:
    m = _TORCH_NPU.match(code)
    if not m:
        return None
    data = tables()["torch_npu"]
    sub = data["submodules"].get(m.group(1))
    kind = data["kinds"].get(int(m.group(2)))
    meaning = kind if kind else t("explain.code.unlisted_kind", kind=int(m.group(2)))
    module = t("explain.code.torch_npu_module", submodule=sub or t("explain.code.unlisted_submodule", sub=m.group(1)))
    return CodeInfo(code, "torch_npu", module, "", meaning, data["sources"][0], bool(sub and kind))


def _acl(code: str) -> CodeInfo | None:
    if not _ACL.match(code):
        return None
    data = tables()["acl"]
    component = data["components"].get(code[1:3])
    cls = data["classes"].get(code[0])
    if component is None or cls is None:
        return None
    module = t("explain.code.acl_module", component=component, digit=code[0], cls=cls)
    entry = data["codes"].get(int(code))
    if entry:
        return CodeInfo(code, "acl", module, entry["name"], entry["meaning"], entry.get("source") or _acl_source(code), True)
    return CodeInfo(code, "acl", module, "", t("explain.code.acl_unlisted"), data["sources"][0], False)


def _acl_source(code: str) -> str:
    sources = tables()["acl"]["sources"]
    if code[1:3] == "61":
        return sources[3]  # aclnn return codes page
    if code[1:3] == "07":
        return sources[2]  # rt_error_codes.h
    return sources[0]  # AscendCL aclError table


def _dcmi(code: str) -> CodeInfo | None:
    if not _DCMI.match(code):
        return None
    data = tables()["dcmi"]
    entry = data["codes"].get(int(code))
    if entry:
        return CodeInfo(code, "dcmi", t("explain.code.dcmi_module"), entry["name"], entry["meaning"], data["source"], True)
    return CodeInfo(code, "dcmi", t("explain.code.dcmi_module"), "", t("explain.code.unlisted"), data["source"], False)


def _hccl(code: str) -> CodeInfo | None:
    data = tables()["hccl"]
    if not code.isdigit() or int(code) not in data["codes"]:
        return None
    return CodeInfo(code, "hccl", t("explain.code.hccl_module"), "", data["codes"][int(code)], data["source"], True)


@functools.cache
def driver_codes() -> dict:
    """The driver's return codes (``{"source": …, "codes": {87: {"name": "DRV_ERROR_RESOURCE_OCCUPIED", …}}}``)."""
    return load_yaml(DRIVER_PATH)


def _driver(code: str) -> CodeInfo | None:
    data = driver_codes()
    entry = data["codes"].get(int(code)) if code.isdigit() else None
    if entry is None:
        return None
    meaning = entry.get("comment") or entry["name"]
    if entry.get("runtime"):
        meaning = t("explain.code.driver_runtime", meaning=meaning, runtime=entry["runtime"])
    return CodeInfo(code, "driver", t("explain.code.driver_module"), entry["name"], meaning, data["source"], True)


def decode(code: str, *, hccl: bool = False, driver: bool = False) -> CodeInfo | None:
    """The meaning of ``code`` (``EZ1001``, ``507015``, ``ERR01100``, ``-8005``; ``11`` with ``hccl=True``; ``87``
    with ``driver=True``), or None."""
    code = code.strip()
    if hccl:
        return _hccl(code)
    if driver:
        return _driver(code)
    for reader in (_cann, _torch_npu, _dcmi, _acl):
        info = reader(code)
        if info is not None:
            return info
    return None


def documented_codes() -> list[tuple[str, bool]]:
    """Every specific code in the data as ``(code, is_hccl)``: the tests check that each one resolves."""
    data = tables("zh")
    out = [(c, False) for c in data["cann"]["codes"]] + [(str(c), False) for c in data["acl"]["codes"]]
    out += [(str(c), False) for c in data["dcmi"]["codes"]] + [(str(c), True) for c in data["hccl"]["codes"]]
    out += [(f"ERR{s}{k:03d}", False) for s in data["torch_npu"]["submodules"] for k in data["torch_npu"]["kinds"]]
    return out


@dataclass
class CodeHit:
    """A code seen in the log: what it means, and the first line that shows it."""

    info: CodeInfo
    line: int
    text: str

    def to_dict(self) -> dict:
        return {**self.info.to_dict(), "line": self.line, "text": self.text}


class CodeScanner:
    """Finds every error code of a known scheme in the blocks of a log (first occurrence of each)."""

    def __init__(self):
        self.hits: dict[str, CodeHit] = {}

    def feed(self, first_line: int, block: bytes) -> None:
        """Scan one block of whole lines."""
        for m in CODE_LITERAL.finditer(block):
            if standalone(block, m.start(), m.end()):
                self._add(first_line, block, m.group().decode("ascii"), m.start(), hccl=False)
        for start, end in hit_lines(block, block.lower(), _NUMBER_NEEDLES):
            raw = block[start:end]
            hccl = b"HCCL" in raw or b"hccl" in raw
            line = decode_line(raw)
            driver = bool(DRIVER_CALL.search(line))
            for m in _NUMBER.finditer(line):
                self._add(first_line, block, m.group(1), start, hccl=hccl, driver=driver)

    def _add(self, first_line: int, block: bytes, code: str, pos: int, *, hccl: bool, driver: bool = False) -> None:
        if code in self.hits or len(self.hits) >= MAX_CODES:
            return
        info = decode(code)
        if info is None and hccl:
            info = decode(code, hccl=True)
        if info is None and driver:
            info = decode(code, driver=True)
        if info is None:
            return
        start, end = line_at(block, pos)
        self.hits[code] = CodeHit(info, first_line + block.count(b"\n", 0, start),
                                  shorten(decode_line(block[start:end]), code))

    def codes(self) -> list[CodeHit]:
        """The codes found, in order of first appearance."""
        return sorted(self.hits.values(), key=lambda h: h.line)
