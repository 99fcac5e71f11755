"""The ``adam_dense_param_sparse_grad`` kernel."""

from __future__ import annotations


from phi.common.data_type import DataType
from phi.common.scalar import Scalar
from phi.core.kernel import Int64, LoDTensor, Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.optimizers import adam_update, float_attr, skips_update
from phi.kernels.funcs.selected_rows import dense_grad, keep_rows, need_sr


_ANY_DTYPE = {"dtype": DataType.ALL_DTYPE}


_ADAM_INPUTS = {"learning_rate": _ANY_DTYPE, "beta1_pow": _ANY_DTYPE, "beta2_pow": _ANY_DTYPE,
                "master_param": _ANY_DTYPE, "skip_update": _ANY_DTYPE}
_ADAM_OUTPUTS = {3: {"dtype": DataType.ALL_DTYPE}, 4: {"dtype": DataType.ALL_DTYPE}}


_F = ["float32", "float64"]


@register_kernel("adam_dense_param_sparse_grad", "CPU", dtypes=_F,
                 input_defs=_ADAM_INPUTS, output_defs=_ADAM_OUTPUTS)
def adam_dense_param_sparse_grad(ctx, param: Tensor, grad: LoDTensor, learning_rate: Tensor,
                                 moment1: Tensor, moment2: Tensor, beta1_pow: Tensor,
                                 beta2_pow: Tensor, master_param: Tensor | None,
                                 skip_update: Tensor | None, beta1: Scalar, beta2: Scalar,
                                 epsilon: Scalar, lazy_mode: bool,
                                 min_row_size_to_use_multithread: Int64, multi_precision: bool,
                                 use_global_beta_pow: bool
                                 ) -> tuple[Tensor, Tensor, Tensor, Tensor, Tensor, Tensor]:
    """adam on the merged gradient: lazy_mode updates only its rows, otherwise every row with
    absent rows a zero gradient (SparseAdamFunctor)."""
    rows, dense = dense_grad("adam", param, need_sr("adam", "Grad", grad))
    pows = beta1_pow, beta2_pow
    if not use_global_beta_pow:
        # Paddle's CPU kernel writes Beta1PowOut / Beta2PowOut before the update, and programs
        # alias them with Beta1Pow / Beta2Pow: the update sees the advanced powers
        t = param.dtype
        beta1_pow = (beta1_pow * float_attr(beta1, t).astype(beta1_pow.dtype)).astype(
            beta1_pow.dtype)
        beta2_pow = (beta2_pow * float_attr(beta2, t).astype(beta2_pow.dtype)).astype(
            beta2_pow.dtype)
    p, m1, m2, _, _, master = adam_update(
        "adam", param, dense, learning_rate, moment1, moment2, beta1_pow, beta2_pow,
        master_param, skip_update, beta1, beta2, epsilon, multi_precision, True)
    b1 = b2 = None
    if not use_global_beta_pow and not skips_update(skip_update):
        b1, b2 = beta1_pow, beta2_pow
    elif not use_global_beta_pow:
        b1, b2 = pows[0].copy(), pows[1].copy()
    if lazy_mode and not skips_update(skip_update):
        p, m1, m2 = (keep_rows(p, param, rows), keep_rows(m1, moment1, rows),
                     keep_rows(m2, moment2, rows))
    return p, m1, m2, b1, b2, master
