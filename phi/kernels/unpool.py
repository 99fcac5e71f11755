"""The ``unpool``, ``unpool3d``, ``unpool3d_grad`` and ``unpool_grad`` kernels."""

from __future__ import annotations


import numpy as np

from phi.common.data_type import DataType
from phi.common.int_array import IntArray
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel

__all__ = ["unpool", "unpool3d"]


# Paddle 2.6.2 CPU registrations (corpus cpu_ops.json)
FLOAT_DTYPES = ["float32", "float64"]

_ANY_DTYPE = {"dtype": DataType.ALL_DTYPE}
"""Indices arrive in their own dtype (int32 is checked by the kernel, as Paddle's data<int>)."""


def unpool_compute(ctx, op: str, x, indices, output_size):
    """Unpool2dMax / Unpool3dMax: a zero [N, C, *output_size] output where element i of each
    (n, c) plane of x goes to flat position indices[n, c, i] (a later duplicate wins)."""
    xp = ctx.xp
    if ctx.data_type(indices) is not DataType.INT32:
        raise InvalidArgument(
            f"Op({op}): Input(Indices) must be int32 (the kernel reads it as int), but "
            f"received {ctx.data_type(indices)}.")
    n, c = x.shape[:2]
    size = 1
    for o in output_size:
        size *= int(o)
    out = xp.zeros((n, c, size), dtype=x.dtype)
    idx = xp.reshape(indices, (n, c, -1))
    if idx.size:
        lo, hi = int(xp.min(idx)), int(xp.max(idx))
        if hi >= size or lo < 0:  # Paddle checks < size only; a negative one writes outside
            bad = hi if hi >= size else lo
            raise InvalidArgument(
                f"Op({op}): index should be in [0, {size}) (the output's plane / volume), but "
                f"got {bad}. Please check input value.")
        rows = xp.arange(n)[:, None, None]
        cols = xp.arange(c)[None, :, None]
        out[rows, cols, idx] = xp.reshape(x, (n, c, -1))
    return xp.reshape(out, (n, c, *[int(o) for o in output_size]))


@register_kernel("unpool", ("CPU", "GPU"), dtypes=FLOAT_DTYPES,
                 input_defs={"indices": _ANY_DTYPE})
def unpool(ctx, x: Tensor, indices: Tensor, ksize: list[int], strides: list[int],
           paddings: list[int], output_size: IntArray, data_format: str) -> Tensor:
    """Max unpooling of NCHW x to ``output_size`` at the int32 positions ``indices``."""
    return unpool_compute(ctx, "unpool", x, indices, output_size.data)


@register_kernel("unpool3d", ("CPU", "GPU"), dtypes=FLOAT_DTYPES,
                 input_defs={"indices": _ANY_DTYPE})
def unpool3d(ctx, x: Tensor, indices: Tensor, ksize: list[int], strides: list[int],
             paddings: list[int], output_size: list[int], data_format: str) -> Tensor:
    """Max unpooling of NCDHW x to ``output_size`` at the int32 positions ``indices``."""
    return unpool_compute(ctx, "unpool3d", x, indices, output_size)


FLOATS = ["float32", "float64"]


def _unpool_grad(ctx, x, indices, out_grad):
    """dx[n, c, i] = dout[n, c, indices[n, c, i]] (Unpool2dMaxGradFunctor)."""
    xp = ctx.xp
    n, c = x.shape[:2]
    idx = xp.reshape(indices, (n, c, -1)).astype(np.int64)
    g = xp.reshape(out_grad, (n, c, -1))
    if 0 in idx.shape or g.shape[2] == 0:
        return xp.zeros_like(x)
    return xp.reshape(xp.take_along_axis(g, idx, axis=2), x.shape)


_INDICES_INT32 = {"indices": {"dtype": DataType.INT32}}


@register_kernel("unpool_grad", ("CPU", "GPU"), dtypes=FLOATS, input_defs=_INDICES_INT32)
def unpool_grad(ctx, x: Tensor, indices: Tensor, out: Tensor, out_grad: Tensor,
                ksize: list[int], strides: list[int], paddings: list[int],
                output_size: IntArray, data_format: str) -> Tensor:
    """Each input's gradient read where unpool put it."""
    return _unpool_grad(ctx, x, indices, out_grad)


@register_kernel("unpool3d_grad", ("CPU", "GPU"), dtypes=FLOATS, input_defs=_INDICES_INT32)
def unpool3d_grad(ctx, x: Tensor, indices: Tensor, out: Tensor, out_grad: Tensor,
                  ksize: list[int], strides: list[int], paddings: list[int],
                  output_size: list[int], data_format: str) -> Tensor:
    """Each input's gradient read where unpool3d put it."""
    return _unpool_grad(ctx, x, indices, out_grad)
