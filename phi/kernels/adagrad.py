"""The ``adagrad`` kernel."""

from __future__ import annotations

import numpy as np

from phi.common.data_type import DataType
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.optimizers import float_attr, learning_rate_in, same_shape

__all__ = ["adagrad"]


_F = ["float32", "float64"]
_ANY_DTYPE = {"dtype": DataType.ALL_DTYPE}


@register_kernel("adagrad", "CPU", dtypes=_F,
                 input_defs={"learning_rate": _ANY_DTYPE, "master_param": _ANY_DTYPE})
def adagrad(ctx, param: Tensor, grad: Tensor, moment: Tensor, learning_rate: Tensor,
            master_param: Tensor | None, epsilon: float, multi_precision: bool
            ) -> tuple[Tensor, Tensor, Tensor]:
    """moment += g^2; p -= lr g / (sqrt(moment) + eps)."""
    same_shape("adagrad", param, Grad=grad, Moment=moment)
    p_dtype = param.dtype
    m = moment + grad * grad
    lr = learning_rate_in(learning_rate, param.dtype)
    p = param - lr * grad / (np.sqrt(m) + float_attr(epsilon, p_dtype))
    return p.astype(param.dtype), m.astype(param.dtype), None
