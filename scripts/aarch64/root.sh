#!/usr/bin/env bash
# Make (once; cached) the Debian bookworm arm64 root that `make test-aarch64` runs the course in, from Debian's
# packages only: mmdebstrap's "extract" variant unpacks the packages without running any arm64 program, so neither
# binfmt_misc nor root inside the emulation is needed. Prints the root's path.
set -euo pipefail
CACHE=${NPULAB_AARCH64_CACHE:-$HOME/.cache/npulab/aarch64}
ROOT=$CACHE/root
MIRROR=${NPULAB_DEBIAN_MIRROR:-http://deb.debian.org/debian}
# Debian bookworm's Python 3.11 (3.11.2) with venv (ensurepip's pip and setuptools wheels), and the shell tools that
# scripts/python_packages.sh uses (bash, grep, cut, dirname); libstdc++6 for torch's and pyzmq's C++ libraries
PACKAGES=bash,dash,coreutils,grep,sed,findutils,gawk,diffutils,tar,gzip,procps,libc-bin,ca-certificates,base-passwd,libstdc++6,python3.11,python3.11-venv
if [ "$(cat "$ROOT/.npulab-packages" 2>/dev/null)" = "$PACKAGES" ]; then echo "$ROOT"; exit 0; fi
rm -rf "$ROOT" "$ROOT.part"
mkdir -p "$CACHE"
mmdebstrap --quiet --variant=extract --architectures=arm64 --include="$PACKAGES" bookworm "$ROOT.part" "$MIRROR" >&2
# what the packages' maintainer scripts would have written (extract runs none): the accounts and the CA bundle
cp "$ROOT.part/usr/share/base-passwd/passwd.master" "$ROOT.part/etc/passwd"
cp "$ROOT.part/usr/share/base-passwd/group.master" "$ROOT.part/etc/group"
mkdir -p "$ROOT.part/etc/ssl/certs"
cat "$ROOT.part"/usr/share/ca-certificates/mozilla/*.crt > "$ROOT.part/etc/ssl/certs/ca-certificates.crt"
mkdir -p "$ROOT.part/course" "$ROOT.part/npulab-index"  # bind-mount points (scripts/aarch64/emulate.sh)
echo "$PACKAGES" > "$ROOT.part/.npulab-packages"
mv "$ROOT.part" "$ROOT"
echo "$ROOT"
