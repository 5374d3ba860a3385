"""lint-npu round 5 (issue 36): launcher command lines parsed by the launcher's own parser from the pinned release
(npulab/lint/own_parsers.py; cli_tools.yaml ``parsers``). The snippets are not set D's cases: other flags and other
wrong values of the same kind, each with a correct relative that must stay clean."""

from __future__ import annotations

import os

import pytest
from test_lint_values import lint  # noqa: F401  (the module's fixture: one npu cell through check_notebook)

from npulab.lint import own_parsers


@pytest.mark.parametrize("line", [
    "!torchrun --nproc-per-node=2 --tee=both train.py",                      # Std.from_str after argparse
    "!torchrun --nproc-per-node=2 --redirects=0:3,1:7 train.py",            # a per-rank map with a wrong Std
    "!torchrun --nproc-per-node=2 --rdzv-conf=timeout train.py",            # key=value without '='
    "!torchrun --nproc-per-node=2 --local-ranks-filter=all train.py",       # integers only
    "!torchrun --nproc-per-node=2 --numa-binding=NODE train.py",            # argparse choices (case)
    "!python -m torch.distributed.run --nproc-per-node=2 --tee=9 train.py",  # the module form
    "!msrun --worker_num=8 --local_worker_num=8 --bind_core=maybe train.py",  # MindSpore's type function
])
def test_the_launchers_own_parser_refuses(lint, line):  # noqa: F811
    found = lint(line)
    assert [f.kind for f in found] == ["cli-flag"], found
    assert "自己的参数解析" in found[0].message


@pytest.mark.parametrize("line", [
    "!torchrun --nproc-per-node=2 --tee=0:3,1:1 --redirects 3 --rdzv-conf=join_timeout=900,read_timeout=60 train.py",
    "!torchrun --nproc-per-node=2 --local-ranks-filter=0,1 --numa-binding=socket train.py --redirects 9 --tee=x",
    "!torchrun --nproc-per-node=2 --tee=$TEE --redirects {r} train.py",      # placeholders are not values
    "!msrun --worker_num=8 --local_worker_num=8 --bind_core=True --bind_numa numa.json train.py --lr 0.1",
])
def test_correct_relatives_are_clean(lint, line):  # noqa: F811
    assert lint(line) == []


def test_arguments_given_to_the_parser():
    assert own_parsers.launcher_args(["--a", "8", "--b", "$P", "--c=PYVAR", "-h", "t.py", "--x", "1"]) == \
        ["--a", "8", "t.py", "--x", "1"]
    assert own_parsers.launcher_args(["--bind_numa", "n.json", "--bind_numa=m.json", "t.py"], ["--bind_numa"]) == ["t.py"]


def test_importing_the_launcher_leaves_the_environment_alone(lint):  # noqa: F811
    before = dict(os.environ)
    lint("!msrun --worker_num=8 --local_worker_num=8 --bind_core=maybe train.py")
    assert dict(os.environ) == before


@pytest.mark.parametrize(("line", "twin"), [
    # config_from_args, walked over the parsed namespace (round 6): its own tests after argparse
    ("!torchrun --nnodes=3:2 --nproc-per-node=2 train.py", "!torchrun --nnodes=2:3 --nproc-per-node=2 train.py"),
    ("!torchrun --nproc-per-node=2 --no_python -m pkg.main", "!torchrun --nproc-per-node=2 --no_python ./run.sh"),
    ("!torchrun --standalone --nproc-per-node=4 --max_restarts=-2 train.py",
     "!torchrun --standalone --nproc-per-node=4 --max_restarts=2 train.py"),
])
def test_what_torchrun_does_after_parsing_is_walked(lint, line, twin):  # noqa: F811
    found = lint(line)
    assert [f.kind for f in found] == ["cli-flag"] and "config_from_args" in found[0].message, found
    assert lint(twin) == []
