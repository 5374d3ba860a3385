"""Version alignment of the Ascend stack: ordering of version strings and the tables in compatibility.yaml.

The data lives in ``npulab/data/compatibility.yaml`` (each table names its source); this module only reads it.
"""

from __future__ import annotations

import copy
import functools
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from npulab.core.i18n import localized, t
from npulab.core.paths import DATA_DIR, parse_yaml
from npulab.env import torch_install

DATA_PATH = DATA_DIR / "compatibility.yaml"

# ---------------------------------------------------------------------------------------------------------------
# Version ordering
# ---------------------------------------------------------------------------------------------------------------

# Rank of a qualifier relative to the final release (5). CANN writes release candidates as a version field
# (8.0.RC3 < 8.0.0); PEP 440 writes them as a suffix (2.12.0rc1 < 2.12.0); both reduce to the same ranks.
_FINAL = 5
_QUALIFIERS = {
    "dev": 0,
    "t": 1,  # CANN internal test builds such as 8.0.T63
    "a": 2, "alpha": 2,
    "b": 3, "beta": 3,
    "c": 4, "rc": 4, "pre": 4, "preview": 4,
    "post": 6, "rev": 6, "r": 6,
}
_SHAPE = re.compile(r"[0-9a-z]+(?:[._\-][0-9a-z]+)*")
_LOCAL = re.compile(r"[0-9a-z]+(?:[._\-][0-9a-z]+)*")


def _strip_zeros(numbers: tuple[int, ...]) -> tuple[int, ...]:
    while numbers and numbers[-1] == 0:
        numbers = numbers[:-1]
    return numbers


@functools.total_ordering
@dataclass(frozen=True, eq=False)
class Version:
    """A parsed version; compares by release numbers and qualifiers, ignoring a local label such as ``+cpu``."""

    text: str
    release: tuple[int, ...]
    qualifiers: tuple[tuple[str, int, tuple[int, ...]], ...]
    local: str | None = None

    @property
    def key(self) -> tuple:
        """The sort key: trailing zeros of the release dropped, then each qualifier's rank, number and sub-numbers."""
        tail = tuple((_QUALIFIERS[name], num, _strip_zeros(sub)) for name, num, sub in self.qualifiers)
        return (_strip_zeros(self.release), tail + ((_FINAL, 0, ()),))

    @property
    def is_prerelease(self) -> bool:
        """True for dev/test/alpha/beta/rc versions (8.0.RC3, 2.12.0rc1), False for finals and post releases."""
        return any(_QUALIFIERS[name] < _FINAL for name, _, _ in self.qualifiers)

    def release_n(self, n: int = 3) -> tuple[int, ...]:
        """The first ``n`` release numbers, padded with zeros (2.1 → (2, 1, 0))."""
        return (self.release + (0,) * n)[:n]

    @property
    def public(self) -> str:
        """The text without its local label (``2.13.0+cpu`` → ``2.13.0``)."""
        return self.text.split("+", 1)[0].strip()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, str):
            other = parse_version(other)
        return isinstance(other, Version) and self.key == other.key

    def __lt__(self, other: Version | str) -> bool:
        if isinstance(other, str):
            other = parse_version(other)
        return self.key < other.key

    def __hash__(self) -> int:
        return hash(self.key)

    def __str__(self) -> str:
        return self.text


@functools.lru_cache(maxsize=4096)
def parse_version(text: str) -> Version:
    """Parse CANN, HDK, PEP 440 and torch version strings (8.0.RC3, 24.1.rc3, 2.1.0.post13, 2.13.0+cpu)."""
    if not isinstance(text, str) or not text.strip():
        raise ValueError(t("compat.empty_version"))
    raw = text.strip()
    main, plus, local = raw.lower().partition("+")
    if plus and not _LOCAL.fullmatch(local):
        raise ValueError(t("compat.bad_local", raw=repr(raw)))
    if main.startswith("v") and main[1:2].isdigit():
        main = main[1:]
    if not _SHAPE.fullmatch(main) or not main[0].isdigit():
        raise ValueError(t("compat.bad_version", raw=repr(raw)))
    tokens = re.findall(r"\d+|[a-z]+", main)
    release: list[int] = []
    qualifiers: list[tuple[str, int, tuple[int, ...]]] = []
    i = 0
    while i < len(tokens) and tokens[i].isdigit():
        release.append(int(tokens[i]))
        i += 1
    while i < len(tokens):
        name = tokens[i]
        if name not in _QUALIFIERS:
            raise ValueError(t("compat.bad_qualifier", raw=repr(raw), name=repr(name)))
        i += 1
        num = 0
        if i < len(tokens) and tokens[i].isdigit():
            num = int(tokens[i])
            i += 1
        sub: list[int] = []
        while i < len(tokens) and tokens[i].isdigit():
            sub.append(int(tokens[i]))
            i += 1
        qualifiers.append((name, num, tuple(sub)))
    return Version(raw, tuple(release), tuple(qualifiers), local or None)


