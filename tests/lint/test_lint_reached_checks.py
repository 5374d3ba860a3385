"""lint-npu round 6 (issue 36): the checks a called function REACHES (npulab/lint/callees.py walked by own_checks) —
base constructors, helpers, closures, constructors of other objects, property setters, ``*args``/``**kwargs`` handed
on, ``isinstance`` with the standard library's ABCs — each on snippets of its own (a small source tree) and on
torch and MindSpore calls that no case set holds; the correct forms stay clean."""

from __future__ import annotations

import ast

import pytest
from english_checks import no_cjk

from npulab.core.paths import REPO_ROOT
from npulab.lint import relations
from npulab.lint.context import Context
from npulab.lint.signatures import SourceTree
from npulab.pytorch.torch_npu_names import pinned_version

HELPERS = '''
import numbers
from collections.abc import Iterable
from pkg import checks as validator

def _pair(x):
    if isinstance(x, Iterable):
        return tuple(x)
    return (x, x)

def _activation(name):
    if name == "relu":
        return 1
    elif name == "tanh":
        return 2
    raise ValueError(name)

class Base:
    def __init__(self, size, rate=0.0, **kwargs):
        if not isinstance(rate, numbers.Real) or not 0 <= rate < 1:
            raise ValueError("rate")
        self.size = size

class Layer(Base):
    def __init__(self, *args, **kwargs):
        self.kind = kwargs.pop("kind", "relu")
        self.code = _activation(self.kind)
        super().__init__(*args, **kwargs)

class Explicit(Base):
    def __init__(self, size, rate):
        Base.__init__(self, size, rate=rate)

class Block:
    def __init__(self, width, heads, kind="relu"):
        self.layer = Layer(width, kind=kind)
        self.head = Head(width, heads)

class Head:
    def __init__(self, width, heads):
        self.part = width // heads
        assert self.part * heads == width, "width must be divisible by heads"

class Owner:
    def __init__(self, workers=0, context=None):
        self.workers = workers
        self.context = context

    @property
    def context(self):
        return self._context

    @context.setter
    def context(self, value):
        if value is not None and self.workers == 0:
            raise ValueError("context needs workers")
        self._context = value

def scaled(beta, eps=1e-8):
    validator.check_range(beta, 0.0, 1.0, validator.OPEN, "beta")
    return beta
'''

CHECKS = '''
OPEN = 7

def _inside(value, low, high, rel):
    if rel == OPEN:
        return not (value <= low or value >= high)
    return False

def check_range(value, low, high, rel, name=None):
    def _check():
        if not isinstance(value, (float, int)) or isinstance(value, bool):
            raise TypeError(name)
        if not _inside(value, low, high, rel):
            raise ValueError(name)
    _check()
    return value
'''


@pytest.fixture(scope="module")
def tree():
    return SourceTree("pkg", "1.0", {"pkg": HELPERS, "pkg.checks": CHECKS}, {"pkg"})


def _found(tree: SourceTree, definition: str, call: str) -> list:
    return relations.source_problems(tree, definition, ast.parse(call).body[0].value, set())


def test_args_and_kwargs_handed_to_the_base_and_numbers_abcs(tree):
    assert [read for read, _ in _found(tree, "pkg.Layer", "Layer(8, rate=1.5)")] == [["rate"]]
    assert _found(tree, "pkg.Layer", "Layer(8, 1.5)") and _found(tree, "pkg.Layer", "Layer(8, rate='0.1')")
    assert not _found(tree, "pkg.Layer", "Layer(8, rate=0.5)") and not _found(tree, "pkg.Layer", "Layer(8, rate=r)")
    assert _found(tree, "pkg.Explicit", "Explicit(8, 2)") and not _found(tree, "pkg.Explicit", "Explicit(8, 0.2)")


def test_kwargs_pop_and_a_helper_that_raises_after_its_tests(tree):
    problems = _found(tree, "pkg.Layer", "Layer(8, kind='gelu')")
    assert [read for read, _ in problems] == [["kind"]] and "pkg._activation" in problems[0][1]
    assert not _found(tree, "pkg.Layer", "Layer(8, kind='tanh')")


def test_constructors_two_levels_down(tree):
    problems = _found(tree, "pkg.Block", "Block(100, 3)")
    assert [read for read, _ in problems] == [["width", "heads"]] and "pkg.Head.__init__" in problems[0][1]
    assert not _found(tree, "pkg.Block", "Block(96, 3)")
    assert [read for read, _ in _found(tree, "pkg.Block", "Block(96, 3, kind='swish')")] == [["kind"]]


def test_a_property_setter_run_by_the_constructor(tree):
    assert [read for read, _ in _found(tree, "pkg.Owner", "Owner(context='fork')")] == [["context"]]
    assert not _found(tree, "pkg.Owner", "Owner(workers=2, context='fork')") and not _found(tree, "pkg.Owner", "Owner()")


def test_an_imported_modules_checker_with_a_closure_and_a_helper_in_its_test(tree):
    assert [read for read, _ in _found(tree, "pkg.scaled", "scaled(1.0)")] == [["beta"]]
    assert _found(tree, "pkg.scaled", "scaled(True)")  # a bool is refused by the TypeError test
    assert not _found(tree, "pkg.scaled", "scaled(0.5)") and not _found(tree, "pkg.scaled", "scaled(b)")


