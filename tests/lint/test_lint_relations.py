"""lint-npu round 4 (issue 36): the mechanisms for relations between arguments or flags and for documented limits,
each on small snippets of its own (the held-out sets measure them on real APIs)."""

from __future__ import annotations

import ast

import pytest

from npulab.core.paths import REPO_ROOT
from npulab.env import value_grammar
from npulab.lint import api_values, callees, command_flags, own_checks, relations
from npulab.lint.context import Context
from npulab.lint.signatures import Signature, SourceTree
from npulab.pytorch.torch_npu_names import pinned_version


def test_grammar_multiples_and_written_units():
    tc = {"int": [0, 255], "multiple_of": 4}
    assert value_grammar.problem("132", tc) is None
    assert "4 的整数倍" in value_grammar.problem("130", tc)
    assert "[0, 255]" in value_grammar.problem("256", tc)
    limit = {"int": [200, 4294967296], "suffix": "MB"}
    assert value_grammar.problem("1024MB", limit) is None
    assert "[200, 4294967296]" in value_grammar.problem("100MB", limit)
    assert "MB" in value_grammar.problem("1024", limit) and value_grammar.problem("1GBMB", limit)


def test_flag_relations_know_every_spelling(en):
    tables = command_flags.Tables()
    tables.other = {"values": {"tool": {"relations": [
        {"flags": [["--node-rank", "--node_rank"], ["--nnodes"]], "relation": "<", "source": "s"}]}}}
    assert command_flags.relation_problems("tool", ["--nnodes=2", "--node-rank=1"], tables) == []
    (problem,) = command_flags.relation_problems("tool", ["--nnodes", "2", "--node_rank=2"], tables)
    assert "`--node_rank` must be < `--nnodes`" in problem
    assert command_flags.relation_problems("tool", ["--nnodes=1:4", "--node-rank=5"], tables) == []  # elastic range


# --- own_checks: a function's own statements run on a call's values ----------------------------------------

LOADER = '''
class Loader:
    def __init__(self, data, workers=0, prefetch=None, persistent=False, sampler=None, shuffle=None):
        if workers < 0:
            raise ValueError("workers")
        if workers == 0 and prefetch is not None:
            raise ValueError("prefetch needs workers")
        elif workers > 0 and prefetch is None:
            prefetch = 2
        if persistent and workers == 0:
            raise ValueError("persistent needs workers")
        if sampler is not None and shuffle:
            raise ValueError("sampler excludes shuffle")
        self._level = data
'''


def _refused(source: str, call: str, built=frozenset()) -> list[int]:
    cls = ast.parse(source).body[0]
    init = cls.body[0]
    params, defaults = callees.parameters(init, skip_first=True)

    def resolve(node: ast.expr):  # literals only: no module constants in these snippets
        return node.value if isinstance(node, ast.Constant) else own_checks.UNKNOWN

    bound = relations.bind(params, defaults, ast.parse(call).body[0].value, resolve, built)
    methods = {n.name: n for n in cls.body if isinstance(n, ast.FunctionDef)}
    return [r.line for r in own_checks.refusals(init.body, bound.values, methods, resolve)]


def test_two_argument_tests_are_run_on_the_call():
    assert _refused(LOADER, "Loader(ds, prefetch=4)") == [6]  # workers left at 0
    assert _refused(LOADER, "Loader(ds, workers=4, prefetch=4)") == []
    assert _refused(LOADER, "Loader(ds, persistent=True)") == [10]
    assert _refused(LOADER, "Loader(ds, workers=-1)") == [4]
    assert _refused(LOADER, "Loader(ds, workers=n, prefetch=4)") == []  # a name: not known
    assert _refused(LOADER, "Loader(ds, shuffle=True, sampler=s)") == []  # s may be None
    assert _refused(LOADER, "Loader(ds, shuffle=True, sampler=s)", frozenset({"s"})) == [12]  # s = Sampler(...)


def test_three_valued_evaluation():
    walk = own_checks.Walk({}, lambda node: own_checks.UNKNOWN)

    def value(text, **state):
        return own_checks.evaluate(ast.parse(text, mode="eval").body, state, walk)

    unknown = own_checks.UNKNOWN
    assert value("rank >= n or rank < 0", rank=8, n=8) is True and value("rank >= n or rank < 0", rank=7, n=8) is False
    assert value("rank >= n or rank < 0", rank=-1, n=unknown) is True  # one side decides an or
    assert value("rank >= n or rank < 0", rank=3, n=unknown) is unknown
    assert value("not 0.0 <= b[1] < 1.0", b=(0.9, 1.0)) is True
    assert value("x is not None", x=own_checks.NotNone()) is True and value("x == 1", x=own_checks.NotNone()) is unknown
    assert value("any(not isinstance(d, str) for d in xs)", xs=["a", 1]) is True
    assert value("v.isdigit() and 1 <= int(v) <= 32", v="48") is False
    assert value("isinstance(h, list)", h="cpu") is False and value("isinstance(h, (list, Tensor))", h="cpu") is unknown
    assert value("e // h * h != e", e=512, h=7) is True and value("e // h * h != e", e=512, h=8) is False
    assert value("e // h", e=1, h=0) is unknown and value("2 ** p", p=10 ** 6) is unknown


