"""The ``frame`` and ``frame_grad`` kernels."""

from __future__ import annotations



from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.backward import adjoint, grad_kernel
from phi.kernels.funcs.fft import frame_array

__all__ = ["frame"]


SIGNAL = ["int32", "int64", "float32", "float64", "complex64", "complex128"]


@register_kernel("frame", ("CPU", "GPU"), dtypes=SIGNAL)
def frame(ctx, x: Tensor, frame_length: int, hop_length: int, axis: int) -> Tensor:
    """Overlapping frames of ``frame_length`` every ``hop_length`` along the first / last
    axis."""
    return frame_array(ctx.xp, x, frame_length, hop_length, axis)


# -- windows ---------------------------------------------------------------------------------

_WINDOW = ["float32", "float64", "int32", "int64", "complex64", "complex128"]


@grad_kernel("frame_grad", ("CPU", "GPU"), dtypes=_WINDOW)
def frame_grad(ctx, x: Tensor, out_grad: Tensor, frame_length: int, hop_length: int,
               axis: int) -> Tensor:
    """The frames' gradients summed back into the signal (overlap-add)."""
    return adjoint(ctx, x.shape, out_grad,
                   lambda ids: frame(ctx, ids, frame_length, hop_length, axis))