def try_parse(text: str | None) -> Version | None:
    """``parse_version`` that returns None instead of raising."""
    if text is None:
        return None
    try:
        return parse_version(text)
    except ValueError:
        return None


def cann_base(text: str) -> str:
    """Drop a community-edition suffix: ``8.0.RC3.beta1`` → ``8.0.RC3``, ``8.5.0.alpha001`` → ``8.5.0``."""
    return re.sub(r"[.\-](alpha|beta)\.?\d*$", "", text.strip(), flags=re.IGNORECASE)


# ---------------------------------------------------------------------------------------------------------------
# What kind of version string is this?
# ---------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class VersionKind:
    """The kind of a version string (cann, internal, product_internal, hdk, unknown) and what it means, in Chinese."""

    kind: str
    label: str
    explanation: str


_PRODUCT_INTERNAL = re.compile(r"V\d{3}R\d{3}C\d{2,3}(SPC\d{3})?(B\d{3})?", re.IGNORECASE)
_CANN_RELEASE = re.compile(r"(\d+)\.(\d+)\.(\d+|RC\d+|T\d+)(\.\d+)?([.\-](alpha|beta)\.?\d*)?", re.IGNORECASE)
_INTERNAL_NUMERIC = re.compile(r"\d+\.\d+\.\d+\.\d+\.\d+")
_INTERNAL_BUILD = re.compile(r"\d+\.\d+\.T\d+\.\d+\.B\d+", re.IGNORECASE)


def classify_version_string(text: str) -> VersionKind:
    """Tell a CANN release version from an internal build version and a product internal version."""
    s = (text or "").strip()
    if _PRODUCT_INTERNAL.fullmatch(s):
        return VersionKind("product_internal", t("compat.kind_product"), t("compat.kind_product_text", s=s))
    if _INTERNAL_NUMERIC.fullmatch(s) or _INTERNAL_BUILD.fullmatch(s):
        return VersionKind("internal", t("compat.kind_internal"), t("compat.kind_internal_text", s=s))
    m = _CANN_RELEASE.fullmatch(s)
    if m:
        major = int(m.group(1))
        if major >= 20:
            return VersionKind("hdk", t("compat.kind_hdk"), t("compat.kind_hdk_text", s=s))
        extra = []
        if m.group(6):
            extra.append(t("compat.kind_alpha"))
        if re.fullmatch(r"T\d+", m.group(3), re.IGNORECASE):
            extra.append(t("compat.kind_test"))
        note = t("compat.kind_note", notes=t("compat.row_sep").join(extra)) if extra else ""
        return VersionKind("cann", t("compat.kind_cann"), t("compat.kind_cann_text", s=s, note=note))
    return VersionKind("unknown", t("compat.kind_unknown"), t("compat.kind_unknown_text", s=repr(s)))


# ---------------------------------------------------------------------------------------------------------------
# Tables
# ---------------------------------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=4)
def _load(path: str) -> dict:
    with open(path, encoding="utf-8") as fh:
        data = parse_yaml(fh)
    if not isinstance(data, dict) or not isinstance(data.get("tables"), dict):
        raise ValueError(t("compat.bad_file", path=path))
    return data


def load(path: Path | str | None = None) -> dict:
    """The whole compatibility.yaml as a dict (a fresh copy; the parsed file is cached)."""
    return copy.deepcopy(_load(str(path or DATA_PATH)))


def table_names() -> list[str]:
    """Names of the tables in compatibility.yaml, in file order."""
    return list(_load(str(DATA_PATH))["tables"])


def table_info(name: str) -> dict:
    """A table's title, source, retrieved date, columns and notes (everything but its rows)."""
    tables = _load(str(DATA_PATH))["tables"]
    if name not in tables:
        raise KeyError(t("compat.unknown_table", name=repr(name), names=", ".join(tables)))
    return {k: copy.deepcopy(v) for k, v in tables[name].items() if k != "rows"}


def table(name: str) -> list[dict]:
    """A table's rows as a list of dicts (copies: a notebook may change them freely)."""
    tables = _load(str(DATA_PATH))["tables"]
    if name not in tables:
        raise KeyError(t("compat.unknown_table", name=repr(name), names=", ".join(tables)))
    return copy.deepcopy(tables[name]["rows"])


