"""The ``sgd`` kernel."""

from __future__ import annotations

import numpy as np

from phi.common.data_type import DataType
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import half_op, to_bfloat16
from phi.kernels.funcs.optimizers import finish_update, learning_rate_in, master_of, same_shape

__all__ = ["sgd"]


_F = ["float32", "float64"]
_ANY_DTYPE = {"dtype": DataType.ALL_DTYPE}


@register_kernel("sgd", "CPU", dtypes=["bfloat16", *_F],
                 input_defs={"learning_rate": _ANY_DTYPE, "master_param": _ANY_DTYPE})
def sgd(ctx, param: Tensor, learning_rate: Tensor, grad: Tensor, master_param: Tensor | None,
        multi_precision: bool) -> tuple[Tensor, Tensor]:
    """param - lr * grad."""
    same_shape("sgd", param, Grad=grad)
    if ctx.data_type(param) is DataType.BFLOAT16:
        return _sgd_bf16(ctx, param, learning_rate, grad)
    p = master_of(param, master_param, multi_precision)
    new = (p - learning_rate_in(learning_rate, p.dtype) * grad.astype(p.dtype)).astype(p.dtype)
    return finish_update(param, new, master_param, multi_precision)


def _sgd_bf16(ctx, param, learning_rate, grad):
    """Paddle's CPU bfloat16 sgd (Paddle-made cases hb_sgd_*bf16): the learning rate as
    bfloat16, then two bfloat16 operations, param - (lr * grad), each truncated; the master
    copy is neither read nor written (MasterParamOut stays as it was)."""
    lr = to_bfloat16(ctx, np.asarray(learning_rate_in(learning_rate, np.float32)))
    step = half_op(ctx, lambda a, b: a * b, lr, grad)
    return half_op(ctx, lambda a, b: a - b, param, step), None
