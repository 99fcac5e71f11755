"""The ``adamw`` kernel."""

from __future__ import annotations


from phi.common.data_type import DataType
from phi.common.scalar import Scalar
from phi.core.kernel import Int64, Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.optimizers import adam_update

__all__ = ["adamw"]


_F = ["float32", "float64"]
_ANY_DTYPE = {"dtype": DataType.ALL_DTYPE}


_ADAM_INPUTS = {"learning_rate": _ANY_DTYPE, "beta1_pow": _ANY_DTYPE, "beta2_pow": _ANY_DTYPE,
                "master_param": _ANY_DTYPE, "skip_update": _ANY_DTYPE}
_ADAM_OUTPUTS = {3: {"dtype": DataType.ALL_DTYPE}, 4: {"dtype": DataType.ALL_DTYPE}}


@register_kernel("adamw", "CPU", dtypes=_F, input_defs=_ADAM_INPUTS, output_defs=_ADAM_OUTPUTS)
def adamw(ctx, param: Tensor, grad: Tensor, learning_rate: Tensor, moment1: Tensor,
          moment2: Tensor, beta1_pow: Tensor, beta2_pow: Tensor, master_param: Tensor | None,
          skip_update: Tensor | None, beta1: Scalar, beta2: Scalar, epsilon: Scalar,
          lr_ratio: float, coeff: float, with_decay: bool, lazy_mode: bool,
          min_row_size_to_use_multithread: Int64, multi_precision: bool,
          use_global_beta_pow: bool
          ) -> tuple[Tensor, Tensor, Tensor, Tensor, Tensor, Tensor]:
    """adam with decoupled weight decay: p -= lr * lr_ratio * coeff * p first, then the adam
    step scaled by lr_ratio; without with_decay, plain adam."""
    # without with_decay Paddle runs the adam kernel itself (lr_ratio unused)
    return adam_update("adamw", param, grad, learning_rate, moment1, moment2, beta1_pow, beta2_pow,
                 master_param, skip_update, beta1, beta2, epsilon, multi_precision,
                 use_global_beta_pow, decay=(coeff, lr_ratio) if with_decay else None)
