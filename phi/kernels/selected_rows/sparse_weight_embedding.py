"""The ``sparse_weight_embedding_grad`` and ``sparse_weight_embedding_sparse_grad`` kernels."""

from __future__ import annotations

import numpy as np

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.core.kernel import Int64, LoDTensor, Tensor
from phi.core.registry import register_kernel
from phi.core.selected_rows import SelectedRows
from phi.kernels.funcs.selected_rows import make_selected_rows, need_sr


_ANY = {"dtype": DataType.ALL_DTYPE}


def _table_ids(op: str, x, weight) -> tuple[np.ndarray, SelectedRows]:
    """The ids as int64 and the SelectedRows table they index (its full height)."""
    if x.dtype not in (np.int32, np.int64):
        raise InvalidArgument(f"{op}: Ids must be int32 or int64, got {x.dtype}.")
    return x.reshape(-1).astype(np.int64), need_sr(op, "W", weight)


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
    return make_selected_rows(ctx, ids.tolist(), table.height, value)
