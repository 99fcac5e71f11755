"""The ``adadelta`` kernel."""

from __future__ import annotations

import numpy as np

from phi.common.data_type import DataType
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.optimizers import float_attr, learning_rate_in

__all__ = ["adadelta"]


_F = ["float32", "float64"]
_ANY_DTYPE = {"dtype": DataType.ALL_DTYPE}


@register_kernel("adadelta", "CPU", dtypes=_F,
                 input_defs={"learning_rate": _ANY_DTYPE, "master_param": _ANY_DTYPE})
def adadelta(ctx, param: Tensor, grad: Tensor, avg_squared_grad: Tensor,
             avg_squared_update: Tensor, learning_rate: Tensor, master_param: Tensor | None,
             rho: float, epsilon: float, multi_precision: bool
             ) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """E[g^2] = rho E[g^2] + (1 - rho) g^2; d = -sqrt((E[dx^2] + eps) / (E[g^2] + eps)) g;
    E[dx^2] = rho E[dx^2] + (1 - rho) d^2; p += lr d."""
    t = param.dtype.type
    p_dtype = param.dtype
    rho_, eps = float_attr(rho, p_dtype), float_attr(epsilon, p_dtype)
    asg = rho_ * avg_squared_grad + (t(1) - rho_) * grad * grad
    update = -np.sqrt((avg_squared_update + eps) / (asg + eps)) * grad
    asu = rho_ * avg_squared_update + (t(1) - rho_) * update * update
    p = param + learning_rate_in(learning_rate, param.dtype) * update
    return p.astype(param.dtype), asg.astype(param.dtype), asu.astype(param.dtype), None
