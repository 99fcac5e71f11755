"""The ``dgc_momentum`` kernel."""

from __future__ import annotations

import numpy as np

from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.optimizers import learning_rate_in, momentum_step, same_shape, scalar_in

__all__ = ["dgc_momentum"]


@register_kernel("dgc_momentum", "CPU", dtypes=["float32"])
def dgc_momentum(ctx, param: Tensor, grad: Tensor, velocity: Tensor, learning_rate: Tensor,
                 master_param: Tensor | None, current_step: Tensor, nranks: Tensor, mu: float,
                 use_nesterov: bool, regularization_method: str, regularization_coeff: float,
                 multi_precision: bool, rescale_grad: float, rampup_begin_step: float
                 ) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """Grad_out = g / nranks; before rampup_begin_step a momentum step, from it on an sgd step
    (velocity kept); nothing at all when rampup_begin_step < 0."""
    if int(rampup_begin_step) < 0:
        return None, None, None, None
    n = int(scalar_in(nranks, np.float32, "nranks"))
    if n <= 1:
        raise InvalidArgument(f"dgc_momentum: DGC is not useful when num_trainers <= 1, but now "
                              f"nranks={n}.")
    same_shape("dgc_momentum", param, Grad=grad, Velocity=velocity)
    grad_out = (param.dtype.type(1.0 / n) * grad).astype(param.dtype)
    # Paddle's programs (and its kernel, which only runs so) hold Grad_out in Grad's variable:
    # the momentum / sgd step below reads the gradient already divided by nranks
    lr = learning_rate_in(learning_rate, param.dtype)
    if int(scalar_in(current_step, np.float32, "current_step")) < int(rampup_begin_step):
        if multi_precision:  # Paddle hands the momentum kernel no master copy
            raise InvalidArgument("dgc_momentum: The Input(MasterParam) and "
                                  "Output(MasterParamOut) should not be null when the attr "
                                  "`multi_precision` is true")
        p_out, v_out = momentum_step(param, grad_out, velocity, lr, mu, use_nesterov,
                                      regularization_method, regularization_coeff, rescale_grad)
        return p_out, v_out, None, grad_out
    # the sgd step: Paddle's CPU SGD kernel ignores the master copy
    return (param - lr * grad_out).astype(param.dtype), None, None, grad_out
