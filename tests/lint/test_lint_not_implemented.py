"""lint-npu reads a class's own checks in all its methods (source_validations), but a ``NotImplementedError`` raised
in a method other than the constructor says only that this method is not implemented for the value — torch's
``Independent.enumerate_support`` raises it for every positive ``reinterpreted_batch_ndims``, which the constructor
accepts (set Q's twin, flagged before the lead's mend). On a small source tree: the constructor's own
``NotImplementedError`` still refuses, another method's does not, another method's ``ValueError`` still does."""

from __future__ import annotations

from npulab.lint import value_tests
from npulab.lint.signatures import SourceTree
from npulab.lint.source_validations import checked_by_definition

SOURCE = '''
class Folded:
    def __init__(self, depth, width, stride=1):
        if stride > 4:
            raise NotImplementedError("strides above 4")
        self.depth = depth
        self.width = width
        self.stride = stride

    def unfold(self):
        if self.depth > 0:
            raise NotImplementedError("unfolding a folded view")
        return self.width

    def check(self):
        if self.width < 0:
            raise ValueError("width")
'''


def _refused(value: int, param: str) -> bool:
    tree = SourceTree("shapes", "1.0", {"shapes": SOURCE}, {"shapes"})
    allowed = checked_by_definition(tree, "shapes.Folded").get(param)
    return bool(allowed) and any(value_tests.refuses(test, held, value) for test, held in allowed.refused_by)


def test_another_methods_not_implemented_refuses_nothing():
    assert not _refused(1, "depth") and not _refused(3, "depth")


def test_the_constructors_not_implemented_and_other_errors_still_refuse():
    assert _refused(8, "stride") and not _refused(2, "stride")
    assert _refused(-1, "width") and not _refused(2, "width")
