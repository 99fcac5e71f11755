"""The ``adamax`` kernel."""

from __future__ import annotations

import numpy as np

from phi.common.data_type import DataType
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.optimizers import float_attr, learning_rate_in, same_shape, scalar_in

__all__ = ["adamax"]


_F = ["float32", "float64"]
_ANY_DTYPE = {"dtype": DataType.ALL_DTYPE}


@register_kernel("adamax", "CPU", dtypes=_F,
                 input_defs={"learning_rate": _ANY_DTYPE, "beta1_pow": _ANY_DTYPE,
                             "master_param": _ANY_DTYPE})
def adamax(ctx, param: Tensor, grad: Tensor, learning_rate: Tensor, moment: Tensor,
           inf_norm: Tensor, beta1_pow: Tensor, master_param: Tensor | None, beta1: float,
           beta2: float, epsilon: float, multi_precision: bool
           ) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """m = b1 m + (1 - b1) g; u = max(b2 u + eps, |g|); p -= lr / (1 - b1^t) * m / u."""
    same_shape("adamax", param, Grad=grad, Moment=moment, InfNorm=inf_norm)
    t = param.dtype.type
    p_dtype = param.dtype
    m = float_attr(beta1, p_dtype) * moment + (t(1) - float_attr(beta1, p_dtype)) * grad
    # Eigen's |g|.cwiseMax(b2 u + eps): |g| < a ? a : |g| (a NaN on the right loses)
    a = float_attr(beta2, p_dtype) * inf_norm + float_attr(epsilon, p_dtype)
    absg = np.abs(grad)
    u = np.where(absg < a, a, absg)
    lr_t = learning_rate_in(learning_rate, param.dtype) / (
        t(1) - scalar_in(beta1_pow, param.dtype, "Beta1Pow"))
    p = param - lr_t * (m / u)
    return p.astype(param.dtype), m.astype(param.dtype), u.astype(param.dtype), None
