"""Print the `uv pip install` options that reproduce this pip's configuration, one per line.

uv does not read pip.conf or PIP_* variables. A learner behind a mirror (a pip.conf with index-url) or a machine
with a local wheel house (find-links, constraint) must get the same packages from uv as from pip, so the settings
pip would use are read from `pip config list` (environment variables over files, as pip ranks them) and passed on.
`--index-strategy unsafe-best-match` makes uv choose across all indexes the way pip does.
"""

from __future__ import annotations

import shlex
import subprocess
import sys

# pip option → (uv option, takes several space-separated values)
OPTIONS = {
    "index-url": ("--index-url", False),
    "extra-index-url": ("--extra-index-url", True),
    "find-links": ("--find-links", True),
    "constraint": ("--constraints", True),
    "trusted-host": ("--allow-insecure-host", True),
}


def pip_settings(listing: str) -> dict[str, str]:
    """{option: value} from `pip config list` output; an environment variable (`:env:.`) beats a file."""
    found: dict[str, tuple[bool, str]] = {}
    for line in listing.splitlines():
        key, sep, value = line.partition("=")
        if not sep:
            continue
        scope, _, option = key.rpartition(".")
        from_env = scope == ":env:"
        value = value.strip().strip("'\"")
        if option in OPTIONS and (option not in found or from_env or not found[option][0]):
            found[option] = (from_env, value)
    return {option: value for option, (_, value) in found.items()}


def uv_args(settings: dict[str, str]) -> list[str]:
    """The uv options for the pip settings, in a stable order."""
    args = ["--index-strategy", "unsafe-best-match"]
    for option, (flag, several) in OPTIONS.items():
        if option in settings:
            for value in shlex.split(settings[option]) if several else [settings[option]]:
                args += [flag, value]
    return args


def main() -> int:
    listing = subprocess.run([sys.executable, "-m", "pip", "config", "list"], capture_output=True, text=True).stdout
    print("\n".join(uv_args(pip_settings(listing))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
