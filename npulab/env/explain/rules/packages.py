"""The package index of the Ascend stacks (npulab/data/ascend_packages.yaml): which package ships a Python module, a
shared library or a C/C++ symbol, and how that package is installed (its name and installation in the reader's
language: the ``_en`` twins)."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from npulab.core.i18n import localized
from npulab.core.paths import DATA_DIR, load_yaml
from npulab.env.explain.catalog import tidy

PACKAGES_PATH = DATA_DIR / "ascend_packages.yaml"
_SO_VERSION = re.compile(r"(\.so)(?:\.\d+)+$")


@dataclass(frozen=True)
class Package:
    """One package: id, the name a learner meets, how it is installed, the catalog family of "missing", sources, and
    for a pip-installed package the Python package whose ``lib/`` folder holds its shared libraries."""

    id: str
    name: str
    install: str
    family: str | None
    sources: tuple[str, ...]
    wheel: str | None = None
    for_npu: bool = True  # False: built for another accelerator only (flash-attn), so installing it is not the fix


@functools.cache
def index() -> dict:
    """The index file, parsed once per process."""
    return load_yaml(PACKAGES_PATH)


def package(package_id: str) -> Package:
    raw = index()["packages"][package_id]
    return Package(package_id, localized(raw, "name"), tidy(localized(raw, "install")), raw.get("family"), tuple(raw["sources"]),
                   raw.get("wheel"), raw.get("npu", True))


def for_module(module: str) -> Package | None:
    """The package that provides ``module`` (``a.b.c``: the longest listed prefix), or None."""
    modules = index()["modules"]
    parts = module.split(".")
    for n in range(len(parts), 0, -1):
        found = modules.get(".".join(parts[:n]))
        if found:
            return package(found)
    return None


def for_library(filename: str) -> Package | None:
    """The package that ships the shared library ``filename`` (``libhccl.so``, ``libc10.so.2``, a path), or None."""
    name = _SO_VERSION.sub(r"\1", filename.rsplit("/", 1)[-1])
    found = index()["libraries"].get(name)
    return package(found) if found else None


def for_path(path: str) -> Package | None:
    """The package whose installation folder holds ``path`` (``/usr/local/Ascend/ascend-toolkit/latest/lib64/libx.so``:
    the CANN Toolkit), for a library the index does not list by name; None outside the listed folders."""
    found = next((pid for folder, pid in index()["directories"].items() if folder in path), None)
    return package(found) if found else None


def for_symbol(symbol: str) -> Package | None:
    """The package whose library defines ``symbol`` (a mangled C++ name or a C function), from its namespace or prefix."""
    head = namespace(symbol)
    symbols = index()["symbols"]
    if head in symbols:
        return package(symbols[head])
    for prefix in sorted(symbols, key=len, reverse=True):  # C functions: aclnnAdd → aclnn, HcclAllReduce → Hccl
        if head.startswith(prefix) and (len(head) == len(prefix) or head[len(prefix)].isupper() or head[len(prefix)] == "_"):
            return package(symbols[prefix])
    return None


_MANGLED = re.compile(r"^_ZN?K?(\d+)")


def namespace(symbol: str) -> str:
    """The outermost name of a symbol: ``_ZN3atb15CreateOperation…`` → ``atb``; ``torch_npu::init_npu`` (demangled, as
    a linker prints it) → ``torch_npu``; ``aclnnAdd`` → ``aclnnAdd``."""
    m = _MANGLED.match(symbol)
    if not m:
        return symbol.partition("::")[0]
    length, start = int(m.group(1)), m.end()
    return symbol[start:start + length]


def demangled_head(symbol: str, parts: int = 2) -> str:
    """The first ``parts`` length-prefixed names of an Itanium-mangled symbol joined with ``::`` (``atb::CreateOperation``)."""
    if not symbol.startswith("_Z"):
        return symbol
    pos, names = symbol.find("N") + 1 if symbol.startswith("_ZN") else 2, []
    if symbol[pos:pos + 1] == "K":
        pos += 1
    while len(names) < parts:
        m = re.match(r"\d+", symbol[pos:])
        if not m:
            break
        length = int(m.group())
        pos += m.end()
        names.append(symbol[pos:pos + length])
        pos += length
    return "::".join(names) or symbol
