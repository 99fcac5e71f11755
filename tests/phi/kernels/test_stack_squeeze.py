"""squeeze / unsqueeze dims rules, stack / unstack, and the legacy ops without their XShape
output (saved inference programs), which still run squeeze / unsqueeze (with XShape) as Paddle
2.6.2's generated mappings do."""

from __future__ import annotations

import numpy as np
import pytest

from fluid_compat.imperative import run_op_with_operator
from phi.core.errors import PhiError
from phi.infermeta.funcs import squeeze_out_dims, unsqueeze_out_dims
from tests.phi.kernels.conftest import assert_array


@pytest.mark.parametrize(("dims", "axes", "want"), [
    ((1, 3, 1, 2), [], (3, 2)),
    ((1, 3, 1, 2), [0, -2], (3, 2)),
    ((1, 3, 1, 2), [1], (1, 3, 1, 2)),  # a size other than 1 is kept, not an error
    ((1, 1), [], ()),
    ((-1, 3), [0], (3,)),  # compile time: an unknown size may be squeezed
])
def test_squeeze_dims(dims, axes, want):
    assert squeeze_out_dims(dims, axes) == want


@pytest.mark.parametrize(("dims", "axes", "want"), [
    ((2, 3), [0, -1], (1, 2, 3, 1)),
    ((2, 3), [1, 1], (2, 1, 1, 3)),
    ((), [0], (1,)),
    ((2, 3), [-1, 0], (1, 2, 3, 1)),
])
def test_unsqueeze_dims(dims, axes, want):
    assert unsqueeze_out_dims(dims, axes) == want


def test_unsqueeze_axis_out_of_range():
    with pytest.raises(PhiError, match="out of range"):
        unsqueeze_out_dims((2, 3), [4])


def test_stack_unstack(run_op):
    xs = [np.full((2, 3), i, np.float32) for i in range(3)]
    out = run_op("stack", xs, -1)
    assert_array(out, np.stack(xs, axis=-1))
    parts = run_op("unstack", out, 2, 3)
    for p, x in zip(parts, xs, strict=True):
        assert_array(p, x)
    with pytest.raises(PhiError, match="same"):
        run_op("stack", [xs[0], np.zeros((3, 2), np.float32)])


@pytest.mark.parametrize(("op", "attrs", "kernel", "shape"), [
    ("squeeze2", {"axes": [0]}, "squeeze", (3, 1)),
    ("unsqueeze2", {"axes": [1]}, "unsqueeze", (1, 1, 3, 1)),
])
def test_with_or_without_xshape_the_xshape_kernel_runs(op, attrs, kernel, shape):
    # Paddle 2.6.2's kernel trace of saved models whose squeeze2 / unsqueeze2 lost the XShape
    # variable (paddle.vision squeezenet / googlenet, nn.Transformer): `squeeze` / `unsqueeze`
    # with outputs Out, XShape, never the *_infer kernels.
    x = np.arange(3, dtype=np.float32).reshape(1, 3, 1)
    for extra in ([], ["XShape"]):
        result, operator = run_op_with_operator(op, {"X": x}, attrs, extra_outputs=extra)
        (choice,) = operator.kernel_choices().values()
        assert choice.signature.name == kernel
        assert choice.signature.outputs == ("Out", "XShape")
        assert result["Out"][0].shape == shape
