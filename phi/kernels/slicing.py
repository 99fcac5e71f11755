"""slice and strided_slice (Paddle's paddle/phi/kernels/impl/{slice,strided_slice}_kernel_impl.h,
funcs/slice_utils.h, funcs/strided_slice.h).  The index arithmetic is shared with InferMeta
(`slice_out_dims`, `strided_slice_bounds`) so that shapes and data always agree."""

from __future__ import annotations

import numpy as np
from phi.common.int_array import IntArray
from phi.core.bound import binds
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.infermeta.funcs import decreased_dims, slice_bounds, strided_slice_bounds

__all__ = ["slice_kernel", "strided_slice", "strided_slice_raw"]

# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json, ALL_LAYOUT keys)
SLICE_DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float32", "float64",
                "float16", "bfloat16", "complex64", "complex128"]


def _decrease(xp, out, decrease_axis):
    if not decrease_axis:
        return out
    return xp.reshape(out, decreased_dims(out.shape, decrease_axis, runtime=False))


def _index(ndim: int, bounds: dict) -> tuple[slice, ...]:
    """The index of InferMeta's bounds (axis -> (start, end[, step]))."""
    index = [slice(None)] * ndim
    for axis, bound in bounds.items():
        index[axis] = slice(*bound)
    return tuple(index)


def _slice_index(dims, axes, starts: IntArray, ends: IntArray) -> tuple[slice, ...]:
    return _index(len(dims), slice_bounds(dims, axes, starts.data, ends.data))


# (named slice_kernel: `slice` is the Python builtin used below)
@register_kernel("slice", ("CPU", "GPU"), dtypes=SLICE_DTYPES)
def slice_kernel(ctx, input: Tensor, axes: list[int], starts: IntArray, ends: IntArray,
                 infer_flags: list[int], decrease_axis: list[int]) -> Tensor:
    """input[start:end] along each of ``axes`` (bounds clamped, negative from the end), the
    ``decrease_axis`` axes (of size 1) removed."""
    xp = ctx.xp
    index = _slice_index(input.shape, axes, starts, ends)
    return _decrease(xp, xp.asarray(input[index], copy=True), decrease_axis)


@binds(slice_kernel)
def _bind_slice(ctx, attrs, metas):
    """slice_kernel's index and output dims worked out once for the planned dims."""
    if ctx.xp is not np or metas[0] is None:
        return None
    axes, starts, ends, _infer_flags, decrease_axis = attrs
    dims = metas[0][1]
    index = _slice_index(dims, axes, starts, ends)
    sliced = tuple(len(range(*s.indices(d))) for s, d in zip(index, dims, strict=True))
    out_dims = decreased_dims(sliced, decrease_axis, runtime=False) if decrease_axis else None
    nd = np.ndarray

    def bound(x):
        if type(x) is nd and x.shape == dims:
            out = np.asarray(x[index], copy=True)
            return out if out_dims is None else out.reshape(out_dims)
        return slice_kernel(ctx, x, *attrs)

    return bound


def _strided(ctx, x, axes, starts, ends, strides, infer_flags, decrease_axis):
    xp = ctx.xp
    index = _index(x.ndim, strided_slice_bounds(x.shape, axes, starts.data, ends.data,
                                                strides.data, infer_flags, decrease_axis))
    return _decrease(xp, xp.asarray(x[index], copy=True), decrease_axis)


@register_kernel("strided_slice_raw", ("CPU", "GPU"), dtypes=SLICE_DTYPES)
def strided_slice_raw(ctx, x: Tensor, axes: list[int], starts: IntArray, ends: IntArray,
                      strides: IntArray, infer_flags: list[int],
                      decrease_axis: list[int]) -> Tensor:
    """x[start:end:stride] along each of ``axes`` (Paddle's bounds: a -1 end with a negative
    stride runs to the first element), the ``decrease_axis`` axes removed."""
    return _strided(ctx, x, axes, starts, ends, strides, infer_flags, decrease_axis)


@register_kernel("strided_slice", ("CPU", "GPU"), dtypes=SLICE_DTYPES)
def strided_slice(ctx, x: Tensor, axes: list[int], starts: IntArray, ends: IntArray,
                  strides: IntArray) -> Tensor:
    """``strided_slice_raw`` without infer_flags and decrease_axis."""
    return _strided(ctx, x, axes, starts, ends, strides, [], [])

