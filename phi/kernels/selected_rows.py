"""SelectedRows kernels (issue 13, item 4): phi/kernels/selected_rows/ of Paddle 2.6.2.

Arguments that are SelectedRows are annotated ``LoDTensor``: the kernel receives (and returns)
the tensor object, a ``phi.core.selected_rows.SelectedRows``, not its array.  Rows follow
Paddle's functors: ``embedding_sparse_grad`` keeps the ids as they come (repeats included),
``merge_selected_rows`` / ``add_n_sr`` and the optimizers merge repeated rows first (MergeAdd:
rows sorted ascending, values summed).  The optimizers' dense-parameter sparse-gradient forms
compute what Paddle's sparse functors compute: sgd subtracts each row of the gradient in turn;
adagrad and lazy adam touch only the gradient's rows; momentum, rmsprop and non-lazy adam run
the dense update with absent rows as zero gradient.
"""

from __future__ import annotations

import numpy as np

from phi.common.data_type import DataType
from phi.common.int_array import IntArray
from phi.common.scalar import Scalar
from phi.core.errors import InvalidArgument, NotFound
from phi.core.kernel import Int64, LoDTensor, Tensor
from phi.core.registry import register_kernel
from phi.core.selected_rows import SelectedRows, is_selected_rows
from phi.kernels import creation, elementwise, optimizers, scale as scale_mod

__all__ = ["merge_rows"]

_F = ["float32", "float64"]
_ANY = {"dtype": DataType.ALL_DTYPE}


def _sr(ctx, rows, height, array) -> SelectedRows:
    return SelectedRows(rows, height, array, ctx.data_type(array), ctx.place)


def _need_sr(op: str, slot: str, x) -> SelectedRows:
    if not is_selected_rows(x):
        raise InvalidArgument(f"{op}: input `{slot}` must be a SelectedRows, got a "
                              f"{type(x).__name__}.")
    return x


def merge_rows(x: SelectedRows) -> tuple[list[int], np.ndarray]:
    """Paddle's MergeAdd: unique rows ascending, the values of repeated rows summed."""
    if not x.rows:
        return [], x.data[:0]
    unique, inverse = np.unique(np.asarray(x.rows, np.int64), return_inverse=True)
    out = np.zeros((len(unique), *x.data.shape[1:]), dtype=x.data.dtype)
    np.add.at(out, inverse.reshape(-1), x.data)
    return [int(r) for r in unique], out


def _dense_grad(op: str, param: np.ndarray, grad: SelectedRows) -> tuple[list[int], np.ndarray]:
    """(merged rows, the gradient as a dense array of param's shape, absent rows zero)."""
    if grad.height != param.shape[0] or grad.data.shape[1:] != param.shape[1:]:
        raise InvalidArgument(f"{op}: Grad (SelectedRows of height {grad.height}, value "
                              f"{list(grad.data.shape)}) does not fit Param {list(param.shape)}.")
    rows, value = merge_rows(grad)
    dense = np.zeros(param.shape, dtype=param.dtype)
    if rows:
        dense[np.asarray(rows)] = value
    return rows, dense


def _keep_rows(new: np.ndarray, old: np.ndarray, rows: list[int]) -> np.ndarray:
    """``new`` on ``rows``, ``old`` elsewhere (an update that touches only the gradient's rows)."""
    out = old.copy()
    if rows:
        out[np.asarray(rows)] = new[np.asarray(rows)]
    return out


# -- value kernels ------------------------------------------------------------------------------

@register_kernel("scale_sr", "CPU", dtypes=["bfloat16", "float32", "float64", "int16", "int32",
                                            "int64", "int8", "uint8"])
def scale_sr(ctx, x: LoDTensor, scale: Scalar, bias: float, bias_after_scale: bool) -> LoDTensor:
    """scale on the value; rows and height kept."""
    x = _need_sr("scale_sr", "X", x)
    fn = scale_mod.scale_float if x.dtype in (DataType.FLOAT32, DataType.FLOAT64,
                                              DataType.BFLOAT16) else scale_mod.scale
    return _sr(ctx, x.rows, x.height, fn(ctx, x.data, scale, bias, bias_after_scale))


@register_kernel("full_sr", "CPU", dtypes=["bfloat16", "bool", "complex128", "complex64",
                                           "float16", "float32", "float64", "int16", "int32",
                                           "int64", "uint8"])
