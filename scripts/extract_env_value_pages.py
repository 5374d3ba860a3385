#!/usr/bin/env python3
"""Regenerate npulab/data/env_values_pages.yaml: the values two documentation sets state for their environment
variables, read from every page (or every table row), not chosen variable by variable.

- **Ascend Extension for PyTorch** (torch_npu): every page of ``docs/zh/api/environment_variable/`` of
  https://github.com/Ascend/pytorch (one page a variable). Its "功能描述" section gives the values: bullets that each
  say what one value does (``- 配置为“0”时：…``, ``- 配置为“1”或未配置时：…``, ``- 0：…``, ``- `0`（默认值）：…``) or
  sentences ``设置为0表示…；设置为1表示…``, two values at least; or a range (``取值范围为[0, 2147483647]``,
  ``配置范围为[1,2147483]``). A section that admits other values (``其他值`` without an error, ``不为1``, ``大于等于``,
  ``配置时``, a path, a list) gives nothing. Its "使用约束" section gives a pair relation where it says the variable
  takes effect only while another has given values (``当[TASK_QUEUE_ENABLE](…)配置为“1”/“2”时，此环境变量才能生效``,
  ``仅在[TASK_QUEUE_ENABLE](…)为1或2时生效``): ``requires``, with the page's default (a setting equal to the default
  asks for nothing); one that requires a setting of another variable written out (``要求配置满足： export
  PYTORCH_NPU_ALLOC_CONF=expandable_segments:True``) gives ``requires: {name, items}`` for ``key:value`` items (each
  must be among the other's comma-separated items) or ``{name, enum}``. A page named ``（beta）NAME.md`` is NAME's.
- **MindSpore Transformers**: every row of every table of ``docs/mindformers/docs/source_en/env_variables.md`` of
  https://github.com/mindspore-ai/docs (the source of https://www.mindspore.cn/mindformers/docs/en/master/env_variables.html).
  A "Descriptions" cell whose ``<br>``-separated parts each start with a quoted value and a colon (``\\`1\\`: turns
  on …;<br>\\`0\\`: …``) gives the set; a cell stating an integer range (``value range 1~32``, ``[120,7200]``,
  ``(0, 17340]``) with no other value gives the range.

Hand-written entries of npulab/data/env_vars.yaml ``values`` win over these. Usage:
``python scripts/extract_env_value_pages.py TORCH_NPU_GIT_DIR COMMIT DOCS_GIT_DIR COMMIT`` (bare git directories:
the pages are read with ``git show``).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote

import yaml

OUT = Path(__file__).resolve().parent.parent / "npulab" / "data" / "env_values_pages.yaml"
TORCH_NPU_DIR = "docs/zh/api/environment_variable/"
MINDFORMERS_PAGE = "docs/mindformers/docs/source_en/env_variables.md"
_Q = r"[“\"`']?"
_QE = r"[”\"`']?"
_TOKEN = r"([A-Za-z0-9_.]+)"
# one bullet, one value (or two joined by 或 / and "或未配置"): "- 配置为“1”或未配置时：", "- 0：", "- `0`（默认值）："
_BULLET = re.compile(rf"^-\s+(?:未配置或|未设置或者?)?(?:(?:配置|设置)(?:值)?为{_Q}{_TOKEN}{_QE}(?:或{_Q}{_TOKEN}{_QE})?"
                     rf"(?:或未配置)?(?:时|，|：|,)|(?:`([A-Za-z0-9_.]+)`|([0-9]+))(?:（默认值）)?[：:])")
_SENTENCE = re.compile(rf"(?:配置|设置)为{_Q}{_TOKEN}{_QE}表示")
_OPEN = re.compile(r"其他值|不为|大于等于|小于等于|(?<!未)配置时|路径|列表|逗号|格式")
_RANGE = re.compile(r"(?:取值|配置)范围为\\?\[\s*(\d+)\s*,\s*(\d+)\s*\\?\]")
_DEFAULT = re.compile(rf"默认(?:配置|值)?为{_Q}{_TOKEN}{_QE}|默认值[：:]\s*{_Q}{_TOKEN}{_QE}")
# a setting of another variable the page requires, written as a shell block: "要求配置满足：```bash export X=v```"
_REQUIRES_SETTING = re.compile(r"要求配置满足[：:]\s*```\w*\s*export\s+([A-Z][A-Z0-9_]+)=([^\s`]+)\s*```")
_REQUIRES = re.compile(r"(?:当|仅在)\[([A-Z0-9_\\]+)\]\([^)]*\)(?:配置|设置)?为([^时]{1,30})时[^。]{0,12}生效")


def git_show(git_dir: str, commit: str, path: str) -> str:
    return subprocess.run(["git", "--git-dir", git_dir, "show", f"{commit}:{path}"], check=True,
                          capture_output=True, text=True).stdout


def git_pages(git_dir: str, commit: str, folder: str) -> list[str]:
    names = subprocess.run(["git", "--git-dir", git_dir, "ls-tree", "-r", "-z", "--name-only", commit, folder],
                           check=True, capture_output=True, text=True).stdout.split("\0")
    return [n for n in names if page_name(n)]


def page_name(path: str) -> str | None:
    """The variable a page is named after: ``TORCH_HCCL_ZERO_COPY.md``, ``（beta）TORCH_HCCL_ZERO_COPY.md``."""
    found = re.fullmatch(r"(?:（beta）|\(beta\))?([A-Z][A-Z0-9_]+)\.md", path.rsplit("/", 1)[-1])
    return found.group(1) if found else None


def section(text: str, title: str) -> str:
    found = re.search(rf"^## {title}\s*$(.*?)(?=^## |\Z)", text, re.MULTILINE | re.DOTALL)
    return found.group(1) if found else ""


def torch_npu_grammar(text: str) -> dict | None:
    """The grammar a torch_npu page's "功能描述" states, with ``requires`` from its "使用约束"."""
    describe = section(text, "功能描述").replace("\\_", "_")
    spec: dict = {}
    bullets = [line.strip() for line in describe.splitlines() if re.match(r"^-\s", line)]
    values: list[str] = []
    if bullets and not _OPEN.search(describe.split("默认")[0] if "默认" in describe else describe):
        matches = [_BULLET.match(b) for b in bullets]
        if all(matches):
            values = [v for m in matches for v in m.groups() if v]
    if not bullets and not _OPEN.search(describe):
        values = _SENTENCE.findall(describe)
    if len(set(values)) >= 2:
        spec["enum"] = list(dict.fromkeys(values))
    elif (ranged := _RANGE.search(describe)) and not bullets:
        spec["int"] = [int(ranged.group(1)), int(ranged.group(2))]
    if not spec:
        return None
    default = _DEFAULT.search(describe)
    if default:
        spec["default"] = next(v for v in default.groups() if v)
    constraint = section(text, "使用约束").replace("\\_", "_")
    needed = _REQUIRES.search(constraint)
    setting = _REQUIRES_SETTING.search(constraint)
    if setting and not needed:  # "要求配置满足： export PYTORCH_NPU_ALLOC_CONF=expandable_segments:True"
        name, value = setting.groups()
        spec["requires"] = {"name": name, "items": value.split(",")} if ":" in value else {"name": name, "enum": [value]}
    if needed:
        wanted = re.findall(r"[0-9A-Za-z_]+", needed.group(2).replace("或", " "))
        if wanted:
            spec["requires"] = {"name": needed.group(1).replace("\\", ""), "enum": wanted}
    return spec


