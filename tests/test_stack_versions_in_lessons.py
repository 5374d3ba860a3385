"""One source for every version: a version a lesson names next to a stack (vLLM-Ascend, ms-swift, MindSpeed-LLM,
Triton-Ascend, torch_npu, CANN) must be one npulab/data (stacks.yaml, compatibility.yaml) knows. In a sentence that
tells the learner which environment to use (环境、venv、镜像、doctor --stack、要求) only the stacks' own versions count;
elsewhere (history: "ms-swift 4.0 renamed …") a version the stack's cited sources name is accepted too."""

from __future__ import annotations

import re

import nbformat
import pytest

from npulab.core.paths import DATA_DIR, REPO_ROOT, load_yaml
from npulab.env import stacks

NOTEBOOKS = sorted([*REPO_ROOT.glob("chapters/*/*.ipynb"), *REPO_ROOT.glob("notebooks/*.ipynb")])
VERSION = r"(\d+\.\d+(?:\.(?:\d+|RC\d+))*(?:\.?post\d+|rc\d+)?)"
# a name a lesson writes → the stacks whose data answers for it, and the package key inside a stack
NAMES = {"vllm-ascend": (r"vLLM-Ascend|vllm-ascend|vllm_ascend", ("vllm-ascend",), "vllm-ascend"),
         "ms-swift": (r"ms-swift", ("ms-swift",), "ms-swift"),
         "mindspeed-llm": (r"MindSpeed-LLM|MindSpeed LLM", ("mindspeed-llm",), None),
         "triton-ascend": (r"Triton-Ascend|triton-ascend", tuple(stacks.load()), "triton-ascend"),
         "torch-npu": (r"torch_npu|torch-npu", tuple(stacks.load()), "torch-npu"),
         "cann": (r"CANN", tuple(stacks.load()), "cann")}
ENVIRONMENT_WORDS = ("环境", "venv", "镜像", "doctor --stack", "要求")
_TOKEN = re.compile(r"(?<![\w.])v?" + VERSION + r"(?![\w])")


def _tokens(text: str) -> set[str]:
    return set(_TOKEN.findall(str(text)))


def _stack_versions(name: str, package: str | None, with_sources: bool) -> set[str]:
    stack = stacks.get(name)
    if package == "cann":
        found = _tokens(stack.get("cann") or "") | {str(e.get("version")) for e in stack.get("outside_pypi", [])
                                                     if e["name"] == "CANN"}
    elif package:
        found = _tokens(stack["packages"].get(package) or "")
        found |= {str(e.get("version")) for e in stack.get("outside_pypi", []) if e["name"] == package}
        found |= {v for command in stack["install"] for v in re.findall(re.escape(package) + r"==" + VERSION, command)}
    else:
        found = _tokens(stack["title"])
    if package and (package == name or package == "cann" and name == "course"):
        found |= _tokens(stack["title"].split("（")[0])
    if with_sources:
        found |= {v for line in [*stack["sources"], stack.get("note", "")] for v in _tokens(line)}
    return found


def known_versions(key: str, with_sources: bool) -> set[str]:
    """Versions the data knows for one name a lesson writes."""
    _, names, package = NAMES[key]
    known = set().union(*(_stack_versions(n, package, with_sources) for n in names))
    tables = load_yaml(DATA_DIR / "compatibility.yaml")["tables"]
    if key == "torch-npu":
        known |= {row["torch_npu"] for table in ("torch_npu", "torch_npu_unlisted", "recommended")
                  for row in tables[table]["rows"]}
    if key == "cann":
        known |= {str(row[col]) for table in tables.values() for row in table.get("rows", [])
                  for col in ("cann", "cann_community") if row.get(col)}
    return known


def _allowed(version: str, known: set[str]) -> bool:
    return any(k == version or k.startswith(version + ".") or k.lower() == version.lower() for k in known)


def stated_versions(text: str):
    """(name key, version, sentence, is an environment statement) for each version named right after a stack name."""
    for sentence in re.split(r"[。；\n]", text):
        environment = any(word in sentence for word in ENVIRONMENT_WORDS)
        for key, (pattern, _, _) in NAMES.items():
            for match in re.finditer(rf"(?:{pattern})\s*(?:v|==|=|>=|≥\s*)?\s*{VERSION}(?![\w])", sentence):
                yield key, match.group(1), sentence.strip(), environment


def _lesson_texts():
    yield "README.md", (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    for path in NOTEBOOKS:
        for number, cell in enumerate(nbformat.read(path, as_version=4).cells):
            if cell.cell_type == "markdown" or "npu" in cell.metadata.get("tags", []):
                yield f"{path.relative_to(REPO_ROOT)} 单元 {number}", cell.source


def problems(texts) -> list[str]:
    found = []
    for where, text in texts:
        for key, version, sentence, environment in stated_versions(text):
            known = known_versions(key, with_sources=not environment)
            if not _allowed(version, known):
                kind = "环境说明" if environment else "提到"
                found.append(f"{where}：{kind}了 {key} {version}，数据里没有（{sorted(known)[:8]}…）：{sentence[:120]}")
    return found


def test_lessons_name_only_versions_the_data_knows():
    found = problems(_lesson_texts())
    assert not found, "\n".join(found)


@pytest.mark.parametrize("text, bad", [
    ("环境：ms-swift 4.1 的单独 venv 或镜像", True),  # the December finding B-M1
    ("环境：vLLM-Ascend v0.30.0rc2 的容器镜像", True),  # B-H1: a version the stack does not pin
    ("v0.23.0 要求 CANN 9.9.0", True),
    ("环境：ms-swift 4.6.0 的单独 venv", False),
    ("ms-swift 4.0 把旧的 --train_type 改了名", False),  # history the stack's sources cite
    ("vLLM-Ascend v0.23.0 的容器镜像", False),
])
def test_the_check_catches_a_version_that_differs_from_the_data(text, bad):
    assert bool(problems([("例", text)])) is bad
