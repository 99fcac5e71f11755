"""The ``adagrad_dense_param_sparse_grad`` kernel."""

from __future__ import annotations


from phi.common.data_type import DataType
from phi.core.kernel import LoDTensor, Tensor
from phi.core.registry import register_kernel
from phi.kernels.adagrad import adagrad
from phi.kernels.funcs.selected_rows import dense_grad, keep_rows, need_sr


_F = ["float32", "float64"]
_ANY = {"dtype": DataType.ALL_DTYPE}


@register_kernel("adagrad_dense_param_sparse_grad", "CPU", dtypes=_F,
                 input_defs={"learning_rate": _ANY, "master_param": _ANY})
def adagrad_dense_param_sparse_grad(ctx, param: Tensor, grad: LoDTensor, moment: Tensor,
                                    learning_rate: Tensor, master_param: Tensor | None,
                                    epsilon: float, multi_precision: bool
                                    ) -> tuple[Tensor, Tensor, Tensor]:
    """adagrad on the merged gradient's rows only."""
    rows, dense = dense_grad("adagrad", param, need_sr("adagrad", "Grad", grad))
    p, m, _ = adagrad(ctx, param, dense, moment, learning_rate, None, epsilon, False)
    return keep_rows(p, param, rows), keep_rows(m, moment, rows), None
