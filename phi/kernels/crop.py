"""The ``crop`` and ``crop_grad`` kernels."""

from __future__ import annotations



from phi.common.int_array import IntArray
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.infermeta.funcs import crop_out_dims
from phi.kernels.funcs import owned
from phi.kernels.funcs.backward import grad_kernel
from phi.kernels.funcs.manipulation import CROP_DTYPES

__all__ = ["crop"]


# -- crop / pad / flip / reverse / roll --------------------------------------------------------

def crop_array(ctx, x, dims, offsets):
    """x[offsets : offsets + dims] per axis, bounds checked as CropTensorFunction does."""
    for i, (o, d) in enumerate(zip(offsets, dims, strict=True)):
        if o < 0:
            raise InvalidArgument(f"The offsets ({o}) of the {i}th elements of Op(crop_tensor) "
                                  "should be greater than or equal to 0.")
        if o + d > x.shape[i]:
            raise InvalidArgument(
                f"The sum of the {i}th elements of offsets ({o}) and shape ({d}) of "
                "Op(crop_tensor) should be less than or equal to the size of "
                f"{i}th dimension of the input ({x.shape[i]}).")
    index = tuple(slice(o, o + d) for o, d in zip(offsets, dims, strict=True))
    return owned(ctx.xp, x[index])


@register_kernel("crop", ("CPU", "GPU"), dtypes=CROP_DTYPES)
def crop(ctx, x: Tensor, shape: IntArray, offsets: IntArray) -> Tensor:
    """The box of ``shape`` (-1: to the end) starting at ``offsets``; rank 1 to 6."""
    if not 1 <= x.ndim <= 6:
        raise InvalidArgument(f"The number of dimensions of the input 'x' for Op(crop_tensor) "
                              f"must be in [1, 6], but the value received is {x.ndim}.")
    offs = tuple(offsets.data)
    if len(offs) != x.ndim:
        raise InvalidArgument(f"The number of elements ({len(offs)}) for input 'Offsets' must "
                              f"be equal to the number of dimensions ({x.ndim}) of the input "
                              "tensor.")
    shp = tuple(shape.data)
    dims = crop_out_dims(x.shape, shp, offs)
    # Paddle checks offsets + shape with the -1 entries as given, then slices the real dims
    for i, (o, s) in enumerate(zip(offs, shp, strict=True)):
        if o >= 0 and o + s > x.shape[i]:
            crop_array(ctx, x, [s if k == i else 0 for k in range(x.ndim)], offs)
    return crop_array(ctx, x, dims, offs)


@grad_kernel("crop_grad", ("CPU", "GPU"), dtypes=["float32", "float64", "int32", "int64"])
def crop_grad(ctx, x: Tensor, out_grad: Tensor, offsets: IntArray) -> Tensor:
    """Zeros of x's dims with out_grad at ``offsets``."""
    xp = ctx.xp
    offs = list(offsets.data) or [0] * x.ndim
    x_grad = xp.zeros(x.shape, dtype=out_grad.dtype)
    x_grad[tuple(slice(o, o + d) for o, d in zip(offs, out_grad.shape, strict=True))] = out_grad
    return x_grad
