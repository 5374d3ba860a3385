# 昇腾 NPU 编程实战 — set-up, book, tests. `make help` lists the targets.
SHELL := /bin/bash
# Python 3.11 only (README, pyproject.toml): the course is built and tested on it; MindSpore 2.10 wheels pin it down
PYTHON ?= $(shell command -v python3.11)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.npulab-installed
# whether CANN's set_env.sh is loaded in this shell; a change (e.g. sourcing it later) reinstalls, adding torch-npu
CANN_STATE := $(VENV)/.cann-state
CANN_NOW := $(if $(ASCEND_HOME_PATH)$(ASCEND_TOOLKIT_HOME),cann:$(ASCEND_HOME_PATH)$(ASCEND_TOOLKIT_HOME),no-cann)
export GLOG_v := 4
export KINETO_LOG_LEVEL := 6
# bytecode is compiled on first import and cached in one folder inside the venv, so nothing is written next to the
# course's sources and only what is imported gets compiled; `make bytecode` compiles the whole venv ahead of time, for a
# venv that other accounts use without write access (a workshop server, workshop/README.md)
export PYTHONPYCACHEPREFIX := $(CURDIR)/$(VENV)/pycache
# a PYTHONDONTWRITEBYTECODE set for the whole machine (CI images and this course's build machine set it) would keep that
# cache empty, and every process would compile all it imports from source again (CI measured nbval 775 s instead of 318 s)
unexport PYTHONDONTWRITEBYTECODE
# the ONE repository setting of the site (docs/site.md): `make book COURSE_REPOSITORY=https://github.com/<owner>/<repo>`
# gives every page launch (Binder; COURSE_JUPYTERHUB adds a JupyterHub), repository and issue buttons
export COURSE_REPOSITORY COURSE_JUPYTERHUB COURSE_SITE_URL

.PHONY: help venv bytecode unit-tests book book-en book-with-repository test-rendered test-book-zh test-book-en site-runtime test test-download test-verdicts test-chips lab serve record-npu lint lab-export clean FORCE workshop-deps workshop-check book-public pdf lighthouse

help:
	@echo "make book        建立 .venv、安装依赖、执行全部笔记本并生成网站 _build/html（含参考答案）"
	@echo "make book COURSE_REPOSITORY=https://github.com/<owner>/<repo>  同上，页面带启动（Binder）、源代码仓库与提交问题按钮"
	@echo "make book-public 同上，但网站不含参考答案（给学员的公开站点，生成在 _build/public/_build/html）"
	@echo "make book-en     只生成英文版（en/；make book 已包含）：检查两版一致，生成后放进网站的 _build/html/en/"
	@echo "make test        同样的准备，然后运行全部测试（失败时返回非零）"
	@echo "make bytecode    预先编译整个 .venv 的 Python 字节码：给其他账号共用、他们不能写入的 venv（工作坊服务器）"
	@echo "make lab         在课程目录启动 JupyterLab（中文界面），打开第一课"
	@echo "make serve       在 http://127.0.0.1:8000 预览已生成的网站"
	@echo "make record-npu  在昇腾主机上录制 NPU 单元的真实输出"
	@echo "make test-chips  把按芯片计算的课分别按芯片表中的每颗芯片执行一遍（NPULAB_CHIP，约 15 分钟）"
	@echo "make test-verdicts 在两个忙碌进程的负载下、再在空闲时执行测量课，检查每句判定与数字一致（几分钟）"
	@echo "make workshop-check  在 127.0.0.1 上真实启动工作坊 JupyterHub 并测试（约 1 分钟内）"
	@echo "make lighthouse  用 Lighthouse（npm）检查首页与课程页的移动端性能与无障碍得分"
	@echo "make test-aarch64 在 linux-aarch64（鲲鹏）上按 README 安装并运行第一课（qemu 用户态模拟 + proot，Debian arm64 根；2 核上实测 19–35 分钟，随构建机而变）"
	@echo "make pdf         用 XeLaTeX 生成全书 PDF（_build/latex/course.pdf），放进网站并检查；EDITION=en 生成英文版的"