def full_sr(ctx, shape: IntArray, value: Scalar, dtype: DataType) -> LoDTensor:
    """A SelectedRows without rows whose value is full(shape, value); height shape[0]."""
    array = creation.full(ctx, shape, value, dtype)
    return _sr(ctx, (), array.shape[0] if array.ndim else 0, array)


@register_kernel("merge_selected_rows", "CPU", dtypes=_F)
def merge_selected_rows(ctx, x: LoDTensor) -> LoDTensor:
    """Repeated rows summed, rows ascending (MergeAdd)."""
    x = _need_sr("merge_selected_rows", "X", x)
    rows, value = merge_rows(x)
    return _sr(ctx, rows, x.height, value)


@register_kernel("add_n_sr", "CPU", dtypes=["bfloat16", "float32", "float64", "int32", "int64"])
def add_n_sr(ctx, x: list[LoDTensor]) -> LoDTensor:
    """The SelectedRows inputs merged into one (MergeAdd over all of them)."""
    srs = [_need_sr("add_n_sr", f"X[{i}]", t) for i, t in enumerate(x)]
    heights = {t.height for t in srs}
    if len(heights) > 1:
        raise InvalidArgument(f"add_n_sr: the SelectedRows inputs have different heights "
                              f"{sorted(heights)}.")
    values = [t.data for t in srs if t.rows]
    rows = [r for t in srs for r in t.rows]
    if not values:
        return _sr(ctx, (), srs[0].height, srs[0].data[:0])
    merged_rows, value = merge_rows(SelectedRows(rows, srs[0].height,
                                                 np.concatenate(values, axis=0)))
    return _sr(ctx, merged_rows, srs[0].height, value)


@register_kernel("embedding_sparse_grad", "CPU", dtypes=["bfloat16", "float32", "float64"],
                 input_defs={"x": _ANY})
def embedding_sparse_grad(ctx, x: Tensor, weight: Tensor, out_grad: Tensor,
                          padding_idx: Int64) -> LoDTensor:
    """W@GRAD as SelectedRows: rows are the ids as given, value the rows of Out@GRAD."""
    if x.dtype not in (np.int32, np.int64):
        raise InvalidArgument(f"embedding_sparse_grad: Ids must be int32 or int64, got "
                              f"{x.dtype}.")
    ids = x.reshape(-1).astype(np.int64)
    value = out_grad.reshape(ids.size, *weight.shape[1:]).copy()
    return _sr(ctx, ids.tolist(), weight.shape[0], value)


def _table_ids(op: str, x, weight) -> tuple[np.ndarray, SelectedRows]:
    """The ids as int64 and the SelectedRows table they index (its full height)."""
    if x.dtype not in (np.int32, np.int64):
        raise InvalidArgument(f"{op}: Ids must be int32 or int64, got {x.dtype}.")
    return x.reshape(-1).astype(np.int64), _need_sr(op, "W", weight)


@register_kernel("sparse_weight_embedding_grad", "CPU", dtypes=["bfloat16", "float32", "float64"],
                 input_defs={"x": _ANY})
def sparse_weight_embedding_grad(ctx, x: Tensor, weight: LoDTensor, out_grad: Tensor,
                                 padding_idx: Int64) -> Tensor:
    """W (a SelectedRows table) -> a dense W@GRAD of its full ``[height, D]``: each id's
    Out@GRAD row added into the id's row (the ids index the whole height, not W's rows);
    padding_idx rows stay zero."""
    ids, table = _table_ids("sparse_weight_embedding_grad", x, weight)
    height, width = table.height, int(np.prod(table.data.shape[1:], dtype=np.int64))
    bad = (ids < 0) | (ids >= height)
    if bad.any():
        raise InvalidArgument(f"Variable value (input) of OP(paddle.nn.functional.embedding) "
                              f"expected >= 0 and < {height}, but got {int(ids[bad][0])}. "
                              "Please check input value.")
    grad = np.zeros((height, width), out_grad.dtype)
    keep = ids != padding_idx if padding_idx != -1 else np.ones(ids.shape, bool)
    np.add.at(grad, ids[keep], out_grad.reshape(ids.size, width)[keep])
    return grad.reshape(height, *table.data.shape[1:])


@register_kernel("sparse_weight_embedding_sparse_grad", "CPU",
                 dtypes=["bfloat16", "float32", "float64"], input_defs={"x": _ANY})
