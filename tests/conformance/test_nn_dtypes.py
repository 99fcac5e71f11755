"""A registered op given a dtype it has no CPU kernel for raises the project's typed NotFound
naming the op, the dtype that came and the dtypes it has (Paddle raises the same
"does not have kernel for" NotFound), never a raw numpy error."""

from __future__ import annotations

import numpy as np
import pytest

from fluid_compat import run_op
from phi.core.errors import NotFound

F16 = "::paddle::platform::float16"  # Paddle's own name of the dtype

# (op, inputs builder for a dtype, attrs, dtype without a kernel, paddle dtype name)
CASES = [
    ("conv2d", lambda d: {"Input": np.ones([1, 1, 3, 3], d), "Filter": np.ones([1, 1, 1, 1], d)},
     {}, "int32", "int"),
    ("conv3d", lambda d: {"Input": np.ones([1, 1, 2, 3, 3], d),
                          "Filter": np.ones([1, 1, 1, 1, 1], d)}, {}, "float16", F16),
    ("pool2d", lambda d: {"X": np.ones([1, 1, 3, 3], d)}, {"ksize": [2, 2]}, "int64",
     "int64_t"),
    ("layer_norm", lambda d: {"X": np.ones([2, 3], d)}, {"begin_norm_axis": 1}, "int32", "int"),
    ("group_norm", lambda d: {"X": np.ones([2, 4, 3, 3], d)}, {"groups": 2}, "float16", F16),
    ("matmul_v2", lambda d: {"X": np.ones([2, 3], d), "Y": np.ones([3, 2], d)}, {}, "float16", F16),
    ("bicubic_interp_v2", lambda d: {"X": np.ones([1, 1, 3, 3], d)},
     {"interp_method": "bicubic", "out_h": 4, "out_w": 4}, "int32", "int"),
    ("top_k_v2", lambda d: {"X": np.ones([3, 4], d)}, {"k": 2}, "float16", F16),
    ("tile", lambda d: {"X": np.ones([3], d)}, {"repeat_times": [2]}, "uint8", "uint8_t"),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_missing_dtype_is_typed_not_found(case):
    op, build, attrs, dtype, paddle_name = case
    with pytest.raises(NotFound) as info:
        run_op(op, build(dtype), attrs)
    msg = str(info.value)
    assert f"({op})" in msg and f"data_type[{paddle_name}]" in msg
    assert "float32" in msg  # the registered dtypes are listed
