"""The ``rmsprop_dense_param_sparse_grad`` kernel."""

from __future__ import annotations


from phi.common.data_type import DataType
from phi.core.kernel import LoDTensor, Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.selected_rows import dense_grad, need_sr
from phi.kernels.rmsprop import rmsprop


_F = ["float32", "float64"]
_ANY = {"dtype": DataType.ALL_DTYPE}


@register_kernel("rmsprop_dense_param_sparse_grad", "CPU", dtypes=_F,
                 input_defs={"learning_rate": _ANY, "master_param": _ANY})
def rmsprop_dense_param_sparse_grad(ctx, param: Tensor, mean_square: Tensor, grad: LoDTensor,
                                    moment: Tensor, learning_rate: Tensor,
                                    mean_grad: Tensor | None, master_param: Tensor | None,
                                    epsilon: float, decay: float, momentum: float,
                                    centered: bool, multi_precision: bool
                                    ) -> tuple[Tensor, Tensor, Tensor, Tensor, Tensor]:
    """rmsprop over every row, absent rows a zero gradient (SparseRmspropGradFunctor)."""
    _, dense = dense_grad("rmsprop", param, need_sr("rmsprop", "Grad", grad))
    return rmsprop(ctx, param, mean_square, dense, moment, learning_rate, mean_grad,
                              master_param, epsilon, decay, momentum, centered, multi_precision)