def sparse_weight_embedding_sparse_grad(ctx, x: Tensor, weight: LoDTensor, out_grad: Tensor,
                                        padding_idx: Int64) -> LoDTensor:
    """W@GRAD as SelectedRows of W's height: rows are the ids as given (padding_idx
    included, as Paddle keeps it), value the rows of Out@GRAD."""
    ids, table = _table_ids("sparse_weight_embedding_sparse_grad", x, weight)
    value = out_grad.reshape(ids.size, *table.data.shape[1:]).copy()
    return _sr(ctx, ids.tolist(), table.height, value)


# -- optimizers: dense Param, SelectedRows Grad -------------------------------------------------

@register_kernel("sgd_dense_param_sparse_grad", "CPU", dtypes=["bfloat16", *_F],
                 input_defs={"learning_rate": _ANY, "master_param": _ANY})
def sgd_dense_param_sparse_grad(ctx, param: Tensor, learning_rate: Tensor, grad: LoDTensor,
                                master_param: Tensor | None, multi_precision: bool
                                ) -> tuple[Tensor, Tensor]:
    """p[rows[i]] -= lr * value[i], row by row (repeated rows each applied)."""
    grad = _need_sr("sgd", "Grad", grad)
    if grad.rows and max(grad.rows) >= param.shape[0]:
        raise InvalidArgument(f"sgd: Grad's rows {grad.rows} exceed Param's height "
                              f"{param.shape[0]}.")
    p = optimizers._master(param, master_param, multi_precision)
    out = p.copy()
    lr = optimizers._lr(learning_rate, out.dtype)
    for i, r in enumerate(grad.rows):
        out[r] = (out[r] - lr * grad.data[i].astype(out.dtype)).astype(out.dtype)
    return optimizers._finish(param, out, master_param, multi_precision)


@register_kernel("adagrad_dense_param_sparse_grad", "CPU", dtypes=_F,
                 input_defs={"learning_rate": _ANY, "master_param": _ANY})
def adagrad_dense_param_sparse_grad(ctx, param: Tensor, grad: LoDTensor, moment: Tensor,
                                    learning_rate: Tensor, master_param: Tensor | None,
                                    epsilon: float, multi_precision: bool
                                    ) -> tuple[Tensor, Tensor, Tensor]:
    """adagrad on the merged gradient's rows only."""
    rows, dense = _dense_grad("adagrad", param, _need_sr("adagrad", "Grad", grad))
    p, m, _ = optimizers.adagrad(ctx, param, dense, moment, learning_rate, None, epsilon, False)
    return _keep_rows(p, param, rows), _keep_rows(m, moment, rows), None


@register_kernel("momentum_dense_param_sparse_grad", "CPU", dtypes=_F,
                 input_defs={"learning_rate": _ANY, "master_param": _ANY})
def momentum_dense_param_sparse_grad(ctx, param: Tensor, grad: LoDTensor, velocity: Tensor,
                                     learning_rate: Tensor, master_param: Tensor | None,
                                     mu: float, use_nesterov: bool, regularization_method: str,
                                     regularization_coeff: float, multi_precision: bool,
                                     rescale_grad: float) -> tuple[Tensor, Tensor, Tensor]:
    """momentum over every row, absent rows a zero gradient (SparseMomentumFunctor), the
    gradient scaled by rescale_grad."""
    _, dense = _dense_grad("momentum", param, _need_sr("momentum", "Grad", grad))
    dense = (dense * dense.dtype.type(rescale_grad)).astype(param.dtype)
    return optimizers.momentum(ctx, param, dense, velocity, learning_rate, master_param, mu,
                               use_nesterov, regularization_method, regularization_coeff,
                               multi_precision, rescale_grad)


@register_kernel("rmsprop_dense_param_sparse_grad", "CPU", dtypes=_F,
                 input_defs={"learning_rate": _ANY, "master_param": _ANY})
def rmsprop_dense_param_sparse_grad(ctx, param: Tensor, mean_square: Tensor, grad: LoDTensor,
                                    moment: Tensor, learning_rate: Tensor,
                                    mean_grad: Tensor | None, master_param: Tensor | None,
                                    epsilon: float, decay: float, momentum: float,
                                    centered: bool, multi_precision: bool
                                    ) -> tuple[Tensor, Tensor, Tensor, Tensor, Tensor]:
    """rmsprop over every row, absent rows a zero gradient (SparseRmspropGradFunctor)."""
    _, dense = _dense_grad("rmsprop", param, _need_sr("rmsprop", "Grad", grad))
    return optimizers.rmsprop(ctx, param, mean_square, dense, moment, learning_rate, mean_grad,
                              master_param, epsilon, decay, momentum, centered, multi_precision)