# --- set-up ----------------------------------------------------------------------------------
$(CANN_STATE): FORCE
	@mkdir -p $(VENV); [ "$$(cat $@ 2>/dev/null)" = "$(CANN_NOW)" ] || echo "$(CANN_NOW)" > $@

$(STAMP): requirements.txt requirements-npu.txt pyproject.toml scripts/python_packages.sh $(CANN_STATE)
	@test -n "$(PYTHON)" || { echo "需要 Python 3.11（找不到 python3.11）：见 README 的安装说明"; exit 2; }
	./scripts/system_packages.sh
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	PIP="$(BIN)/python -m pip" ./scripts/python_packages.sh
	$(BIN)/python -m pip install -q --no-deps --no-build-isolation -e .
	$(BIN)/python -m pip check
	# the course's own modules compiled into the cache at once (a few seconds): the tests that time a CLI run then
	# never time the first compilation of what it imports
	$(BIN)/python -m compileall -q -j 0 npulab tests conftest.py
	touch $(STAMP)

venv: $(STAMP)

bytecode: venv
	$(BIN)/python -m compileall -q -j 0 $(VENV)/lib npulab

# configurable-http-proxy (npm) for the workshop JupyterHub; the version is pinned in workshop/package-lock.json
CHP := workshop/node_modules/.bin/configurable-http-proxy
$(CHP): workshop/package.json workshop/package-lock.json
	npm ci --prefix workshop --no-audit --no-fund --loglevel=error
	touch $(CHP)

workshop-deps: $(CHP)

# the Pyodide runtime (npm, pinned in assets/browser_tools/package-lock.json, ~12 MB, seconds) that the site's tools
# page (about/tools.md) serves itself; the book build copies it into _build/html/_tools (npulab.site.browser_tools)
PYODIDE := assets/browser_tools/node_modules/pyodide/pyodide.asm.wasm
$(PYODIDE): assets/browser_tools/package.json assets/browser_tools/package-lock.json
	npm ci --prefix assets/browser_tools --no-audit --no-fund --loglevel=error
	touch $(PYODIDE)

site-runtime: $(PYODIDE)

# --- the book ----------------------------------------------------------------------------------
book: venv site-runtime
	$(BIN)/jupyter-book build . -W --keep-going
	$(MAKE) --no-print-directory book-en

# the English edition (issue 37, docs/english_edition.md): the second book, in en/, built after the Chinese one into
# its own folder (with its own execution cache: npulab answers in English there) and placed at <site>/en/, so that one
# site holds both and every page's language switch finds its twin. Parity first: the two editions' code is the same.
EN_BUILD := _build/en
SITE := _build/html
book-en: venv
	$(BIN)/python -m npulab edition check
	$(BIN)/jupyter-book build en --path-output $(EN_BUILD) -W --keep-going
	rm -rf $(SITE)/en && mkdir -p $(SITE) && cp -a $(EN_BUILD)/_build/html $(SITE)/en

# the public site: the same book without the solutions part (the default build, `make book`, is the instructor's).
# Its own folder, emptied first (Sphinx never deletes pages from an output folder, so a build next to `make book`'s
# would keep the solutions); the execution cache of `make book`/`make test` is reused; the checker fails the target
# if any solution page, source or link is in the result.
PUBLIC := _build/public
book-public: venv site-runtime
	rm -rf $(PUBLIC)
	mkdir -p $(PUBLIC)/_build
	$(BIN)/python -m npulab workshop public-toc --output _build/_toc_public.yml
	if [ -d _build/.jupyter_cache ]; then ln -s ../../.jupyter_cache $(PUBLIC)/_build/.jupyter_cache; fi
	$(BIN)/jupyter-book build . --toc _build/_toc_public.yml --path-output $(PUBLIC) -W --keep-going
	$(BIN)/python -m npulab workshop check-public $(PUBLIC)/_build/html

serve:
	@test -f _build/html/index.html || { echo "还没有生成网站：先运行 make book"; exit 2; }
	$(BIN)/python -m http.server 8000 --bind 127.0.0.1 --directory _build/html

