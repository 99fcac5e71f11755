"""The ``pad`` and ``pad_grad`` kernels."""

from __future__ import annotations



from phi.common.scalar import Scalar
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.infermeta.unary import pad_infer_meta
from phi.kernels.funcs import owned, scalar_as
from phi.kernels.funcs.backward import grad_kernel
from phi.kernels.funcs.manipulation import ShapeMeta, SinkMeta

__all__ = ["pad"]


_F_I = ["float32", "float64", "int32", "int64"]


PAD_DTYPES = ["bfloat16", *_F_I, "complex64", "complex128"]


@register_kernel("pad", ("CPU", "GPU"), dtypes=PAD_DTYPES)
def pad(ctx, x: Tensor, paddings: list[int], pad_value: Scalar) -> Tensor:
    """x padded by (before, after) pairs per dim with ``pad_value`` converted to x's dtype."""
    pad_infer_meta(ShapeMeta(x), list(paddings), pad_value, SinkMeta())
    dtype = ctx.data_type(x)
    out = ctx.full(tuple(d + paddings[2 * i] + paddings[2 * i + 1]
                         for i, d in enumerate(x.shape)), scalar_as(ctx, pad_value, dtype), dtype)
    out[tuple(slice(paddings[2 * i], paddings[2 * i] + d) for i, d in enumerate(x.shape))] = x
    return out


@grad_kernel("pad_grad", ("CPU", "GPU"),
                 dtypes=["float32", "float64", "int32", "int64", "complex64", "complex128",
                         "bfloat16"])
def pad_grad(ctx, out_grad: Tensor, paddings: list[int], pad_value: Scalar) -> Tensor:
    """out_grad without the padding."""
    index = tuple(slice(paddings[2 * i], d - paddings[2 * i + 1])
                  for i, d in enumerate(out_grad.shape))
    return owned(ctx.xp, out_grad[index])
