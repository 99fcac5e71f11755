"""The ``merged_adam`` kernel."""

from __future__ import annotations

import numpy as np

from phi.common.scalar import Scalar
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.optimizers import (adam_core, float_attr, learning_rate_in, same_shape,
                                          scalar_in)

__all__ = ["merged_adam"]


def _scalar(x, dtype) -> np.generic:
    return float_attr(x.value if isinstance(x, Scalar) else x, dtype)


@register_kernel("merged_adam", "CPU", dtypes=["float32", "float64"])
def merged_adam(ctx, param: list[Tensor], grad: list[Tensor], learning_rate: list[Tensor],
                moment1: list[Tensor], moment2: list[Tensor], beta1_pow: list[Tensor],
                beta2_pow: list[Tensor], master_param: list[Tensor], beta1: Scalar,
                beta2: Scalar, epsilon: Scalar, multi_precision: bool,
                use_global_beta_pow: bool
                ) -> tuple[list[Tensor], list[Tensor], list[Tensor], list[Tensor], list[Tensor],
                           list[Tensor]]:
    """``adam`` on every parameter with its own learning rate and beta powers (Paddle's CPU
    AdamFunctor, the same arithmetic as adam's); the beta powers advance unless
    use_global_beta_pow; the CPU kernel ignores master copies."""
    n = len(param)
    for slot, ts in (("Grad", grad), ("LearningRate", learning_rate), ("Moment1", moment1),
                     ("Moment2", moment2), ("Beta1Pow", beta1_pow), ("Beta2Pow", beta2_pow)):
        if len(ts) != n:
            raise InvalidArgument(f"merged_adam: The size of Input({slot}) must be equal to "
                                  f"Input(Param), but got the size of Input({slot}) is "
                                  f"{len(ts)}, the size of Input(Param) is {n}.")
    outs = ([], [], [], [], [])
    for i, p in enumerate(param):
        same_shape("merged_adam", p, Grad=grad[i], Moment1=moment1[i], Moment2=moment2[i])
        t = p.dtype
        b1, b2, eps = _scalar(beta1, t), _scalar(beta2, t), _scalar(epsilon, t)
        b1pow = scalar_in(beta1_pow[i], t, "Beta1Pow")
        b2pow = scalar_in(beta2_pow[i], t, "Beta2Pow")
        p_out, m1, m2 = adam_core(p, grad[i].astype(t), learning_rate_in(learning_rate[i], t),
                                  moment1[i], moment2[i], b1pow, b2pow, b1, b2, eps)
        for k, v in enumerate((p_out, m1, m2)):
            outs[k].append(v)
        if not use_global_beta_pow:
            outs[3].append(np.full(beta1_pow[i].shape, b1 * b1pow, t))
            outs[4].append(np.full(beta2_pow[i].shape, b2 * b2pow, t))
    if use_global_beta_pow:
        return outs[0], outs[1], outs[2], None, None, None
    return (*outs, None)
