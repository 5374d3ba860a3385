#!/usr/bin/env bash
# Run a command in the arm64 root under user-mode emulation: proot runs every arm64 program through
# qemu-aarch64-static (no binfmt_misc needed; statx is turned off for it, no_statx.py says why) and binds the staged course at /course and the local torch index at
# /npulab-index. The environment is emptied except for the NAME=value words given before the command and the
# host's network settings: name resolution, its CA bundle (a TLS-inspecting proxy's CA lives there, not in Debian's
# bundle), the *_proxy variables and a PyPI mirror in PIP_INDEX_URL.
# Usage: emulate.sh ROOT STAGE INDEX [NAME=value …] COMMAND [ARG …]
set -euo pipefail
ROOT=$1 STAGE=$2 INDEX=$3
shift 3
binds=(-b /dev -b /proc -b /sys -b /etc/resolv.conf -b /etc/hosts -b "$STAGE:/course" -b "$INDEX:/npulab-index")
passed=()
for name in SSL_CERT_FILE PIP_CERT REQUESTS_CA_BUNDLE; do
  file=${!name:-}
  if [ -f "$file" ]; then passed+=("$name=$file"); binds+=(-b "$file"); fi
done
[ -f /etc/ssl/certs/ca-certificates.crt ] && binds+=(-b /etc/ssl/certs/ca-certificates.crt)
for name in http_proxy https_proxy no_proxy HTTP_PROXY HTTPS_PROXY NO_PROXY PIP_INDEX_URL; do
  [ -n "${!name:-}" ] && passed+=("$name=${!name}")
done
host_python=$(command -v python3)
exec env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/root LANG=C.UTF-8 TERM=dumb \
  PYTHONPYCACHEPREFIX=/course/.venv/pycache GLOG_v=4 KINETO_LOG_LEVEL=6 "${passed[@]}" \
  "$host_python" "$(dirname "$0")/no_statx.py" proot -q qemu-aarch64-static -0 -r "$ROOT" -w /course "${binds[@]}" env "$@"
