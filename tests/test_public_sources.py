"""The repository cites public sources only: never the team's private reference notes, which no reader can open."""

import re
import subprocess

from npulab.core.paths import REPO_ROOT

PRIVATE_NOTES = re.compile(r"ascend_facts|seed_digest|toolchain_notes|calibration\.md|course_anchors|npu_smi_samples\.txt")
SELF = {"tests/test_public_sources.py", "tests/site/built/test_site.py"}  # the two files that name the pattern


def test_no_file_cites_the_private_reference_notes():
    files = subprocess.run(["git", "ls-files"], cwd=REPO_ROOT, capture_output=True, text=True, check=True).stdout.split()
    hits = []
    for name in files:
        if name in SELF:
            continue
        try:
            text = (REPO_ROOT / name).read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        hits += [f"{name}:{text.count(chr(10), 0, m.start()) + 1}" for m in PRIVATE_NOTES.finditer(text)]
    assert not hits, f"cite the public source (URL, document id, repository path at a tag) instead: {hits}"
