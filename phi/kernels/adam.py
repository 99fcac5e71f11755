"""The ``adam`` kernel."""

from __future__ import annotations


from phi.common.data_type import DataType
from phi.common.scalar import Scalar
from phi.core.kernel import Int64, Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.optimizers import adam_update

__all__ = ["adam"]


_F = ["float32", "float64"]
_ANY_DTYPE = {"dtype": DataType.ALL_DTYPE}


_ADAM_INPUTS = {"learning_rate": _ANY_DTYPE, "beta1_pow": _ANY_DTYPE, "beta2_pow": _ANY_DTYPE,
                "master_param": _ANY_DTYPE, "skip_update": _ANY_DTYPE}
_ADAM_OUTPUTS = {3: {"dtype": DataType.ALL_DTYPE}, 4: {"dtype": DataType.ALL_DTYPE}}


@register_kernel("adam", "CPU", dtypes=_F, input_defs=_ADAM_INPUTS, output_defs=_ADAM_OUTPUTS)
def adam(ctx, param: Tensor, grad: Tensor, learning_rate: Tensor, moment1: Tensor,
         moment2: Tensor, beta1_pow: Tensor, beta2_pow: Tensor, master_param: Tensor | None,
         skip_update: Tensor | None, beta1: Scalar, beta2: Scalar, epsilon: Scalar,
         lazy_mode: bool, min_row_size_to_use_multithread: Int64, multi_precision: bool,
         use_global_beta_pow: bool
         ) -> tuple[Tensor, Tensor, Tensor, Tensor, Tensor, Tensor]:
    """lr_t = lr sqrt(1 - b2^t) / (1 - b1^t); m1, m2 moving averages of g, g^2;
    p -= lr_t m1 / (sqrt(m2) + eps sqrt(1 - b2^t)); the beta powers advance."""
    return adam_update("adam", param, grad, learning_rate, moment1, moment2, beta1_pow, beta2_pow,
                 master_param, skip_update, beta1, beta2, epsilon, multi_precision,
                 use_global_beta_pow)