# the page `make lab` opens: the course's first lesson (the first section of _toc.yml; tests/test_learner_entry.py)
LAB_START := chapters/01_environment/01_environment_setup.ipynb
lab: venv
	JUPYTERLAB_SETTINGS_DIR=$(CURDIR)/.jupyter/lab/user-settings $(BIN)/jupyter lab --ServerApp.root_dir=$(CURDIR) \
	  --LabApp.default_url=/lab/tree/$(LAB_START) $$( [ "$$(id -u)" = 0 ] && echo --allow-root )

# --- tests -------------------------------------------------------------------------------------
lint: venv
	$(BIN)/ruff check .
	$(BIN)/python -m npulab lint-npu
	$(BIN)/python -m npulab lab-export --check

test: venv
	# the checks beside the unit tests: lint-npu (one core, ≈ 25 s) runs while the test workers import and collect,
	# so no core waits for it; the npm installs come first (the hub and tools-page tests need them)
	$(MAKE) --no-print-directory -j2 --output-sync=target lint unit-tests
	# notebooks on both cores too: each notebook's cells stay together on one worker (loadfile), in order
	# (NPULAB_MEASURE_ALONE=1 would make a measuring cell, one that calls LoadWatch(, run alone: conftest.py; off here,
	#  about 3 min; the published site comes from make book, which executes one notebook at a time)
	# both books: a lesson and its English twin are two notebooks (npulab answers in each one's language), each run
	# once here and staged into its own book's cache (en/ → _build/en/_build/.jupyter_cache), so no build executes again
	$(BIN)/pytest --nbval-lax --nbval-current-env --stage-book-cache -o testpaths= -n 2 --dist loadfile chapters notebooks en
	# the three builds at once, each Sphinx on one core, writing its own folder and only reading the staged cache, and
	# beside them the check of the pages just executed (every displayed table is in the outputs, every 上表/下图 has one,
	# every verdict fits its numbers), which only reads the caches too
	$(MAKE) --no-print-directory -j4 --output-sync=target test-rendered test-book-zh test-book-en book-with-repository
	# the built-site tests on both cores too, one module per worker (their server and browser are module fixtures)
	COURSE_SITE_REPO_DIR=$(REPO_BUILD)/_build/html $(BIN)/pytest tests/site/built --ignore=tests/site/built/test_pdf.py -n 2 --dist loadfile

# unit tests on both cores; the two modules that create Unix accounts share one worker (xdist_group), and so do the
# tests of a module that share a module- or class-scoped fixture, which then runs once (tests/xdist_groups.py)
unit-tests: venv workshop-deps site-runtime
	NPULAB_REQUIRE_HUB=1 $(BIN)/pytest tests --ignore=tests/site/built -n 2 --dist loadgroup

# the two default builds of make test (no repository setting), run beside book-with-repository
test-rendered: venv
	$(BIN)/pytest tests/test_rendered.py -k executed -p no:cacheprovider

test-book-zh: venv site-runtime
	COURSE_REPOSITORY= $(BIN)/jupyter-book build . -W --keep-going

test-book-en: venv
	COURSE_REPOSITORY= $(MAKE) --no-print-directory book-en

# the same book built the other way, with the repository setting (an example address): its own folder, one page of
# each kind (tests/site/built/repository_toc.yml; without -W: its pages link to pages it leaves out), the execution
# cache of the real build reused (nothing executes); tests/site/built checks that its pages have the launch,
# repository and issue buttons and the default build's pages have none
REPO_BUILD := _build/with_repository
EXAMPLE_REPOSITORY := https://github.com/ascend-course/npu-course
book-with-repository: venv
	rm -rf $(REPO_BUILD)
	mkdir -p $(REPO_BUILD)/_build
	if [ -d _build/.jupyter_cache ]; then ln -s ../../.jupyter_cache $(REPO_BUILD)/_build/.jupyter_cache; fi
	COURSE_REPOSITORY=$(EXAMPLE_REPOSITORY) COURSE_JUPYTERHUB=https://hub.example.org COURSE_SITE_URL= \
	  $(BIN)/jupyter-book build . --toc tests/site/built/repository_toc.yml --path-output $(REPO_BUILD) --keep-going