def test_a_raise_under_a_further_test_is_not_a_refusal_of_the_first():
    """value_tests.rejects: ``if p > 0: if p >= n: raise`` does not refuse every positive p (Embedding's padding_idx);
    own_checks runs the inner test on the call instead."""
    from npulab.lint import value_tests

    func = ast.parse("def f(n, p=None):\n    if p > 0:\n        if p >= n:\n            raise ValueError\n"
                     "    if p < -5:\n        raise ValueError\n").body[0]
    outer, inner = func.body
    assert not value_tests.rejects(outer.body, "p") and value_tests.rejects(inner.body, "p")
    assert _refused("class E:\n    def __init__(self, n, p=None):\n        self.n = n\n        if p > 0:\n"
                    "            if p >= self.n:\n                raise AssertionError\n", "E(100, p=100)") == [5]
    assert _refused("class E:\n    def __init__(self, n, p=None):\n        self.n = n\n        if p > 0:\n"
                    "            if p >= self.n:\n                raise AssertionError\n", "E(100, p=5)") == []


def test_warn_and_reset_order_and_returns():
    source = '''
class Config:
    def __init__(self, level="L0", metrics="pipe", mstx=False, include=None):
        self._level = level
        self._metrics = metrics
        self._mstx = mstx
        self._include = include if include else []
        self._check()

    def _check(self):
        if self._level == "L0" and self._metrics != "none":
            warn("metrics need L1, reset")
            self._metrics = "none"
        if self._level == "none" and not self._mstx:
            self._mstx = True
            warn("level none needs mstx")
        if not self._mstx:
            if self._include:
                warn("include needs mstx")
            self._include = []
        if self._level == "L2":
            warn("L2 is slow")
'''
    assert _refused(source, "Config(level='L1')") == []
    assert _refused(source, "Config(level='L0', metrics='pipe')") == [11]
    assert _refused(source, "Config(level='none', metrics='none')") == [14]  # the reset comes before the warning
    assert _refused(source, "Config(metrics='none', include=['a'])") == [18]  # reset after the inner test
    assert _refused(source, "Config(level='L2')") == []  # a warning alone is advice
    early = "class F:\n    def __init__(self, a=0, b=None):\n        if g():\n            return\n" \
            "        if a == 0 and b is not None:\n            raise ValueError\n"
    assert _refused(early, "F(b=1)") == []  # reached only when g() is false: not certain


def test_refusals_the_defaults_make_are_not_the_calls():
    """relations.source_problems reports what the call's own values make refuse, on a real constructor."""
    torch = Context(pinned_version(REPO_ROOT / "requirements-npu.txt")).sources("torch")
    if not isinstance(torch, SourceTree):
        pytest.skip(f"torch sources not available: {torch}")

    def problems(code: str) -> list:
        call = ast.parse(code).body[0].value
        return relations.source_problems(torch, "torch.utils.data.distributed.DistributedSampler", call, set())

    assert [read for read, _ in problems("S(ds, num_replicas=8, rank=8)")] == [["num_replicas", "rank"]]
    assert problems("S(ds, num_replicas=8, rank=7)") == [] and problems("S(ds, rank=3)") == []


def test_dict_values_checked_by_a_lambda():
    table = ast.parse("{'N': (lambda value: value.isdigit() and 1 <= int(value) <= 32), 'M': ['a']}", mode="eval").body
    keys = api_values._literal(table)
    allowed = api_values.Allowed(None, {k: v if isinstance(v, ast.Lambda) else tuple(v) for k, v in keys.items()}, {},
                                 "src", as_text=True)
    assert api_values.problems(ast.parse("{'N': '48'}", mode="eval").body, "option", allowed)
    assert api_values.problems(ast.parse("{'N': 20, 'M': 'a'}", mode="eval").body, "option", allowed) == []


