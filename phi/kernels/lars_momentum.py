"""The ``lars_momentum`` kernel."""

from __future__ import annotations

import numpy as np

from phi.common.data_type import DataType
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.optimizers import float_attr, learning_rate_in

__all__ = ["lars_momentum"]


_F = ["float32", "float64"]
_ANY_DTYPE = {"dtype": DataType.ALL_DTYPE}


@register_kernel("lars_momentum", "CPU", dtypes=_F,
                 input_defs={"learning_rate": _ANY_DTYPE, "master_param": _ANY_DTYPE})
def lars_momentum(ctx, param: list[Tensor], velocity: list[Tensor], learning_rate: list[Tensor],
                  grad: list[Tensor], master_param: list[Tensor],
                  lars_weight_decay: list[float], mu: float, lars_coeff: float, epsilon: float,
                  multi_precision: bool, rescale_grad: float
                  ) -> tuple[list[Tensor], list[Tensor], list[Tensor]]:
    """Layer-wise adaptive rate: local_lr = lr * coeff * |p| / (|g| + wd |p| + eps) when wd,
    |p| and |g| are positive; v = mu v + local_lr (g + wd p); p -= v."""
    outs_p, outs_v = [], []
    for i, p in enumerate(param):
        t = p.dtype.type
        p_dtype = p.dtype
        g = t(rescale_grad) * grad[i].astype(p.dtype)
        wd = float_attr(lars_weight_decay[i] if i < len(lars_weight_decay)
                        else lars_weight_decay[0], p_dtype)
        lr = learning_rate_in(learning_rate[i if len(learning_rate) > i else 0], p.dtype)
        p_norm = np.sqrt(np.sum(p * p, dtype=p.dtype))
        g_norm = np.sqrt(np.sum(g * g, dtype=p.dtype))
        local_lr = lr
        if wd > 0 and p_norm > 0 and g_norm > 0:
            local_lr = lr * float_attr(lars_coeff, p_dtype) * p_norm / (
                g_norm + wd * p_norm + float_attr(epsilon, p_dtype))
        v_out = velocity[i] * float_attr(mu, p_dtype) + local_lr * (g + wd * p)
        outs_p.append((p - v_out).astype(p.dtype))
        outs_v.append(v_out.astype(p.dtype))
    return outs_p, outs_v, None
