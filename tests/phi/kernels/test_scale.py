"""scale: scale and bias converted to x's dtype first, integer/bool/bfloat16 arithmetic."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from tests.phi.kernels.conftest import assert_array

BF16 = ml_dtypes.bfloat16


def a(values, dtype):
    return np.array(values, dtype=dtype)


# (id, x, scale, bias, bias_after_scale, expected)
CASES = [
    ("after", a([1.0, -2.0], np.float32), 2.0, 0.5, True, a([2.5, -3.5], np.float32)),
    ("before", a([1.0, -2.0], np.float32), 2.0, 0.5, False, a([3.0, -3.0], np.float32)),
    ("f64_0d", a(3.0, np.float64), -1.0, 0.0, True, a(-3.0, np.float64)),
    ("size0", np.zeros((0, 2), np.float32), 3.0, 1.0, True, np.zeros((0, 2), np.float32)),
    ("nan_inf", a([np.nan, np.inf], np.float32), 0.0, 1.0, True, a([np.nan, np.nan], np.float32)),
    # scale.to<int>() truncates 2.5 to 2 and static_cast<int>(0.7) is 0
    ("int32_truncates_attrs", a([1, 2, -3], np.int32), 2.5, 0.7, True, a([2, 4, -6], np.int32)),
    # (x + trunc(-2.9)) * trunc(-1.5) = (x - 2) * -1
    ("int64_negative_attrs", a([4, -4], np.int64), -1.5, -2.9, False, a([-2, 6], np.int64)),
    ("int8_wraps", a([100, -100], np.int8), 2.0, 0.0, True, a([-56, 56], np.int8)),
    ("uint8_negative_scale_wraps", a([1, 2], np.uint8), -1.0, 0.0, True, a([255, 254], np.uint8)),
    # bool arithmetic: (x && scale) || bias
    ("bool_identity", a([True, False], bool), 1.0, 0.0, True, a([True, False], bool)),
    ("bool_zero_scale", a([True, False], bool), 0.0, 0.0, True, a([False, False], bool)),
    ("bool_bias", a([True, False], bool), 0.0, 1.0, True, a([True, True], bool)),
    # float16 rounds after each operation, as numpy's float16 does
    ("f16", a([0.1, 1000.0], np.float16), 3.0, 0.25, True,
     a([np.float16(np.float16(0.1) * np.float16(3.0)) + np.float16(0.25), 3000.25],
       np.float16)),
    # bfloat16: 1.0078125 * 1.75 = 1.763671875 truncates to 1.7578125 (rounding: 1.765625)
    ("bf16_truncates", a([1.0078125], BF16), 1.75, 0.0, True, a([1.7578125], BF16)),
    ("complex", a([1 + 1j], np.complex64), 2.0, 1.0, True, a([3 + 2j], np.complex64)),
]


@pytest.mark.parametrize(("x", "scale", "bias", "after", "expected"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_values(run_op, x, scale, bias, after, expected):
    assert_array(run_op("scale", x, scale, bias, after), expected)


def test_defaults_are_identity(run_op):
    x = np.arange(4, dtype=np.float64)
    assert_array(run_op("scale", x), x)
