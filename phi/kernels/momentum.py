"""The ``momentum`` kernel."""

from __future__ import annotations


from phi.common.data_type import DataType
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.optimizers import (finish_update, learning_rate_in, master_of, momentum_step,
                                          same_shape)

__all__ = ["momentum"]


_F = ["float32", "float64"]
_ANY_DTYPE = {"dtype": DataType.ALL_DTYPE}


@register_kernel("momentum", "CPU", dtypes=_F,
                 input_defs={"learning_rate": _ANY_DTYPE, "master_param": _ANY_DTYPE})
def momentum(ctx, param: Tensor, grad: Tensor, velocity: Tensor, learning_rate: Tensor,
             master_param: Tensor | None, mu: float, use_nesterov: bool,
             regularization_method: str, regularization_coeff: float, multi_precision: bool,
             rescale_grad: float) -> tuple[Tensor, Tensor, Tensor]:
    """v = mu v + g (plus coeff * p under l2_decay); p -= lr v (Nesterov: p -= lr (g + mu v));
    rescale_grad is ignored, as Paddle's CPU kernel ignores it."""
    same_shape("momentum", param, Grad=grad, Velocity=velocity)
    p = master_of(param, master_param, multi_precision)
    p_out, v_out = momentum_step(p, grad.astype(p.dtype), velocity,
                                 learning_rate_in(learning_rate, p.dtype), mu, use_nesterov,
                                 regularization_method,
                                  regularization_coeff, rescale_grad)
    param_out, master_out = finish_update(param, p_out, master_param, multi_precision)
    return param_out, v_out, master_out
