"""The ``lamb`` kernel."""

from __future__ import annotations

import numpy as np

from phi.common.data_type import DataType
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.optimizers import (finish_update, float_attr, learning_rate_in, master_of,
                                          same_shape, scalar_in, skips_update)

__all__ = ["lamb"]


_F = ["float32", "float64"]
_ANY_DTYPE = {"dtype": DataType.ALL_DTYPE}


_ADAM_INPUTS = {"learning_rate": _ANY_DTYPE, "beta1_pow": _ANY_DTYPE, "beta2_pow": _ANY_DTYPE,
                "master_param": _ANY_DTYPE, "skip_update": _ANY_DTYPE}
_ADAM_OUTPUTS = {3: {"dtype": DataType.ALL_DTYPE}, 4: {"dtype": DataType.ALL_DTYPE}}


@register_kernel("lamb", "CPU", dtypes=_F, input_defs=_ADAM_INPUTS, output_defs=_ADAM_OUTPUTS)
def lamb(ctx, param: Tensor, grad: Tensor, learning_rate: Tensor, moment1: Tensor,
         moment2: Tensor, beta1_pow: Tensor, beta2_pow: Tensor, master_param: Tensor | None,
         skip_update: Tensor | None, weight_decay: float, beta1: float, beta2: float,
         epsilon: float, always_adapt: bool, multi_precision: bool
         ) -> tuple[Tensor, Tensor, Tensor, Tensor, Tensor, Tensor]:
    """r = m1_hat / (sqrt(m2_hat) + eps) + wd p; p -= lr * (|p| / |r|) r (ratio 1 when a norm
    is 0); the beta powers advance."""
    same_shape("lamb", param, Grad=grad, Moment1=moment1, Moment2=moment2)
    if skips_update(skip_update):
        return (param.copy(), moment1.copy(), moment2.copy(), beta1_pow.copy(),
                beta2_pow.copy(), None)
    p = master_of(param, master_param, multi_precision)
    t = p.dtype.type
    p_dtype = p.dtype
    g = grad.astype(p.dtype)
    b1, b2 = float_attr(beta1, p_dtype), float_attr(beta2, p_dtype)
    b1pow = scalar_in(beta1_pow, p.dtype, "Beta1Pow")
    b2pow = scalar_in(beta2_pow, p.dtype, "Beta2Pow")
    m1 = b1 * moment1 + (t(1) - b1) * g
    m2 = b2 * moment2 + (t(1) - b2) * g * g
    eps = float_attr(epsilon, p_dtype)
    r = (m1 / (t(1) - b1pow)) / (np.sqrt(m2 / (t(1) - b2pow)) + eps) \
        + float_attr(weight_decay, p_dtype) * p
    p_norm = np.sqrt(np.sum(p * p, dtype=p.dtype))
    r_norm = np.sqrt(np.sum(r * r, dtype=p.dtype))
    ratio = p_norm / r_norm if (p_norm != 0 and r_norm != 0) else t(1)
    if weight_decay == 0 and not always_adapt:
        ratio = t(1)
    p_out = (p - learning_rate_in(learning_rate, p.dtype) * ratio * r).astype(p.dtype)
    b1_out = (beta1_pow * beta1_pow.dtype.type(beta1)).astype(beta1_pow.dtype)
    b2_out = (beta2_pow * beta2_pow.dtype.type(beta2)).astype(beta2_pow.dtype)
    param_out, master_out = finish_update(param, p_out, master_param, multi_precision)
    return param_out, m1.astype(p.dtype), m2.astype(p.dtype), b1_out, b2_out, master_out
