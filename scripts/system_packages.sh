#!/usr/bin/env bash
# System packages the course needs: a CJK font (Chinese in plots and pages), Chromium (site checks), a C++
# compiler (torch.compile's inductor backend compiles C++ on a CPU; chapter 03, lesson 3) and Node.js with npm
# (configurable-http-proxy for the workshop JupyterHub and its live test).
# Installs them when run as root on Debian/Ubuntu; otherwise prints the exact command to run.
set -euo pipefail
need=()
fc-list 2>/dev/null | grep -i "Noto Sans CJK" >/dev/null || need+=(fonts-noto-cjk)  # not grep -q: with pipefail, SIGPIPE to fc-list would count as "missing"
command -v g++ >/dev/null 2>&1 || need+=(g++)
if [ "${NPULAB_SKIP_BROWSER:-0}" != 1 ]; then
  command -v chromium >/dev/null 2>&1 || need+=(chromium)
fi
if [ "${NPULAB_SKIP_NODE:-0}" != 1 ]; then
  command -v npm >/dev/null 2>&1 || need+=(nodejs npm)
fi
if [ "${1:-}" = pdf ]; then  # `make pdf`: XeLaTeX with ctex, latexmk, pdftotext (docs/site.md: ~6 min to install)
  command -v xelatex >/dev/null 2>&1 || need+=(texlive-xetex texlive-lang-chinese texlive-latex-extra
                                             texlive-fonts-recommended texlive-plain-generic fonts-freefont-otf)
  command -v latexmk >/dev/null 2>&1 || need+=(latexmk)
  command -v pdftotext >/dev/null 2>&1 || need+=(poppler-utils)
fi
[ ${#need[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "安装系统软件包：${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
  # matplotlib caches the font list: drop it so the new CJK font is found
  rm -rf "${MPLCONFIGDIR:-$HOME/.cache/matplotlib}"/fontlist-*.json 2>/dev/null || true
else
  echo "缺少系统软件包：${need[*]}"
  echo "请运行：sudo apt-get install -y --no-install-recommends ${need[*]}"
  echo "（没有中文字体时图中的中文显示为方框；没有 chromium 时网站检查无法运行；没有 g++ 时 torch.compile 在 CPU 上只能用 aot_eager；没有 npm 时工作坊的 JupyterHub 无法启动。）"
fi