@pytest.fixture(scope="module")
def torch():
    found = Context(pinned_version(REPO_ROOT / "requirements-npu.txt")).sources("torch")
    if not isinstance(found, SourceTree):
        pytest.skip(f"torch sources not available: {found}")
    return found


@pytest.fixture(scope="module")
def mindspore():
    found = Context(pinned_version(REPO_ROOT / "requirements-npu.txt")).sources("mindspore")
    if not isinstance(found, SourceTree):
        pytest.skip(f"mindspore sources not available: {found}")
    return found


@pytest.mark.parametrize(("definition", "planted", "twin"), [
    ("torch.nn.modules.conv.Conv1d", "C(12, 20, 3, groups=8)", "C(16, 24, 3, groups=8)"),  # _ConvNd
    ("torch.nn.modules.conv.ConvTranspose2d", "C(8, 10, 3, groups=4)", "C(8, 12, 3, groups=4)"),  # out_channels
    ("torch.nn.modules.rnn.GRU", "G(16, 32, num_layers=2, dropout=2.0)", "G(16, 32, num_layers=2, dropout=0.1)"),
    ("torch.nn.modules.transformer.TransformerDecoderLayer", "T(d_model=100, nhead=3)", "T(d_model=99, nhead=3)"),
    ("torch.nn.modules.transformer.TransformerDecoderLayer", "T(64, 8, activation='swish')",
     "T(64, 8, activation='relu')"),
])
def test_torch_checks_reached_through_bases_helpers_and_inner_constructors(torch, definition, planted, twin):
    assert _found(torch, definition, planted), planted
    assert not _found(torch, definition, twin), twin


@pytest.mark.parametrize(("definition", "planted", "twin"), [
    ("mindspore.nn.optim.adam.AdamWeightDecay", "A(p, beta2=1.5)", "A(p, beta2=0.95)"),  # _check_param_value
    ("mindspore.nn.layer.pooling.AvgPool2d", "P(kernel_size=2, pad_mode='full')", "P(kernel_size=2, pad_mode='valid')"),
    ("mindspore.nn.layer.rnns.GRU", "G(16, 32, num_layers=2, dropout=1.0)", "G(16, 32, num_layers=2, dropout=0.5)"),
])
def test_mindspore_checks_reached_through_its_validator(mindspore, definition, planted, twin):
    assert _found(mindspore, definition, planted), planted
    assert not _found(mindspore, definition, twin), twin


def test_the_reached_check_speaks_english(en, tree):  # noqa: F811
    problems = _found(tree, "pkg.Block", "Block(100, 3)")
    assert "(called from pkg.Block)" in problems[0][1] and "raises AssertionError" in problems[0][1]
    no_cjk(problems[0][1])


PAIRS = '''
def bounds(low=0.0, window=(1, 8), nested=((0, 1), [2, 3])):
    if not isinstance(window, tuple) or not isinstance(nested[0], tuple) or not isinstance(nested[1], list):
        raise TypeError("window")
    if low > window[0]:
        raise ValueError("low")
    return window
'''


def test_a_tuple_default_stays_a_tuple_when_another_argument_is_given():
    """A default the source writes as a tuple is a tuple to the function's own isinstance test (a list before: a
    correct call was refused as soon as any other argument was known)."""
    tree = SourceTree("pairs", "1.0", {"pairs": PAIRS}, {"pairs"})
    assert not _found(tree, "pairs.bounds", "bounds(low=0.5)")
    assert [read for read, _ in _found(tree, "pairs.bounds", "bounds(low=2.0)")] == [["low", "window"]]
    assert _found(tree, "pairs.bounds", "bounds(low=0.5, window=[1, 8])")


HANDLED = '''
def strategy(kind):
    if isinstance(kind, str):
        if kind not in ("whole", "split"):
            raise ValueError("kind")
        return
    if not isinstance(kind, tuple):
        raise TypeError("kind")

def run(step):
    gen = iter([step])
    if step < 0:
        raise ValueError("step")
    try:
        next(gen)
    except StopIteration:
        return step
    raise AssertionError("the generator yielded twice")
'''


def test_a_type_handled_by_an_earlier_returning_branch_is_accepted():
    """``if isinstance(p, str): …; return`` before ``if not isinstance(p, tuple): raise``: a string is not refused
    for not being a tuple; the string branch's own values still are."""
    from npulab.lint import api_values

    tree = SourceTree("handled", "1.0", {"handled": HANDLED}, {"handled"})
    allowed = api_values.checked_by_definition(tree, "handled.strategy")["kind"]
    assert allowed.types is None and set(allowed.values) == {"whole", "split"}


def test_a_raise_after_a_handler_that_returns_is_not_certain():
    """``try: next(gen) except StopIteration: return …`` then ``raise``: the raise runs only when the generator
    yields again, which nothing in the call decides (torch.utils.checkpoint's non-reentrant path)."""
    tree = SourceTree("handled", "1.0", {"handled": HANDLED}, {"handled"})
    assert not _found(tree, "handled.run", "run(3)")
    assert [read for read, _ in _found(tree, "handled.run", "run(-1)")] == [["step"]]
