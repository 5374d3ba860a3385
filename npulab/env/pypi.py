"""PyPI's JSON API and reading single files out of released archives without installing them.

Used by ``freshness`` (newest release of each package) and by ``scripts/extract_cli_flags.py`` (argument
definitions of command-line tools). The index URL comes from ``$NPULAB_PYPI_URL`` (default https://pypi.org), so
tests point it at a stand-in index on 127.0.0.1. A wheel is read with HTTP range requests (only the zip directory
and the members asked for travel); an sdist (.tar.gz) has no index, so it is downloaded once into the cache.
"""

from __future__ import annotations

import io
import json
import os
import re
import tarfile
import urllib.error
import urllib.parse
import urllib.request
import zipfile
from pathlib import Path

from npulab.core.i18n import t

DEFAULT_INDEX = "https://pypi.org"
TIMEOUT_S = 20


class OfflineError(Exception):
    """The index could not be reached (network, DNS, timeout); the message is a Chinese sentence."""


class NotOnIndex(Exception):
    """The index answered, but has no such package or version."""


def index_url() -> str:
    """``$NPULAB_PYPI_URL`` or https://pypi.org, without a trailing slash."""
    return os.environ.get("NPULAB_PYPI_URL", DEFAULT_INDEX).rstrip("/")


def _open(url: str, headers: dict | None = None):
    request = urllib.request.Request(url, headers={"User-Agent": "npulab", **(headers or {})})
    try:
        return urllib.request.urlopen(request, timeout=TIMEOUT_S)
    except urllib.error.HTTPError as err:
        if err.code == 404:
            raise NotOnIndex(url) from None
        raise OfflineError(t("versions.http_error", url=url, code=err.code)) from None
    except (urllib.error.URLError, OSError) as err:
        reason = getattr(err, "reason", err)
        raise OfflineError(t("versions.unreachable", url=url, reason=reason)) from None


def project(name: str) -> dict:
    """The JSON API document of a project (``/pypi/<name>/json``)."""
    with _open(f"{index_url()}/pypi/{name}/json") as response:
        try:
            return json.loads(response.read().decode("utf-8"))
        except ValueError:
            raise OfflineError(t("versions.not_json", index=index_url(), name=name)) from None


_PRE = re.compile(r"(a|b|rc|dev|alpha|beta)\d*", re.IGNORECASE)


def is_final(version: str) -> bool:
    """A final release (``2.12.0``, ``2.12.0.post2``), not a pre-release or dev build."""
    return not _PRE.search(version)


def newest_release(doc: dict) -> str | None:
    """The newest final, non-yanked release of a project document, ordered by version number."""
    versions = [v for v, files in doc.get("releases", {}).items()
                if is_final(v) and files and not all(f.get("yanked") for f in files)]
    if not versions:
        info = doc.get("info", {}).get("version")
        return info if info and is_final(info) else None
    return max(versions, key=version_key)


def newest_prerelease(doc: dict) -> str | None:
    """The newest pre-release (rc, beta …) of a project document, or None."""
    versions = [v for v, files in doc.get("releases", {}).items() if not is_final(v) and files]
    return max(versions, key=version_key) if versions else None


def simple_index_versions(index: str, name: str) -> list[str]:
    """Versions a PEP 503 simple index (e.g. the Ascend pip mirror) offers for ``name``, read from its file names."""
    with _open(f"{index.rstrip('/')}/{name}/") as response:
        page = response.read().decode("utf-8", "replace")
    stem = "[-_.]".join(re.escape(part) for part in re.split(r"[-_.]+", name))
    found = re.findall(rf"(?i)\b{stem}-(\d[\w.!+]*?)(?:-|\.tar\.gz|\.zip)", page)
    return sorted(set(found), key=version_key)


def version_key(version: str) -> tuple:
    """A sort key for dotted versions: ``2.10.0.post4`` > ``2.10.0`` < ``2.11.0``."""
    parts: list[tuple[int, int | str]] = []
    for piece in re.split(r"[.+-]", version):
        match = re.fullmatch(r"(\d+)(.*)", piece)
        if match:
            parts.append((1, int(match.group(1))))
            if match.group(2):
                parts.append((0, match.group(2)))
        elif piece.startswith("post"):
            parts.append((2, int(piece[4:] or 0)))
        else:
            parts.append((0, piece))
    return tuple(parts)


def release_files(name: str, version: str) -> list[dict]:
    """The files (url, filename, packagetype, size) of one release."""
    base = f"{index_url()}/pypi/{name}/json"
    files = project(name).get("releases", {}).get(version)
    if not files:
        raise NotOnIndex(f"{name}=={version}")
    return [{**f, "url": urllib.parse.urljoin(base, f["url"])} for f in files]  # a mirror may answer relative URLs


class _RangeReader(io.RawIOBase):
    """A seekable read-only file over HTTP range requests (enough for zipfile)."""

    def __init__(self, url: str, size: int):
        self.url, self.size, self.pos = url, size, 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self.pos

    def seek(self, offset: int, whence: int = 0) -> int:
        self.pos = offset if whence == 0 else self.pos + offset if whence == 1 else self.size + offset
        return self.pos

    def read(self, n: int = -1) -> bytes:
        end = self.size if n is None or n < 0 else min(self.size, self.pos + n)
        if end <= self.pos:
            return b""
        with _open(self.url, {"Range": f"bytes={self.pos}-{end - 1}"}) as response:
            data = response.read()
            if getattr(response, "status", 206) == 200:  # a server without range support sends the whole file
                data = data[self.pos:end]
        self.pos += len(data)
        return data

    def readinto(self, buffer) -> int:
        data = self.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)


def read_members(name: str, version: str, wanted: re.Pattern, cache: Path, prefer: str = "wheel") -> dict[str, str]:
    """Text of the archive members whose path matches ``wanted``, from the release's wheel or sdist.

    A wheel (any platform: the Python sources are the same) is read by range requests; an sdist is downloaded
    into ``cache`` once. Paths are returned relative to the package root (an sdist's top folder is dropped).
    """
    files = release_files(name, version)
    wheels = [f for f in files if f["filename"].endswith(".whl")]
    sdists = [f for f in files if f["filename"].endswith((".tar.gz", ".zip"))]
    order = (wheels + sdists) if prefer == "wheel" else (sdists + wheels)
    if not order:
        raise NotOnIndex(t("versions.no_files", name=name, version=version))
    chosen = order[0]
    if chosen["filename"].endswith(".whl"):
        with zipfile.ZipFile(io.BufferedReader(_RangeReader(chosen["url"], chosen["size"]), 1 << 16)) as zf:
            return {n: zf.read(n).decode("utf-8", "replace") for n in zf.namelist() if wanted.search(n)}
    cache.mkdir(parents=True, exist_ok=True)
    local = cache / chosen["filename"]
    if not local.is_file():
        with _open(chosen["url"]) as response:
            local.write_bytes(response.read())
    out = {}
    with tarfile.open(local) as tf:
        for member in tf.getmembers():
            inner = member.name.split("/", 1)[-1]
            if member.isfile() and wanted.search(inner):
                out[inner] = tf.extractfile(member).read().decode("utf-8", "replace")
    return out
