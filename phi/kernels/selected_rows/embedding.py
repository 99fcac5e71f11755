"""The ``embedding_sparse_grad`` kernel."""

from __future__ import annotations

import numpy as np

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.core.kernel import Int64, LoDTensor, Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.selected_rows import make_selected_rows


_ANY = {"dtype": DataType.ALL_DTYPE}


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
    return make_selected_rows(ctx, ids.tolist(), weight.shape[0], value)
