"""The ``momentum_dense_param_sparse_grad`` kernel."""

from __future__ import annotations


from phi.common.data_type import DataType
from phi.core.kernel import LoDTensor, Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.selected_rows import dense_grad, need_sr
from phi.kernels.momentum import momentum


_F = ["float32", "float64"]
_ANY = {"dtype": DataType.ALL_DTYPE}


@register_kernel("momentum_dense_param_sparse_grad", "CPU", dtypes=_F,
                 input_defs={"learning_rate": _ANY, "master_param": _ANY})
def momentum_dense_param_sparse_grad(ctx, param: Tensor, grad: LoDTensor, velocity: Tensor,
                                     learning_rate: Tensor, master_param: Tensor | None,
                                     mu: float, use_nesterov: bool, regularization_method: str,
                                     regularization_coeff: float, multi_precision: bool,
                                     rescale_grad: float) -> tuple[Tensor, Tensor, Tensor]:
    """momentum over every row, absent rows a zero gradient (SparseMomentumFunctor), the
    gradient scaled by rescale_grad."""
    _, dense = dense_grad("momentum", param, need_sr("momentum", "Grad", grad))
    dense = (dense * dense.dtype.type(rescale_grad)).astype(param.dtype)
    return momentum(ctx, param, dense, velocity, learning_rate, master_param, mu,
                               use_nesterov, regularization_method, regularization_coeff,
                               multi_precision, rescale_grad)
