"""The ``index_select``, ``index_select_grad`` and ``index_select_strided`` kernels."""

from __future__ import annotations


from phi.common.data_type import DataType
from phi.common.layout import DataLayout
from phi.core.errors import InvalidArgument
from phi.core.kernel import Int64, Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.backward import adjoint, grad_kernel
from phi.kernels.funcs.indexing import check_index_range

__all__ = ["index_select", "index_select_strided"]


INDEX_SELECT_DTYPES = ["float32", "float64", "bfloat16", "int32", "int64", "complex64",
                       "complex128"]


_ANY_INDEX = {"index": {"dtype": DataType.ALL_DTYPE}}


@register_kernel("index_select", ("CPU", "GPU"), dtypes=INDEX_SELECT_DTYPES,
                 input_defs=_ANY_INDEX)
def index_select(ctx, x: Tensor, index: Tensor, dim: int) -> Tensor:
    """x's slices at ``index`` along ``dim``."""
    xp = ctx.xp
    ax = dim + x.ndim if dim < 0 else dim
    check_index_range(xp, index, x.shape[ax], "Variable value (index) of OP(index_select)")
    return xp.take(x, xp.reshape(index, (-1,)), axis=ax)


ALL_12 = ["bfloat16", "bool", "complex128", "complex64", "float16", "float32", "float64",
          "int16", "int32", "int64", "int8", "uint8"]


@register_kernel("index_select_strided", "CPU", dtypes=ALL_12, layout=DataLayout.STRIDED)
def index_select_strided(ctx, x: Tensor, index: Int64, axis: int) -> Tensor:
    """x[..., index, ...] along ``axis`` (the axis removed).  Registered, as in Paddle 2.6.2,
    only under the STRIDED layout: a legacy program, whose kernel key is never STRIDED, finds
    no kernel for it, as Paddle reports."""
    ax = axis + x.ndim if axis < 0 else axis
    if not 0 <= ax < x.ndim or not -x.shape[ax] <= index < x.shape[ax]:
        raise InvalidArgument(f"index_select_strided: index {index} / axis {axis} out of range "
                              f"for shape {list(x.shape)}.")
    return ctx.xp.asarray(ctx.xp.take(x, index, axis=ax), copy=True)


_ANY = {"dtype": DataType.ALL_DTYPE}


@grad_kernel("index_select_grad", ("CPU", "GPU"),
                 dtypes=["float32", "float64", "int32", "int64", "bfloat16", "complex64",
                         "complex128"], input_defs={"index": _ANY})
def index_select_grad(ctx, x: Tensor, index: Tensor, out_grad: Tensor, dim: int) -> Tensor:
    """out_grad summed into the slices (along ``dim``) that index_select read."""
    return adjoint(ctx, x.shape, out_grad,
                   lambda ids: index_select(ctx, ids, index, dim))
