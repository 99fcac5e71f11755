"""The ``index_sample`` and ``index_sample_grad`` kernels."""

from __future__ import annotations

import numpy as np

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.backward import adjoint, grad_kernel
from phi.kernels.funcs.indexing import check_scatter_range, to_device, to_host

__all__ = ["index_sample"]


INDEX_SAMPLE_DTYPES = ["complex128", "complex64", "float32", "float64", "int32", "int64"]


_ANY = {"dtype": DataType.ALL_DTYPE}


@register_kernel("index_sample", ("CPU", "GPU"), dtypes=INDEX_SAMPLE_DTYPES,
                 input_defs={"index": _ANY})
def index_sample(ctx, x: Tensor, index: Tensor) -> Tensor:
    """out[b, m] = x[b, index[b, m]]."""
    h_x, h_index = to_host(ctx, x), to_host(ctx, index)
    size = x.shape[1]
    check_scatter_range(h_index, 0, size, lambda bad: InvalidArgument(
        f"Variable value (index) of OP(index_sample) expected >= 0 and < {size}, but got "
        f"{bad}. Please check input value."))
    return to_device(ctx, np.take_along_axis(h_x, h_index.astype(np.int64), axis=1))


@grad_kernel("index_sample_grad", ("CPU", "GPU"),
                 dtypes=["float32", "float64", "int32", "int64", "complex64", "complex128"],
                 input_defs={"index": _ANY})
def index_sample_grad(ctx, x: Tensor, index: Tensor, out_grad: Tensor) -> Tensor:
    """out_grad summed into the elements index_sample read in each row."""
    return adjoint(ctx, x.shape, out_grad, lambda ids: index_sample(ctx, ids, index))
