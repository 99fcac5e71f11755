"""The ``overlap_add`` and ``overlap_add_grad`` kernels."""

from __future__ import annotations



from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.infermeta.funcs import overlap_add_out_dims
from phi.kernels.frame import frame
from phi.kernels.funcs.backward import grad_kernel

__all__ = ["overlap_add"]


SIGNAL = ["int32", "int64", "float32", "float64", "complex64", "complex128"]


@register_kernel("overlap_add", ("CPU", "GPU"), dtypes=SIGNAL)
def overlap_add(ctx, x: Tensor, hop_length: int, axis: int) -> Tensor:
    """The sum of frames placed every ``hop_length`` (frame's adjoint)."""
    xp = ctx.xp
    dims = overlap_add_out_dims(x.shape, hop_length, axis)
    if axis == 0:
        x = xp.moveaxis(x, (0, 1), (-1, -2))
    fl, nf = x.shape[-2:]
    out = xp.zeros((*x.shape[:-2], (nf - 1) * hop_length + fl if nf else fl - hop_length),
                   x.dtype)
    for j in range(nf):
        out[..., j * hop_length: j * hop_length + fl] += x[..., :, j]
    if axis == 0:
        out = xp.moveaxis(out, -1, 0)
    return xp.ascontiguousarray(out).reshape(dims)


# -- windows ---------------------------------------------------------------------------------

_WINDOW = ["float32", "float64", "int32", "int64", "complex64", "complex128"]


@grad_kernel("overlap_add_grad", ("CPU", "GPU"), dtypes=_WINDOW)
def overlap_add_grad(ctx, x: Tensor, out_grad: Tensor, hop_length: int, axis: int) -> Tensor:
    """out_grad cut into x's frames."""
    frame_length = x.shape[-2] if axis in (-1, x.ndim - 1) else x.shape[1]
    return frame(ctx, out_grad, frame_length, hop_length, axis)
