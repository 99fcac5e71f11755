"""Search and selection kernels: where, argmax / argmin, topk, argsort (Paddle's
paddle/phi/kernels/cpu/{where,arg_min_max,top_k,argsort}_kernel.cc).

Orders follow Paddle 2.6.2 as its wheel computes them: argmax / argmin skip NaN and return the
first extreme; topk and argsort put NaN above every number (first when descending or largest,
last otherwise).  Equal values come in the order libstdc++'s unstable algorithms leave them
(Paddle's CPU kernels sort (value, index) pairs with std::sort / nth_element / partial_sort): on
numpy, the rows holding equal values are redone by `phi.kernels.funcs.stl_sort`; other devices keep
index order, as Paddle's GPU kernels (stable radix sorts) do.
"""

from __future__ import annotations

from phi.common.data_type import DataType
from phi.common.scalar import Scalar
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import stl_sort
from phi.kernels.funcs import as_array

__all__ = ["argmax", "argmin", "argsort", "topk", "where"]

# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json)
WHERE_DTYPES = ["float32", "float64", "int32", "int64"]
ARG_DTYPES = ["float32", "float64", "int16", "int32", "int64", "uint8"]
SORT_DTYPES = ["float32", "float64", "int32", "int64"]
_INDEX_OUT = {0: {"dtype": DataType.UNDEFINED}}
_SORTED_OUTS = {1: {"dtype": DataType.INT64}}


@register_kernel("where", ("CPU", "GPU"), dtypes=WHERE_DTYPES,
                 input_defs={"condition": {"dtype": DataType.ALL_DTYPE}})
def where(ctx, condition: Tensor, x: Tensor, y: Tensor) -> Tensor:
    """condition ? x : y element-wise (same shapes, checked by WhereInferMeta)."""
    xp = ctx.xp
    return as_array(xp, xp.where(ctx.astype(condition, DataType.BOOL), x, y))


def _arg_extreme(ctx, x, axis, keepdims: bool, flatten: bool, dtype: DataType, find_max: bool):
    xp = ctx.xp
    if dtype not in (DataType.UNDEFINED, DataType.INT32, DataType.INT64):
        raise InvalidArgument("The attribute of dtype in argmin/argmax must be [int32] or "
                              f"[int64], but received [{dtype}]")
    out_dtype = DataType.INT32 if dtype is DataType.INT32 else DataType.INT64
    if ctx.data_type(x) in (DataType.FLOAT32, DataType.FLOAT64):
        # a NaN never wins the comparison (Eigen's reducer): it counts as the other extreme
        x = xp.where(xp.isnan(x), -xp.inf if find_max else xp.inf, x)
    pick = xp.argmax if find_max else xp.argmin
    if flatten or x.ndim == 0:
        idx = pick(xp.reshape(x, (-1,)))
        shape = (1,) * x.ndim if keepdims else ()
        return ctx.astype(xp.reshape(idx, shape), out_dtype)
    axis = int(axis.value if isinstance(axis, Scalar) else axis)
    return ctx.astype(pick(x, axis=axis, keepdims=keepdims), out_dtype)


@register_kernel("argmax", ("CPU", "GPU"), dtypes=ARG_DTYPES, output_defs=_INDEX_OUT)
def argmax(ctx, x: Tensor, axis: Scalar, keepdims: bool, flatten: bool,
           dtype: DataType) -> Tensor:
    """Index of the first maximum along ``axis`` (of all elements with ``flatten``)."""
    return _arg_extreme(ctx, x, axis, keepdims, flatten, dtype, True)


@register_kernel("argmin", ("CPU", "GPU"), dtypes=ARG_DTYPES, output_defs=_INDEX_OUT)
def argmin(ctx, x: Tensor, axis: Scalar, keepdims: bool, flatten: bool,
           dtype: DataType) -> Tensor:
    """Index of the first minimum along ``axis`` (of all elements with ``flatten``)."""
    return _arg_extreme(ctx, x, axis, keepdims, flatten, dtype, False)


def _stable_order(xp, x, axis: int, descending: bool):
    """Indices sorting ``x`` along ``axis``: equal values keep index order, NaN counts as the
    largest value (numpy's ascending order already puts NaN last)."""
    if not descending:
        return xp.argsort(x, axis=axis, kind="stable")
    # stable descending: sort the reversed axis ascending, reverse back, map the indices
    n = x.shape[axis]
    order = xp.flip(xp.argsort(xp.flip(x, axis=axis), axis=axis, kind="stable"), axis=axis)
    return (n - 1) - order


def _before(descending: bool):
    """Paddle's comparator of (value, index) pairs: NaN is the largest value."""
    if descending:
        return lambda a, b: (a[0] != a[0] and b[0] == b[0]) or a[0] > b[0]
    return lambda a, b: (a[0] == a[0] and b[0] != b[0]) or a[0] < b[0]


def _stl_rows(ctx, x, order, axis: int, descending: bool, k: int | None, sorted_: bool):
    """Redo with libstdc++'s algorithms the rows whose result depends on them: rows with equal
    values (NaNs included), every row when topk is unsorted.  numpy only (see the module doc)."""
    xp = ctx.xp
    if xp.__name__ != "numpy" or x.size == 0:
        return order
    rows = xp.moveaxis(x, axis, -1)
    flat = rows.reshape(-1, rows.shape[-1])
    if sorted_:
        s = xp.sort(flat, axis=-1)
        redo = xp.nonzero((s[:, 1:] == s[:, :-1]).any(axis=-1)
                          | (xp.isnan(s).sum(axis=-1) >= 2 if s.dtype.kind == "f" else False))[0]
    else:
        redo = range(flat.shape[0])
    if len(redo) == 0:
        return order
    out = xp.moveaxis(order, axis, -1).copy()
    out2 = out.reshape(-1, out.shape[-1])
    comp = _before(descending)
    width = flat.shape[1]
    for r in redo:
        pairs = list(zip(flat[r].tolist(), range(width), strict=True))
        if k is None:
            stl_sort.sort(pairs, 0, width, comp)
        elif k * 64 < width:
            stl_sort.partial_sort(pairs, k, comp)
        else:
            stl_sort.nth_element(pairs, k - 1, comp)
            if sorted_:
                stl_sort.sort(pairs, 0, k - 1, comp)
        out2[r] = [i for _, i in pairs[:out2.shape[1]]]
    return xp.moveaxis(out, -1, axis)


@register_kernel("argsort", ("CPU", "GPU"), dtypes=SORT_DTYPES, output_defs=_SORTED_OUTS)
def argsort(ctx, x: Tensor, axis: int, descending: bool) -> tuple[Tensor, Tensor]:
    """(sorted values, int64 indices) along ``axis``."""
    xp = ctx.xp
    if x.ndim == 0:
        return xp.asarray(x, copy=True), xp.zeros((), dtype=xp.int64)
    axis = axis + x.ndim if axis < 0 else axis
    order = _stable_order(xp, x, axis, descending)
    order = _stl_rows(ctx, x, order, axis, descending, None, True)
    return xp.take_along_axis(x, order, axis=axis), ctx.astype(order, DataType.INT64)


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
    order = xp.take(_stable_order(xp, x, axis, largest), xp.arange(k), axis=axis)
    order = _stl_rows(ctx, x, order, axis, largest, k, sorted)
    return xp.take_along_axis(x, order, axis=axis), ctx.astype(order, DataType.INT64)
