"""The ``average_accumulates`` kernel."""

from __future__ import annotations

import numpy as np

from phi.common.data_type import DataType
from phi.core.kernel import Int64, Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.optimizers import counter

__all__ = ["average_accumulates"]


_F = ["float32", "float64"]
_ANY_DTYPE = {"dtype": DataType.ALL_DTYPE}


_K_MAX_NUM_ACCUMULATES = 16384


@register_kernel("average_accumulates", "CPU", dtypes=_F,
                 input_defs={"in_num_accumulates": _ANY_DTYPE,
                             "in_old_num_accumulates": _ANY_DTYPE,
                             "in_num_updates": _ANY_DTYPE},
                 output_defs={3: {"dtype": DataType.INT64}, 4: {"dtype": DataType.INT64},
                              5: {"dtype": DataType.INT64}})
def average_accumulates(ctx, param: Tensor, in_sum_1: Tensor, in_sum_2: Tensor,
                        in_sum_3: Tensor, in_num_accumulates: Tensor,
                        in_old_num_accumulates: Tensor, in_num_updates: Tensor,
                        average_window: float, max_average_window: Int64,
                        min_average_window: Int64
                        ) -> tuple[Tensor, Tensor, Tensor, Tensor, Tensor, Tensor]:
    """ModelAverage's sums: sum_1 += param; every 16384 updates sum_1 moves into sum_2; when
    the window is full (min_average_window, and min(max_average_window, updates *
    average_window)) sum_3 = sum_1 + sum_2 and the window restarts."""
    num_acc = counter(in_num_accumulates, "in_num_accumulates") + 1
    old_num = counter(in_old_num_accumulates, "in_old_num_accumulates")
    num_upd = counter(in_num_updates, "in_num_updates") + 1
    s1 = in_sum_1 + param
    s2 = in_sum_2.copy()
    s3 = in_sum_3.copy()
    if num_upd % _K_MAX_NUM_ACCUMULATES == 0:
        s2 = s2 + s1
        s1 = np.zeros_like(s1)
    if num_acc >= min_average_window and num_acc >= min(max_average_window,
                                                        num_upd * average_window):
        s3 = s1 + s2
        s1 = np.zeros_like(s1)
        s2 = np.zeros_like(s2)
        old_num, num_acc = num_acc, 0
    i64 = np.int64
    return (s1.astype(param.dtype), s2.astype(param.dtype), s3.astype(param.dtype),
            np.array([num_acc], i64), np.array([old_num], i64), np.array([num_upd], i64))
