"""Fixtures of the site tests: the built pages, a local HTTP server over them, headless Chromium."""

from __future__ import annotations

import functools
import gzip
import http.server
import threading
from pathlib import Path

import pytest
from sitekit import BUILD, CHROMIUM, content_pages

# Seconds each module took in make test (pytest --durations=0, both workers, the CI machine, 2026-12-07). make test
# hands out whole modules (loadfile) in collection order; started longest first, the two workers end near the same
# time (in alphabetical order the site tests took 150 s, in this order 136 s). A module not listed goes last; only
# the order depends on these numbers.
MODULE_SECONDS = {"test_route.py": 46, "test_phone_layout.py": 30, "test_browser_tools.py": 40, "test_site.py": 38,
                  "test_reader.py": 36, "test_editions.py": 22, "test_first_contact.py": 16, "test_site_workshop.py": 3}


def pytest_collection_modifyitems(items):
    here = Path(__file__).parent
    slots = [i for i, item in enumerate(items) if item.path.parent == here]  # a wider run keeps its other items
    first = {}
    for i in slots:
        first.setdefault(items[i].path.name, i)
    ordered = sorted((items[i] for i in slots), key=lambda item: (-MODULE_SECONDS.get(item.path.name, 0),
                                                                  first[item.path.name]))
    for i, item in zip(slots, ordered, strict=True):
        items[i] = item


@pytest.fixture(scope="module")
def pages():
    return content_pages()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    """Serves the site the way a static host (GitHub Pages) does: text compressed with gzip when asked for, and every
    file with ``Cache-Control: max-age=600`` and its ``Last-Modified`` date, so that a browser that goes from page to
    page fetches the theme's scripts and styles once, as a reader's does (a fresh context starts with a cold cache)."""

    COMPRESS = {".html", ".css", ".js", ".json", ".svg", ".txt", ".xml"}
    MAX_AGE = 600  # GitHub Pages' value

    def log_message(self, *args):
        pass

    def end_headers(self):
        if self.command == "GET":
            self.send_header("Cache-Control", f"max-age={self.MAX_AGE}")
        super().end_headers()

    def do_GET(self):
        path = Path(self.translate_path(self.path))
        if path.is_file() and path.suffix in self.COMPRESS and "gzip" in self.headers.get("Accept-Encoding", ""):
            modified = path.stat().st_mtime
            body = _gzipped(path, modified)
            self.send_response(200)
            self.send_header("Content-Type", self.guess_type(str(path)))
            self.send_header("Content-Encoding", "gzip")
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Last-Modified", self.date_time_string(int(modified)))
            self.end_headers()
            self.wfile.write(body)
        else:
            super().do_GET()


@functools.cache
def _gzipped(path: Path, modified: float) -> bytes:
    """A text file compressed once per version of it (the theme's scripts are asked for by every page)."""
    return gzip.compress(path.read_bytes(), compresslevel=6)


def serve(directory: Path = BUILD, port: int = 0) -> http.server.ThreadingHTTPServer:
    """Start a local server over ``directory`` in a thread (``python tests/site/built/conftest.py`` runs one)."""
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", port), functools.partial(_QuietHandler, directory=str(directory)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd


@pytest.fixture(scope="module")
def server():
    httpd = serve()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


@pytest.fixture(scope="module")
def browser():
    if CHROMIUM is None:
        pytest.fail("没有找到 chromium：sudo apt-get install -y chromium")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=[
            "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
            "--disable-sync", "--no-first-run"])
        yield b
        b.close()