@register_kernel("adam_dense_param_sparse_grad", "CPU", dtypes=_F,
                 input_defs=optimizers._ADAM_INPUTS, output_defs=optimizers._ADAM_OUTPUTS)
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
    rows, dense = _dense_grad("adam", param, _need_sr("adam", "Grad", grad))
    pows = beta1_pow, beta2_pow
    if not use_global_beta_pow:
        # Paddle's CPU kernel writes Beta1PowOut / Beta2PowOut before the update, and programs
        # alias them with Beta1Pow / Beta2Pow: the update sees the advanced powers
        t = param.dtype
        beta1_pow = (beta1_pow * optimizers._f(beta1, t).astype(beta1_pow.dtype)).astype(
            beta1_pow.dtype)
        beta2_pow = (beta2_pow * optimizers._f(beta2, t).astype(beta2_pow.dtype)).astype(
            beta2_pow.dtype)
    p, m1, m2, _, _, master = optimizers._adam(
        "adam", param, dense, learning_rate, moment1, moment2, beta1_pow, beta2_pow,
        master_param, skip_update, beta1, beta2, epsilon, multi_precision, True)
    b1 = b2 = None
    if not use_global_beta_pow and not optimizers._skip(skip_update):
        b1, b2 = beta1_pow, beta2_pow
    elif not use_global_beta_pow:
        b1, b2 = pows[0].copy(), pows[1].copy()
    if lazy_mode and not optimizers._skip(skip_update):
        p, m1, m2 = (_keep_rows(p, param, rows), _keep_rows(m1, moment1, rows),
                     _keep_rows(m2, moment2, rows))
    return p, m1, m2, b1, b2, master


@register_kernel("sgd_sparse_param_sparse_grad", "CPU", dtypes=["bfloat16", *_F],
                 input_defs={"learning_rate": _ANY, "master_param": _ANY})
def sgd_sparse_param_sparse_grad(ctx, param: LoDTensor, learning_rate: Tensor, grad: LoDTensor,
                                 master_param: LoDTensor | None, multi_precision: bool
                                 ) -> tuple[LoDTensor, LoDTensor]:
    """Paddle looks each Grad row up in Param's row index (AutoGrownIndex without growing);
    that index is only built by parameter-server tables, never by a kernel's SelectedRows, so
    any Grad row is NotFound ("Input key(r) is not found."), as in Paddle 2.6.2; an empty Grad
    leaves Param as it is."""
    param = _need_sr("sgd", "Param", param)
    grad = _need_sr("sgd", "Grad", grad)
    if grad.rows:
        raise NotFound(f"sgd: Input key({grad.rows[0]}) is not found (the SelectedRows Param "
                       "has no row index; Paddle builds one only for parameter-server "
                       "tables).")
    return _sr(ctx, param.rows, param.height, param.data.copy()), None


_MULTIPLY_SR = ["bfloat16", "bool", "complex128", "complex64", "float32", "float64", "int32",
                "int64"]


@register_kernel("multiply_raw_sr", "CPU", dtypes=_MULTIPLY_SR)
def multiply_raw_sr(ctx, x: LoDTensor, y: Tensor, axis: int) -> LoDTensor:
    """multiply_raw of X's value and Y; rows and height kept."""
    x = _need_sr("multiply_raw_sr", "X", x)
    if y.ndim != 1 or y.shape[0] != 1:
        # Paddle's elementwise InferShape for a SelectedRows X
        raise InvalidArgument("multiply: For elementwise_op, if X is Sparse(VarType."
                              "SELECTED_ROWS), Y must be scalar, the first dimension of Y "
                              f"should be 1. But received Y's dims {list(y.shape)}.")
    fn = (elementwise.multiply_raw_bf16 if x.dtype is DataType.BFLOAT16
          else elementwise.multiply_raw)
    return _sr(ctx, x.rows, x.height, fn(ctx, x.data, y, axis))


@register_kernel("multiply_sr", "CPU", dtypes=_MULTIPLY_SR)
def multiply_sr(ctx, x: LoDTensor, y: Tensor) -> LoDTensor:
    """multiply of X's value and Y; rows and height kept."""
    return multiply_raw_sr(ctx, x, y, -1)