def source_of(name: str) -> str:
    """One line naming where a table comes from and when it was retrieved."""
    info = table_info(name)
    src = info.get("source", {})
    where = " ".join(str(src[k]) for k in ("repo", "path") if src.get(k)) or str(src.get("url", ""))
    snap = t("compat.snapshot", snapshot=localized(src, "snapshot")) if src.get("snapshot") else ""
    return t("compat.source_of", where=where, snapshot=snap, retrieved=info.get("retrieved"))


def _same(a: str | None, b: str | None) -> bool:
    va, vb = try_parse(a), try_parse(b)
    return va is not None and vb is not None and va == vb


def _same_cann(a: str | None, b: str | None) -> bool:
    return a is not None and b is not None and _same(cann_base(a), cann_base(b))


@functools.total_ordering
@dataclass(frozen=True)
class _Desc:
    """Wraps a sort key so that an ascending sort gives descending versions."""

    key: tuple

    def __lt__(self, other: _Desc) -> bool:
        return self.key > other.key


def _by_cann_desc(rows: list[dict]) -> list[dict]:
    """Active rows before historical ones, newest CANN first within each group."""

    def sort_key(row: dict) -> tuple:
        v = try_parse(cann_base(row.get("cann") or ""))
        return (row.get("status") != "active", v is None, _Desc(v.key if v else ()))

    return sorted(rows, key=sort_key)


@dataclass(frozen=True)
class TorchNpuRow:
    """One row of the official torch_npu table, values exactly as in compatibility.yaml."""

    torch_npu: str
    branch: str
    pytorch: str
    cann: str
    status: str
    note: str | None = None


def torch_npu_rows() -> list[TorchNpuRow]:
    """The official torch_npu ↔ PyTorch ↔ CANN rows (active then historical) as attribute objects."""
    return [TorchNpuRow(r["torch_npu"], r["branch"], r["pytorch"], r["cann"], r["status"], r.get("note"))
            for r in table("torch_npu")]


def torch_npu_for(torch_version: str) -> list[dict]:
    """Official torch_npu rows for a PyTorch version (``2.1.0``, ``2.1.0+cpu``), newest CANN first, active first."""
    v = parse_version(torch_version)
    rows = [r for r in table("torch_npu") if try_parse(r["pytorch"]) and parse_version(r["pytorch"]).release_n() == v.release_n()]
    return _by_cann_desc(rows)


def torch_npu_for_cann(cann_version: str) -> list[dict]:
    """Official torch_npu rows for a CANN version (community suffixes such as ``.beta1`` are ignored)."""
    return [r for r in table("torch_npu") if _same_cann(r["cann"], cann_version)]


def _nearest_below(cann_version: str, torch_version: str | None) -> list[dict]:
    """Rows of the newest CANN in the table that is not newer than ``cann_version`` (same PyTorch if given)."""
    target = try_parse(cann_base(cann_version))
    if target is None:
        return []
    rows = table("torch_npu")
    if torch_version:
        tv = parse_version(torch_version)
        rows = [r for r in rows if parse_version(r["pytorch"]).release_n() == tv.release_n()]
    below = [r for r in rows if parse_version(r["cann"]) <= target]
    if not below:
        return []
    best = max(parse_version(r["cann"]) for r in below)
    return [r for r in below if parse_version(r["cann"]) == best]


def python_for_torch(torch_version: str) -> list[str] | None:
    """Python versions the TorchNPU table lists for a PyTorch version, or None when the table has no row."""
    v = parse_version(torch_version)
    for row in table("pytorch_python"):
        if parse_version(row["pytorch"]).release_n() == v.release_n():
            return list(row["python"])
    return None


def cann_for_mindspore(ms_version: str) -> list[dict]:
    """CANN versions paired with a MindSpore version across the MindSpore tables (exact match, else same x.y series).

    Each result names its table, its source, ``match`` ("exact" or "series") and whether it is ``uncertain``.
    An empty list means no pairing was found (MindSpore 2.8.x has none in the sources). For 2.10.0 the pairing comes
    from the wheel's own check (``mindspore_cann_check``, see ``npulab.env.mindspore_cann``) and the MindSpore
    Transformers 2.0.0 image (``mindformers_releases``).
    """
    v = parse_version(ms_version)
    found: list[dict] = []
    for name in ("mindspore_cann_check", "mindformers_releases", "mindspore_install", "mindspore_mindformers",
                 "mindspore_third_party"):
        for row in table(name):
            for listed in row["mindspore"]:
                lv = parse_version(listed)
                if lv == v:
                    match = "exact"
                elif lv.release_n(2) == v.release_n(2):
                    match = "series"
                else:
                    continue
                found.append({
                    "mindspore": listed,
                    "cann": row.get("cann", row.get("cann_community")),
                    "cann_commercial": row.get("cann_commercial"),
                    "hdk": row.get("hdk"),
                    "python": row.get("python"),
                    "table": name,
                    "source": source_of(name),
                    "match": match,
                    "uncertain": bool(row.get("uncertain")) or name == "mindspore_third_party",
                    "note": row.get("note"),
                })
    exact = [r for r in found if r["match"] == "exact"]
    return exact or found


