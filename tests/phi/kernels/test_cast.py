"""cast: C++ static_cast semantics on x86-64 (see phi.kernels.funcs) that numpy leaves undefined."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from phi.core.errors import InvalidArgument
from tests.phi.kernels.conftest import assert_array

BF16 = ml_dtypes.bfloat16
NAN, INF = np.nan, np.inf
I32_MIN, I64_MIN = -(2**31), -(2**63)


def a(values, dtype):
    return np.array(values, dtype=dtype)


# (id, x, dtype, expected)
CASES = [
    # float -> int truncates toward zero; NaN, inf and out-of-range give INT_MIN (cvttss2si)
    ("f32_to_i32", a([2.9, -2.9, NAN, INF, -INF, 3e9, -3e9], np.float32), "int32",
     a([2, -2, I32_MIN, I32_MIN, I32_MIN, I32_MIN, I32_MIN], np.int32)),
    ("f64_to_i64", a([1e18, -1.5, NAN, 1e19, -INF], np.float64), "int64",
     a([10**18, -1, I64_MIN, I64_MIN, I64_MIN], np.int64)),
    # narrower targets go through a 32-bit register and keep its low bits
    ("f32_to_i8", a([300.0, -129.0, NAN, 2.9, -1.9], np.float32), "int8",
     a([44, 127, 0, 2, -1], np.int8)),
    ("f64_to_u8", a([-1.0, 256.0, 255.9, 3e10], np.float64), "uint8",
     a([255, 0, 255, 0], np.uint8)),
    ("f16_to_i16", a([40000.0, -2.5, INF], np.float16), "int16", a([-25536, -2, 0], np.int16)),
    ("bf16_to_i32", a([1.5, -3.0e38], BF16), "int32", a([1, I32_MIN], np.int32)),
    # -> bool is != 0: NaN is true, -0.0 false
    ("f32_to_bool", a([0.0, -0.0, NAN, 0.5, -INF], np.float32), "bool",
     a([False, False, True, True, True], bool)),
    ("i64_to_bool", a([0, -3], np.int64), "bool", a([False, True], bool)),
    # integer narrowing wraps
    ("i32_to_i8", a([256, -1, 128, 127], np.int32), "int8", a([0, -1, -128, 127], np.int8)),
    ("i64_to_u8", a([-1, 257], np.int64), "uint8", a([255, 1], np.uint8)),
    ("bool_to_f64", a([True, False], bool), "float64", a([1.0, 0.0], np.float64)),
    ("u8_to_i64", a([255, 0], np.uint8), "int64", a([255, 0], np.int64)),
    # bfloat16(float) keeps the upper 16 bits: truncation toward zero, not round to nearest
    ("f32_to_bf16_truncates", a([1.005859375, -1.005859375, 3.0, INF, NAN], np.float32),
     "bfloat16", a([1.0, -1.0, 3.0, INF, NAN], BF16)),
    ("i32_to_bf16", a([257, -257], np.int32), "bfloat16", a([256, -256], BF16)),
    ("f64_to_f16_overflow", a([70000.0, 1e-8, 0.1], np.float64), "float16",
     a([INF, 0.0, 0.1], np.float16)),
    ("f64_to_f32", a([1e39, 1.0 / 3.0], np.float64), "float32", a([INF, 1.0 / 3.0], np.float32)),
    # complex -> real keeps the real part
    ("c64_to_f32", a([1.5 + 2j, -3j], np.complex64), "float32", a([1.5, 0.0], np.float32)),
    ("c128_to_i32", a([2.7 + 9j], np.complex128), "int32", a([2], np.int32)),
    ("f32_to_c128", a([1.5], np.float32), "complex128", a([1.5 + 0j], np.complex128)),
    ("size0", np.zeros((0, 3), np.float32), "int64", np.zeros((0, 3), np.int64)),
    ("0d", a(7.9, np.float64), "int32", a(7, np.int32)),
    ("same_dtype", a([1.0, 2.0], np.float32), "float32", a([1.0, 2.0], np.float32)),
]


@pytest.mark.parametrize(("x", "dtype", "expected"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_values(run_op, x, dtype, expected):
    assert_array(run_op("cast", x, dtype), expected)


def test_same_dtype_returns_a_copy(run_op):
    x = np.ones(3, np.float32)
    out = run_op("cast", x, "float32")
    out[0] = 9.0
    assert x[0] == 1.0


def test_unsupported_output_dtype(run_op):
    with pytest.raises(InvalidArgument, match="uint16"):
        run_op("cast", np.ones(2, np.float32), "uint16")
