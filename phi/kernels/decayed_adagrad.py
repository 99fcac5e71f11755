"""The ``decayed_adagrad`` kernel."""

from __future__ import annotations

import numpy as np

from phi.common.data_type import DataType
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.optimizers import float_attr, learning_rate_in, same_shape

__all__ = ["decayed_adagrad"]


_ANY_DTYPE = {"dtype": DataType.ALL_DTYPE}


@register_kernel("decayed_adagrad", "CPU", dtypes=["float32"],
                 input_defs={"learning_rate": _ANY_DTYPE})
def decayed_adagrad(ctx, param: Tensor, grad: Tensor, moment: Tensor, learning_rate: Tensor,
                    decay: float, epsilon: float) -> tuple[Tensor, Tensor]:
    """moment = decay moment + (1 - decay) g^2; p -= lr g / (sqrt(moment) + eps)."""
    same_shape("decayed_adagrad", param, Grad=grad, Moment=moment)
    t = param.dtype.type
    p_dtype = param.dtype
    m = float_attr(decay, p_dtype) * moment + (t(1) - float_attr(decay, p_dtype)) * grad * grad
    lr = learning_rate_in(learning_rate, param.dtype)
    p = param - lr * grad / (np.sqrt(m) + float_attr(epsilon, p_dtype))
    return p.astype(param.dtype), m.astype(param.dtype)
