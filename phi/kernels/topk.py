"""The ``topk`` and ``topk_grad`` kernels."""

from __future__ import annotations


from phi.common.data_type import DataType
from phi.common.scalar import Scalar
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.backward import grad_kernel
from phi.kernels.funcs.indexing import put_at, stable_order, stl_rows

__all__ = ["topk"]


SORT_DTYPES = ["float32", "float64", "int32", "int64"]


_SORTED_OUTS = {1: {"dtype": DataType.INT64}}


@register_kernel("topk", ("CPU", "GPU"), dtypes=SORT_DTYPES, output_defs=_SORTED_OUTS)
def topk(ctx, x: Tensor, k: Scalar, axis: int, largest: bool, sorted: bool
         ) -> tuple[Tensor, Tensor]:
    """(values, int64 indices) of the k largest (or smallest) along ``axis``, best first;
    ``sorted=False`` leaves them in nth_element's order, as Paddle's CPU kernel does."""
    xp = ctx.xp
    k = int(k.value if isinstance(k, Scalar) else k)
    if x.ndim == 0:
        return xp.asarray(x, copy=True), xp.zeros((), dtype=xp.int64)
    axis = axis + x.ndim if axis < 0 else axis
    if k > x.shape[axis]:
        raise InvalidArgument(f"the input of topk must have >= k ({k}) elements along axis "
                              f"{axis}, but received {x.shape[axis]}.")
    order = xp.take(stable_order(xp, x, axis, largest), xp.arange(k), axis=axis)
    order = stl_rows(ctx, x, order, axis, largest, k, sorted)
    return xp.take_along_axis(x, order, axis=axis), ctx.astype(order, DataType.INT64)


_ANY = {"dtype": DataType.ALL_DTYPE}


_SORT = ["float32", "float64", "int32", "int64"]


@grad_kernel("topk_grad", ("CPU", "GPU"), dtypes=_SORT, input_defs={"indices": _ANY})
def topk_grad(ctx, x: Tensor, indices: Tensor, out_grad: Tensor, k: Scalar, axis: int,
              largest: bool, sorted: bool) -> Tensor:
    """out_grad put at the top-k indices, zeros elsewhere."""
    return put_at(ctx, x, indices, out_grad, axis)
