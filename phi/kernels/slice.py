"""The ``slice`` and ``slice_grad`` kernels."""

from __future__ import annotations


import numpy as np

from phi.common.int_array import IntArray
from phi.common.layout import DataLayout
from phi.core.bound import binds
from phi.core.kernel import Int64, Tensor
from phi.core.registry import register_kernel
from phi.infermeta.funcs import decreased_dims, slice_bounds
from phi.kernels.funcs import ALL_DTYPES
from phi.kernels.funcs.backward import adjoint, grad_kernel
from phi.kernels.funcs.manipulation import bounds_index, decrease_axes

__all__ = ["slice_kernel"]


# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json, ALL_LAYOUT keys)
SLICE_DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float32", "float64",
                "float16", "bfloat16", "complex64", "complex128"]


def _slice_index(dims, axes, starts: IntArray, ends: IntArray) -> tuple[slice, ...]:
    return bounds_index(len(dims), slice_bounds(dims, axes, starts.data, ends.data))


# (named slice_kernel: `slice` is the Python builtin used below)
@register_kernel("slice", ("CPU", "GPU"), dtypes=SLICE_DTYPES)
def slice_kernel(ctx, input: Tensor, axes: list[int], starts: IntArray, ends: IntArray,
                 infer_flags: list[int], decrease_axis: list[int]) -> Tensor:
    """input[start:end] along each of ``axes`` (bounds clamped, negative from the end), the
    ``decrease_axis`` axes (of size 1) removed."""
    xp = ctx.xp
    index = _slice_index(input.shape, axes, starts, ends)
    return decrease_axes(xp, xp.asarray(input[index], copy=True), decrease_axis)


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


ALL12 = list(ALL_DTYPES)


# Paddle also registers the view-like grads for the STRIDED layout (every dtype)
STRIDED = DataLayout.STRIDED


# -- slicing ops: the adjoint of the forward kernel ------------------------------------------

@grad_kernel("slice_grad", ("CPU", "GPU"), dtypes=ALL12)
@grad_kernel("slice_grad", ("CPU", "GPU"), dtypes=ALL12, layout=STRIDED)
def slice_grad(ctx, input: Tensor, out_grad: Tensor, axes: list[Int64], starts: IntArray,
               ends: IntArray, infer_flags: list[Int64], decrease_axis: list[Int64]) -> Tensor:
    """out_grad put back where slice read it, zeros elsewhere."""
    return adjoint(ctx, input.shape, out_grad, lambda ids: slice_kernel(
        ctx, ids, axes, starts, ends, infer_flags, decrease_axis))
