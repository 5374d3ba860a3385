"""Lighthouse (mobile, simulated throttling) on the landing page and a lesson page: performance >= 90, accessibility 100.

Runs where Lighthouse is installed (`make lighthouse` installs it from npm into node_modules and runs this file);
the system Chromium is used, nothing is downloaded. The site is served compressed, as GitHub Pages serves it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest
from sitekit import CHROMIUM

from npulab.core.paths import REPO_ROOT

LIGHTHOUSE = os.environ.get("LIGHTHOUSE") or (
    str(REPO_ROOT / "node_modules" / ".bin" / "lighthouse")
    if (REPO_ROOT / "node_modules" / ".bin" / "lighthouse").exists() else shutil.which("lighthouse"))
PAGES = ("intro.html", "chapters/01_environment/02_hello_npu.html")
MIN_PERFORMANCE = 0.90
MIN_ACCESSIBILITY = 1.0

pytestmark = pytest.mark.skipif(LIGHTHOUSE is None, reason="Lighthouse is not installed (make lighthouse)")


def lighthouse(url: str, out) -> dict:
    subprocess.run(
        [LIGHTHOUSE, url, "--quiet", "--only-categories=performance,accessibility", "--output=json",
         f"--output-path={out}", "--chrome-flags=--headless=new --no-sandbox --disable-gpu"],
        check=True, timeout=300, env={**os.environ, "CHROME_PATH": CHROMIUM or ""}, capture_output=True)
    return json.loads(out.read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", PAGES)
def test_lighthouse_mobile_scores(server, name, tmp_path):
    report = lighthouse(f"{server}/{name}", tmp_path / "report.json")
    scores = {k: report["categories"][k]["score"] for k in ("performance", "accessibility")}
    metrics = {k: report["audits"][k]["displayValue"] for k in
               ("first-contentful-paint", "largest-contentful-paint", "total-blocking-time", "cumulative-layout-shift")}
    assert scores["accessibility"] >= MIN_ACCESSIBILITY, (name, scores, metrics)
    assert scores["performance"] >= MIN_PERFORMANCE, (name, scores, metrics)