def test_documented_rules_run_over_the_signature(en, monkeypatch):
    """A ``refused`` rule of api_values.yaml is a test over the parameters; an operator without a Python definition
    takes its documented defaults from the rule."""
    class Tree:  # no definition for the operator: only its signature
        package, version = "torch_npu", "2.12.0"

        def function(self, dotted):
            return None

        def tree(self, module):
            return None

    rule = {"function": "x.attention", "refused": "layout == 'TND' and seq is None", "defaults": {"seq": None},
            "rule": "r", "rule_en": "TND needs seq", "source": "s"}
    sig = Signature(["q", "layout"], keyword_only=["seq"])
    monkeypatch.setattr(relations, "rules_for", lambda definition: [rule])
    found = relations.rule_problems(Tree(), "x.attention", ast.parse("f(q, 'TND')").body[0].value, sig, set())
    assert [read for read, _ in found] == [["layout", "seq"]] and "`seq=None` (default)" in found[0][1]
    assert relations.rule_problems(Tree(), "x.attention", ast.parse("f(q, 'TND', seq=[4])").body[0].value, sig,
                                   set()) == []
    assert relations.rule_problems(Tree(), "x.attention", ast.parse("f(q, 'BSND')").body[0].value, sig, set()) == []


def test_relations_nobody_listed_are_read_from_torch():
    """Relations in no data file and no case set, read from torch's own constructors; the correct forms stay clean."""
    torch = Context(pinned_version(REPO_ROOT / "requirements-npu.txt")).sources("torch")
    if not isinstance(torch, SourceTree):
        pytest.skip(f"torch sources not available: {torch}")

    def read(definition: str, code: str) -> list:
        return [r for r, _ in relations.source_problems(torch, definition, ast.parse(code).body[0].value, set())]

    mha, group, sgd = ("torch.nn.modules.activation.MultiheadAttention", "torch.nn.modules.normalization.GroupNorm",
                       "torch.optim.sgd.SGD")
    assert read(mha, "M(512, 7)") == [["embed_dim", "num_heads"]] and read(mha, "M(512, 8)") == []
    assert read(group, "G(3, 16)") == [["num_groups", "num_channels"]] and read(group, "G(4, 16)") == []
    assert read(sgd, "S(p, lr=0.1, nesterov=True)") == [["momentum", "dampening", "nesterov"]]
    assert read(sgd, "S(p, lr=0.1, momentum=0.9, nesterov=True)") == []


def test_members_of_a_c_extension_enum(en):
    """api_values.yaml enum_members: a member the documentation does not list is reported, with a close guess."""
    assert api_values.enum_member_problem("torch_npu.profiler.ProfilerActivity.NPU") is None
    assert "only CPU, NPU" in api_values.enum_member_problem("torch_npu.profiler.ProfilerActivity.CUDA")
    assert "`NPU`" in api_values.enum_member_problem("torch_npu._C._profiler.ProfilerActivity.GPU")
    assert api_values.enum_member_problem("torch.profiler.ProfilerActivity.CUDA") is None  # torch's own enum


def test_a_literal_is_no_instance_of_a_class_the_library_defines():
    """Round 5 (issue 36): ``isinstance(value, LibraryClass)`` is False for a plain literal (an int is exactly int,
    never the IntEnum a library defines); an enum member written through its class is a member, not its value; a
    class with a metaclass or an ABC base may accept anything, so it stays unknown."""
    code = ("from enum import Enum, IntEnum\nfrom abc import ABC\n"
            "class Mode(IntEnum):\n    A = 0\n    B = 1\n"
            "class Kind(Enum):\n    X = 'x'\n"
            "class Virtual(ABC):\n    pass\n"
            "class Meta(metaclass=type):\n    pass\n"
            "def set_mode(mode):\n    if not isinstance(mode, Mode):\n        raise TypeError('mode')\n"
            "def set_kind(kind):\n    if kind is not None and not isinstance(kind, (Kind, str)):\n        raise TypeError('kind')\n"
            "def set_virtual(v):\n    if not isinstance(v, Virtual):\n        raise TypeError('v')\n"
            "def set_meta(v):\n    if not isinstance(v, Meta):\n        raise TypeError('v')\n")
    tree = SourceTree("pkg", "1.0", {"pkg": code}, {"pkg"})

    def refused(call: str) -> bool:
        return bool(relations.source_problems(tree, f"pkg.{call.split('(')[0]}", ast.parse(call).body[0].value, set()))

    assert refused("set_mode(1)") and refused("set_kind(1)") and refused("set_kind(0.5)")
    assert not refused("set_mode(Mode.B)") and not refused("set_kind(Kind.X)") and not refused("set_kind(None)") \
        and not refused("set_kind('x')")
    assert not refused("set_virtual(1)") and not refused("set_meta(1)") and not refused("set_mode(m)")