# the lessons that compute for the learner's chip, run once per chip of the table (NPULAB_CHIP): every one must
# finish for every chip, saying where a model does not apply (tests/test_chip_lessons.py lists them). Minutes: not in `make test`.
CHIP_LESSONS = $(shell $(BIN)/python -c "from tests.test_chip_lessons import CHIP_LESSONS; print(' '.join(CHIP_LESSONS))" 2>/dev/null)
CHIPS ?= $(shell $(BIN)/python -c "from npulab.hw.chips import chips; print(' '.join(chips()))" 2>/dev/null)
test-chips: venv
	@for chip in $(CHIPS); do echo "== NPULAB_CHIP=$$chip"; \
	  NPULAB_CHIP=$$chip $(BIN)/pytest --nbval-lax --nbval-current-env -o testpaths= -p no:cacheprovider -q -n 2 --dist loadfile $(CHIP_LESSONS) || exit 1; done

# the measuring lessons (course.measures) executed under two busy processes, then quietly: every verdict they print
# must agree with its numbers (tests/load). Minutes: not in `make test`; the verdicts land in _build/verdicts/.
# a notebook downloaded from the built site runs in a fresh venv that only its first cell prepared (it installs torch
# and the lesson's packages: 1-5 min, so not in make test)
test-download: venv
	@test -f _build/html/index.html || { echo "还没有生成网站：先运行 make book"; exit 2; }
	NPULAB_DOWNLOAD_TEST=1 $(BIN)/pytest tests/site/built/test_route.py -k fresh_venv -p no:cacheprovider

test-verdicts: venv
	NPULAB_VERDICT_LOAD=2 $(BIN)/pytest tests/load -p no:cacheprovider -p no:xdist -q
	NPULAB_VERDICT_LOAD=0 $(BIN)/pytest tests/load -p no:cacheprovider -p no:xdist -q
	$(BIN)/python -m npulab.course.verdict_audit _build/verdicts

# the course's install and first lessons on linux-aarch64 (the Kunpeng hosts of most Ascend servers) under user-mode
# emulation: qemu-user-static + proot in a cached Debian bookworm arm64 root (Debian packages only, no container
# image). Where download.pytorch.org is unreachable it substitutes PyPI's torch 2.10.0 aarch64 CPU wheel, and says so
# (scripts/aarch64/test.sh, docs/aarch64.md). Minutes under emulation: not in `make test`.
.PHONY: test-aarch64
test-aarch64:
	./scripts/aarch64/test.sh

# --- the PDF (not part of `make test`: TeX Live costs minutes to install; docs/site.md) --------------
# `make pdf` builds the Chinese book's, `make pdf EDITION=en` the English book's (into the site's en/ when it is built)
EDITION ?= zh
pdf: venv
	./scripts/system_packages.sh pdf
ifeq ($(EDITION),en)
	$(BIN)/jupyter-book build en --path-output $(EN_BUILD) --builder pdflatex
	@if [ -d $(SITE)/en ]; then cp $(EN_BUILD)/_build/latex/course.pdf $(SITE)/en/course.pdf; \
	  $(BIN)/python -m npulab.site.postprocess $(SITE)/en en; fi
	COURSE_PDF_EDITION=en $(BIN)/pytest tests/site/built/test_pdf.py
else
	$(BIN)/jupyter-book build . --builder pdflatex
	@if [ -d $(SITE) ]; then cp _build/latex/course.pdf $(SITE)/course.pdf; \
	  $(BIN)/python -m npulab.site.postprocess $(SITE); fi
	$(BIN)/pytest tests/site/built/test_pdf.py
endif

# Lighthouse from npm (package.json, ~80 s and ~190 MB), run on the built site with the system Chromium
lighthouse: venv
	@test -f _build/html/index.html || { echo "还没有生成网站：先运行 make book"; exit 2; }
	npm install --no-audit --no-fund --silent
	$(BIN)/pytest tests/site/built/test_lighthouse.py

workshop-check: venv workshop-deps
	NPULAB_REQUIRE_HUB=1 $(BIN)/pytest tests/workshop tests/test_quiz.py

lab-export: venv
	$(BIN)/python -m npulab lab-export

# --- recording on an Ascend host -----------------------------------------------------------
record-npu: venv
	$(BIN)/python -m npulab record chapters notebooks

clean:
	rm -rf _build

FORCE:
