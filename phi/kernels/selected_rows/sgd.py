"""The ``sgd_dense_param_sparse_grad`` and ``sgd_sparse_param_sparse_grad`` kernels."""

from __future__ import annotations


from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument, NotFound
from phi.core.kernel import LoDTensor, Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.optimizers import finish_update, learning_rate_in, master_of
from phi.kernels.funcs.selected_rows import make_selected_rows, need_sr


_F = ["float32", "float64"]
_ANY = {"dtype": DataType.ALL_DTYPE}


# -- optimizers: dense Param, SelectedRows Grad -------------------------------------------------

@register_kernel("sgd_dense_param_sparse_grad", "CPU", dtypes=["bfloat16", *_F],
                 input_defs={"learning_rate": _ANY, "master_param": _ANY})
def sgd_dense_param_sparse_grad(ctx, param: Tensor, learning_rate: Tensor, grad: LoDTensor,
                                master_param: Tensor | None, multi_precision: bool
                                ) -> tuple[Tensor, Tensor]:
    """p[rows[i]] -= lr * value[i], row by row (repeated rows each applied)."""
    grad = need_sr("sgd", "Grad", grad)
    if grad.rows and max(grad.rows) >= param.shape[0]:
        raise InvalidArgument(f"sgd: Grad's rows {grad.rows} exceed Param's height "
                              f"{param.shape[0]}.")
    p = master_of(param, master_param, multi_precision)
    out = p.copy()
    lr = learning_rate_in(learning_rate, out.dtype)
    for i, r in enumerate(grad.rows):
        out[r] = (out[r] - lr * grad.data[i].astype(out.dtype)).astype(out.dtype)
    return finish_update(param, out, master_param, multi_precision)


@register_kernel("sgd_sparse_param_sparse_grad", "CPU", dtypes=["bfloat16", *_F],
                 input_defs={"learning_rate": _ANY, "master_param": _ANY})
def sgd_sparse_param_sparse_grad(ctx, param: LoDTensor, learning_rate: Tensor, grad: LoDTensor,
                                 master_param: LoDTensor | None, multi_precision: bool
                                 ) -> tuple[LoDTensor, LoDTensor]:
    """Paddle looks each Grad row up in Param's row index (AutoGrownIndex without growing);
    that index is only built by parameter-server tables, never by a kernel's SelectedRows, so
    any Grad row is NotFound ("Input key(r) is not found."), as in Paddle 2.6.2; an empty Grad
    leaves Param as it is."""
    param = need_sr("sgd", "Param", param)
    grad = need_sr("sgd", "Grad", grad)
    if grad.rows:
        raise NotFound(f"sgd: Input key({grad.rows[0]}) is not found (the SelectedRows Param "
                       "has no row index; Paddle builds one only for parameter-server "
                       "tables).")
    return make_selected_rows(ctx, param.rows, param.height, param.data.copy()), None
