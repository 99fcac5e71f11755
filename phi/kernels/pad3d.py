"""The ``pad3d`` and ``pad3d_grad`` kernels."""

from __future__ import annotations



from phi.common.int_array import IntArray
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.infermeta.funcs import pad3d_pairs
from phi.kernels.funcs.vision import transposed

__all__ = ["pad3d"]


# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json)
PAD3D_DTYPES = ["float32", "float64", "int32", "int64", "complex64", "complex128"]
_NUMPY_MODES = {"reflect": "reflect", "replicate": "edge", "circular": "wrap"}


@register_kernel("pad3d", ("CPU", "GPU"), dtypes=PAD3D_DTYPES)
def pad3d(ctx, x: Tensor, paddings: IntArray, mode: str, pad_value: float,
          data_format: str) -> Tensor:
    """x padded on D, H and W by ``paddings`` = [left, right, top, bottom, front, back]:
    ``constant`` with ``pad_value``, ``reflect`` (the edge not repeated), ``replicate``,
    ``circular``."""
    xp = ctx.xp
    pairs = pad3d_pairs(x.shape, paddings.data, mode, data_format)
    if mode == "constant":
        return xp.pad(x, pairs, mode="constant", constant_values=x.dtype.type(pad_value))
    return xp.pad(x, pairs, mode=_NUMPY_MODES[mode])


FLOATS_COMPLEX = ["float32", "float64", "complex64", "complex128"]


@register_kernel("pad3d_grad", ("CPU", "GPU"), dtypes=FLOATS_COMPLEX)
def pad3d_grad(ctx, x: Tensor, out_grad: Tensor, paddings: IntArray, mode: str,
               pad_value: float, data_format: str) -> Tensor:
    """The padding's gradient added back where reflect / replicate / circular copied from;
    constant padding passes nothing."""
    return transposed(ctx, pad3d, x.shape, out_grad, paddings, mode, 0.0, data_format)
