"""The ``rmsprop`` kernel."""

from __future__ import annotations

import numpy as np

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.optimizers import float_attr, learning_rate_in

__all__ = ["rmsprop"]


_F = ["float32", "float64"]
_ANY_DTYPE = {"dtype": DataType.ALL_DTYPE}


@register_kernel("rmsprop", "CPU", dtypes=_F,
                 input_defs={"learning_rate": _ANY_DTYPE, "master_param": _ANY_DTYPE})
def rmsprop(ctx, param: Tensor, mean_square: Tensor, grad: Tensor, moment: Tensor,
            learning_rate: Tensor, mean_grad: Tensor | None, master_param: Tensor | None,
            epsilon: float, decay: float, momentum: float, centered: bool,
            multi_precision: bool) -> tuple[Tensor, Tensor, Tensor, Tensor, Tensor]:
    """ms = decay ms + (1 - decay) g^2; (centered: mg likewise, ms - mg^2 below);
    mom = momentum mom + lr g / sqrt(ms + eps); p -= mom."""
    t = param.dtype.type
    p_dtype = param.dtype
    rho, eps = float_attr(decay, p_dtype), float_attr(epsilon, p_dtype)
    lr = learning_rate_in(learning_rate, param.dtype)
    ms = rho * mean_square + (t(1) - rho) * grad * grad
    mg = None
    if centered:
        if mean_grad is None:
            raise InvalidArgument("rmsprop: centered needs Input(MeanGrad).")
        mg = (rho * mean_grad + (t(1) - rho) * grad).astype(param.dtype)
        mom = float_attr(momentum, p_dtype) * moment + lr * grad / np.sqrt(ms - mg * mg + eps)
    else:
        mom = float_attr(momentum, p_dtype) * moment + lr * grad / np.sqrt(ms + eps)
    p = param - mom
    return (p.astype(param.dtype), mom.astype(param.dtype), ms.astype(param.dtype), mg, None)