def hdk_for_cann(cann_version: str) -> list[str]:
    """Ascend HDK (driver/firmware) versions released together with a CANN version (hdk_pairs table)."""
    for row in table("hdk_pairs"):
        if _same(row["cann"], cann_version):
            return list(row["hdk"])
    for row in table("hdk_pairs"):  # a community build pairs like its base release
        if _same_cann(row["cann"], cann_version):
            return list(row["hdk"])
    return []


def _series_match(pattern: str, version: str) -> bool:
    """``9.0.X`` matches 9.0.anything; ``26.0.RC1`` matches 26.0.RC1 and its patch builds (26.0.rc1.2)."""
    v = try_parse(version)
    if v is None:
        return False
    if pattern.upper().endswith(".X"):
        p = try_parse(pattern[:-2])
        return p is not None and v.release[: len(p.release)] == p.release
    p = try_parse(pattern)
    if p is None:
        return False
    if p.qualifiers:
        return (v.release == p.release and v.qualifiers[: len(p.qualifiers)] == p.qualifiers) or v == p
    return v.release[: len(p.release)] == p.release and not v.qualifiers


def hdk_compatible(cann_version: str, driver_version: str) -> bool | None:
    """Y/N from the CANN ↔ HDK matrix, or None when the matrix has no row or column for these versions."""
    info = table_info("hdk_matrix")
    for row in table("hdk_matrix"):
        if not _series_match(row["cann"], cann_base(cann_version)):
            continue
        for column in info["columns"][1:]:
            if any(_series_match(alt, driver_version) for alt in column.split("/")):
                value = row.get(column)
                return None if value is None else str(value).upper() == "Y"
        return None
    return None


# ---------------------------------------------------------------------------------------------------------------
# Checking a torch / torch_npu / CANN / Python combination
# ---------------------------------------------------------------------------------------------------------------

_SEVERITY = {"ok": 0, "warn": 1, "fail": 2}


@dataclass
class Alignment:
    """Outcome of ``check_alignment``: status ok/warn/fail, a Chinese message and fix, and the table rows involved."""

    status: str
    message: str
    fix: str
    rows: list[dict] = field(default_factory=list)


def _row_text(row: dict) -> str:
    cann = row.get("cann") or "?"
    return f"torch_npu {row['torch_npu']} + PyTorch {row['pytorch']} + CANN {cann}"


def _rows_text(rows: list[dict], limit: int = 4) -> str:
    shown = t("compat.row_sep").join(_row_text(r) for r in rows[:limit])
    return shown + (t("compat.more") if len(rows) > limit else "")


def same_line_row(nv: Version) -> dict | None:
    """The newest official row with the same X.Y.Z that ``nv`` (a final build) is not older than: torch_npu's
    ``.postN`` builds continue a release line (branch v2.12.0-26.1.0 ships version.txt 2.12.0.post2)."""
    if nv.is_prerelease:
        return None
    candidates = []
    for row in table("torch_npu"):
        rv = try_parse(row["torch_npu"])
        if rv and not rv.is_prerelease and rv.release_n() == nv.release_n() and rv <= nv and row.get("status") == "active":
            candidates.append((rv, row))
    return max(candidates, key=lambda c: c[0])[1] if candidates else None