def mindformers_rows(text: str):
    """(name, descriptions cell) of each row of each table: ``| **NAME** | default | interpretation | descriptions |``."""
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        name = re.fullmatch(r"\*\*([A-Z][A-Z0-9_]+)\*\*", cells[0]) if cells else None
        if name and len(cells) >= 4:
            yield name.group(1), cells[3]


def mindformers_grammar(cell: str) -> dict | None:
    parts = [p.strip(" ;；") for p in re.split(r"<br\s*/?>", cell) if p.strip(" ;；")]
    leads = [re.match(r"^`([A-Za-z0-9_.]+)`\s*:", p) for p in parts]
    # a lower-case name with an underscore leads a key's description (`thread_num`: …), not a value
    if len(parts) >= 2 and all(leads) and not any(re.fullmatch(r"[a-z]+_[a-z_]+", m.group(1)) for m in leads):
        return {"enum": list(dict.fromkeys(m.group(1) for m in leads))}
    if re.search(r"path|other value|e\.g\.|for example", cell, re.IGNORECASE):
        return None
    ranged = re.search(r"range(?: is)?:?\s*(?:\[|\()\s*(\d+)\s*,\s*(\d+)\s*\]|range\s+(\d+)\s*~\s*(\d+)|"
                       r"range\s*\[(\d+)\s*,\s*(\d+)\]", cell)
    if ranged:
        low, high = (int(v) for v in ranged.groups() if v is not None)
        opened = ranged.group(0).find("(") >= 0
        return {"int": [low + 1 if opened else low, high]}
    return None


def main(torch_npu_git: str, torch_npu_commit: str, docs_git: str, docs_commit: str) -> None:
    out: dict[str, dict] = {}
    for path in git_pages(torch_npu_git, torch_npu_commit, TORCH_NPU_DIR):
        spec = torch_npu_grammar(git_show(torch_npu_git, torch_npu_commit, path))
        if spec:
            name = page_name(path)
            source = f"https://github.com/Ascend/pytorch/blob/{torch_npu_commit}/{quote(str(path))}"  # （beta） pages
            out[name] = {**spec, "source": source, "source_en": source}
    page = git_show(docs_git, docs_commit, MINDFORMERS_PAGE)
    for name, cell in mindformers_rows(page):
        spec = mindformers_grammar(cell)
        if spec and name not in out:
            said = " ".join(re.sub(r"<br\s*/?>", " ", cell).split())
            said = said if len(said) <= 200 else said[:197] + "…"
            source = f"https://github.com/mindspore-ai/docs/blob/{docs_commit}/{MINDFORMERS_PAGE} ({name}: {said})"
            out[name] = {**spec, "source": source, "source_en": source}
    header = ("# Generated by scripts/extract_env_value_pages.py from the Ascend Extension for PyTorch environment-variable\n"
              f"# pages (Ascend/pytorch at {torch_npu_commit}, {TORCH_NPU_DIR}) and MindSpore Transformers'\n"
              f"# environment-variable page (mindspore-ai/docs at {docs_commit}, {MINDFORMERS_PAGE}).\n"
              "# Do not edit by hand: entries of env_vars.yaml's `values` win over these.\n")
    OUT.write_text(header + yaml.safe_dump({"values": out}, allow_unicode=True, sort_keys=True, width=200),
                   encoding="utf-8")
    print(f"{len(out)} variables -> {OUT}")


if __name__ == "__main__":
    main(*sys.argv[1:5])
