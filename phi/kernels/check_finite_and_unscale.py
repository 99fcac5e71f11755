"""The ``check_finite_and_unscale`` kernel."""

from __future__ import annotations

import numpy as np

from phi.common.data_type import DataType
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.optimizers import scalar_in

__all__ = ["check_finite_and_unscale"]


_F = ["float32", "float64"]


@register_kernel("check_finite_and_unscale", "CPU", dtypes=_F,
                 output_defs={1: {"dtype": DataType.BOOL}})
def check_finite_and_unscale(ctx, x: list[Tensor], scale: Tensor
                             ) -> tuple[list[Tensor], Tensor]:
    """Out[i] = X[i] * (1 / scale); FoundInfinite: any NaN or Inf in X.  As Paddle's CPU kernel
    checks tensor by tensor, the tensor holding the first NaN / Inf and every later one are
    multiplied by 0 instead (an Inf gives NaN), the earlier ones are unscaled."""
    t = scale.dtype.type
    inverse = t(1) / scalar_in(scale, scale.dtype, "Scale")
    found = False
    outs = []
    for v in x:
        found = found or not bool(np.all(np.isfinite(v)))
        factor = v.dtype.type(0) if found else v.dtype.type(inverse)
        with np.errstate(invalid="ignore"):
            outs.append((v * factor).astype(v.dtype))
    return outs, np.array([found])
