"""The ``strided_slice``, ``strided_slice_raw`` and ``strided_slice_raw_grad`` kernels."""

from __future__ import annotations



from phi.common.int_array import IntArray
from phi.common.layout import DataLayout
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.infermeta.funcs import strided_slice_bounds
from phi.kernels.funcs import ALL_DTYPES
from phi.kernels.funcs.backward import adjoint, grad_kernel
from phi.kernels.funcs.manipulation import bounds_index, decrease_axes

__all__ = ["strided_slice", "strided_slice_raw"]


# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json, ALL_LAYOUT keys)
SLICE_DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float32", "float64",
                "float16", "bfloat16", "complex64", "complex128"]


def _strided(ctx, x, axes, starts, ends, strides, infer_flags, decrease_axis):
    xp = ctx.xp
    index = bounds_index(x.ndim, strided_slice_bounds(x.shape, axes, starts.data, ends.data,
                                                strides.data, infer_flags, decrease_axis))
    return decrease_axes(xp, xp.asarray(x[index], copy=True), decrease_axis)


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


ALL12 = list(ALL_DTYPES)


# Paddle also registers the view-like grads for the STRIDED layout (every dtype)
STRIDED = DataLayout.STRIDED


@grad_kernel("strided_slice_raw_grad", ("CPU", "GPU"),
                 dtypes=[d for d in ALL12 if d not in ("int8", "uint8")])
@grad_kernel("strided_slice_raw_grad", ("CPU", "GPU"), dtypes=ALL12, layout=STRIDED)
def strided_slice_raw_grad(ctx, x: Tensor, out_grad: Tensor, axes: list[int], starts: IntArray,
                           ends: IntArray, strides: IntArray, infer_flags: list[int],
                           decrease_axis: list[int]) -> Tensor:
    """out_grad put back where strided_slice read it, zeros elsewhere."""
    return adjoint(ctx, x.shape, out_grad, lambda ids: strided_slice_raw(
        ctx, ids, axes, starts, ends, strides, infer_flags, decrease_axis))
