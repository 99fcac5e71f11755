"""The ``update_loss_scaling`` kernel."""

from __future__ import annotations

import numpy as np

from phi.common.data_type import DataType
from phi.common.scalar import Scalar
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.optimizers import counter, float_attr, scalar_in

__all__ = ["update_loss_scaling"]


_F = ["float32", "float64"]
_ANY_DTYPE = {"dtype": DataType.ALL_DTYPE}


@register_kernel("update_loss_scaling", "CPU", dtypes=_F,
                 input_defs={"found_infinite": _ANY_DTYPE, "in_good_steps": _ANY_DTYPE,
                             "in_bad_steps": _ANY_DTYPE},
                 output_defs={2: {"dtype": DataType.INT32}, 3: {"dtype": DataType.INT32}})
def update_loss_scaling(ctx, x: list[Tensor], found_infinite: Tensor,
                        prev_loss_scaling: Tensor, in_good_steps: Tensor, in_bad_steps: Tensor,
                        incr_every_n_steps: int, decr_every_n_nan_or_inf: int,
                        incr_ratio: float, decr_ratio: float, stop_update: Scalar
                        ) -> tuple[list[Tensor], Tensor, Tensor, Tensor]:
    """Dynamic loss scaling: an overflow zeroes the gradients, counts a bad step and, after
    decr_every_n_nan_or_inf of them, scales down by decr_ratio (not below 1); otherwise good
    steps are counted and every incr_every_n_steps-th scales up by incr_ratio (when finite)."""
    found = bool(scalar_in(found_infinite, np.bool_, "FoundInfinite"))
    scale = scalar_in(prev_loss_scaling, prev_loss_scaling.dtype, "PrevLossScaling")
    t = prev_loss_scaling.dtype.type
    p_dtype = prev_loss_scaling.dtype
    good = counter(in_good_steps, "in_good_steps")
    bad = counter(in_bad_steps, "in_bad_steps")
    outs = [np.zeros_like(v) for v in x] if found else None
    if bool(stop_update.value if isinstance(stop_update, Scalar) else stop_update):
        return (outs, prev_loss_scaling.copy(), np.array([good], np.int32),
                np.array([bad], np.int32))
    if found:
        good, bad = 0, bad + 1
        if bad == decr_every_n_nan_or_inf:
            new = scale * float_attr(decr_ratio, p_dtype)
            scale = new if new >= t(1) else t(1)
            bad = 0
    else:
        good, bad = good + 1, 0
        if good == incr_every_n_steps:
            new = scale * float_attr(incr_ratio, p_dtype)
            if np.isfinite(new):
                scale = new
            good = 0
    return (outs, np.array([scale], prev_loss_scaling.dtype), np.array([good], np.int32),
            np.array([bad], np.int32))