def check_alignment(
    torch: str | None = None,
    torch_npu: str | None = None,
    cann: str | None = None,
    python: str | None = None,
) -> Alignment:
    """Check a torch / torch_npu / CANN / Python combination against the official tables in compatibility.yaml."""
    findings: list[tuple[str, str, str]] = []  # (status, message, fix)
    rows: list[dict] = []
    parsed: dict[str, Version | None] = {}
    for label, text in (("PyTorch", torch), ("torch_npu", torch_npu), ("CANN", cann), ("Python", python)):
        if text is None:
            parsed[label] = None
            continue
        v = try_parse(cann_base(text) if label == "CANN" else text)
        if v is None:
            findings.append(("fail", t("compat.unreadable", label=label, text=repr(text)), t("compat.unreadable_fix")))
        parsed[label] = v
    tv, nv, cv, pv = parsed["PyTorch"], parsed["torch_npu"], parsed["CANN"], parsed["Python"]

    # torch_npu X.Y.Z is built for torch X.Y.Z (each torch-npu release pins torch==X.Y.Z.*)
    if tv and nv and tv.release_n() != nv.release_n():
        want = ".".join(map(str, nv.release_n()))
        findings.append((
            "fail",
            t("compat.torch_mismatch", torch_npu=torch_npu, want=want, torch=torch),
            t("compat.torch_mismatch_fix", command=torch_install.torch_command(want), torch=tv.public,
              rows=t("compat.rows", rows=_rows_text(torch_npu_for(torch))) if torch_npu_for(torch) else ""),
        ))

    if nv:
        rows = [r for r in table("torch_npu") if _same(r["torch_npu"], nv.public)]
        if not rows and (line := same_line_row(nv)):
            rows = [line]  # a later .postN of a listed build: a follow-up build on the same release line
            findings.append(("ok", t("compat.same_line", torch_npu=torch_npu, listed=line["torch_npu"], branch=line["branch"]),
                             ""))
        if not rows:
            unlisted = [r for r in table("torch_npu_unlisted") if _same(r["torch_npu"], nv.public)]
            note = t("compat.note", note=localized(unlisted[0], "note")) if unlisted else ""
            rows = unlisted
            findings.append((
                "warn",
                t("compat.unlisted", torch_npu=torch_npu, note=note),
                t("compat.unlisted_fix", rows=_rows_text(torch_npu_for(torch_npu)) or t("compat.see_table")),
            ))
        elif cv:
            if any(_same_cann(r["cann"], cann) for r in rows):
                findings.append(("ok", t("compat.paired", torch_npu=torch_npu, cann=cann, rows=_rows_text(rows)), ""))
            else:
                same_cann = [r for r in torch_npu_for_cann(cann) if tv is None or parse_version(r["pytorch"]).release_n() == tv.release_n()]
                if same_cann:
                    alt = t("compat.keep_cann", cann=cann, rows=_rows_text(same_cann))
                else:
                    near = _nearest_below(cann, torch)
                    alt = t("compat.no_row_for_cann", cann=cann) + (
                        t("compat.nearest", rows=_rows_text(near)) if near else "")
                findings.append((
                    "warn",
                    t("compat.unofficial", rows=_rows_text(rows), cann=cann),
                    t("compat.unofficial_fix", alternative=alt, cann=rows[0]["cann"]),
                ))
        else:
            findings.append(("ok", t("compat.listed", torch_npu=torch_npu, rows=_rows_text(rows)), ""))
    elif cv:
        rows = torch_npu_for_cann(cann)
        if tv:
            rows = [r for r in rows if parse_version(r["pytorch"]).release_n() == tv.release_n()]
        if rows:
            findings.append(("ok", t("compat.cann_pairs", cann=cann, rows=_rows_text(rows)), ""))
        else:
            by_torch = torch_npu_for(torch) if tv else []
            by_cann = torch_npu_for_cann(cann) or _nearest_below(cann, None)
            hints = []
            if by_torch:
                hints.append(t("compat.torch_rows", torch=tv.public, rows=_rows_text(by_torch)))
            if by_cann:
                hints.append(t("compat.cann_rows", cann=cann, rows=_rows_text(by_cann)))
            findings.append((
                "warn",
                t("compat.no_combination", cann=cann, torch=f" + PyTorch {tv.public}" if tv else ""),
                t("compat.hints_end", hints=t("compat.row_sep").join(hints) or t("compat.choose")),
            ))

    if tv and pv:
        supported = python_for_torch(torch)
        mm = ".".join(map(str, pv.release_n(2)))
        if supported is not None and mm not in supported:
            findings.append((
                "warn",
                t("compat.python", torch=tv.public, supported=", ".join(supported), python=mm),
                t("compat.python_fix", python=supported[-1]),
            ))

    if not findings:
        return Alignment("ok", t("compat.nothing"), "", rows)
    worst = max(findings, key=lambda f: _SEVERITY[f[0]])[0]
    message = " ".join(m for s, m, _ in findings if s == worst or worst == "ok")
    fix = " ".join(f for s, _, f in findings if f and s == worst)
    return Alignment(worst, message, fix, rows)


def current_python() -> str:
    """This interpreter's version as ``3.11.7``."""
    return ".".join(map(str, sys.version_info[:3]))
