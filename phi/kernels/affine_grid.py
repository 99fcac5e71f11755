"""The ``affine_grid`` and ``affine_grid_grad`` kernels."""

from __future__ import annotations


import numpy as np

from phi.common.int_array import IntArray
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.infermeta.funcs import affine_grid_out_dims, int_array_data

__all__ = ["add_position_encoding_array", "affine_channel_array", "affine_grid"]


# Paddle 2.6.2 CPU registrations (corpus cpu_ops.json)
REAL = ["float32", "float64"]


def affine_channel_array(xp, x, scale, bias, data_layout: str):
    """x * scale + bias per channel: dim 1 for NCHW, the last dim for any other layout (the
    default "AnyLayout" included, as Paddle's kernel compares with kNCHW only)."""
    if x.ndim < 2:
        raise InvalidArgument(f"affine_channel: Input(X) must have rank >= 2, got "
                              f"{list(x.shape)}.")
    c = x.shape[1] if data_layout == "NCHW" else x.shape[-1]
    if scale.shape != (c,) or bias.shape != (c,):
        raise InvalidArgument(f"affine_channel: Input(Scale) {list(scale.shape)} and Input(Bias) "
                              f"{list(bias.shape)} must be [{c}] (the channels of X).")
    view = [1] * x.ndim
    view[1 if data_layout == "NCHW" else -1] = c
    return (x * scale.reshape(view) + bias.reshape(view)).astype(x.dtype)


def _linspace(xp, n, align_corners, dtype):
    """Paddle's affine grid axis: -1 + i * 2 / (n - 1), scaled by (n - 1) / n unless
    align_corners; n = 1 divides by 0 there (0 * inf: the whole grid is NaN, as Paddle's)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        step = dtype(2) / dtype(n - 1)
        v = (dtype(-1) + step * xp.arange(n, dtype=dtype)).astype(dtype)
    if not align_corners:
        v = (v * dtype((n - 1) / n)).astype(dtype)
    return v


@register_kernel("affine_grid", ("CPU", "GPU"), dtypes=REAL)
def affine_grid(ctx, input: Tensor, output_shape: IntArray, align_corners: bool) -> Tensor:
    """The sampling grid theta @ (x, y[, z], 1) over the normalized output coordinates."""
    xp = ctx.xp
    shape = [int(v) for v in int_array_data(output_shape)]
    dims = affine_grid_out_dims(input.shape, shape)
    dt = input.dtype.type
    axes = [_linspace(xp, n, align_corners, dt) for n in shape[2:]]     # D?, H, W
    mesh = xp.meshgrid(*axes, indexing="ij")
    base = xp.stack([*mesh[::-1], xp.ones_like(mesh[0])], axis=-1)     # x (W), y (H), z, 1
    out = xp.einsum("...k,njk->n...j", base, input)
    return xp.ascontiguousarray(out.astype(input.dtype)).reshape(dims)


def add_position_encoding_array(xp, x, alpha: float, beta: float):
    """alpha * x + beta * [sin | cos](pos / 10000^(k / (half - 1))) over the last dim (a
    STRUCTURE kernel in Paddle: run by the fluid kernel of fluid_kernels/linalg2.py)."""
    if x.ndim not in (2, 3) or x.shape[-1] % 2:
        raise InvalidArgument(f"add_position_encoding: Input(X) must be [batch, seq, dim] with "
                              f"an even dim, got {list(x.shape)}.")
    half = x.shape[-1] // 2
    pos = xp.arange(x.shape[-2], dtype=np.float64)[:, None]
    k = xp.arange(half, dtype=np.float64)[None, :]
    val = pos / 10000.0 ** (k / (half - 1)) if half > 1 else pos / 10000.0
    enc = xp.concatenate([xp.sin(val), xp.cos(val)], axis=1)
    dt = x.dtype.type
    return (x * dt(alpha) + enc.astype(x.dtype) * dt(beta)).astype(x.dtype)


FLOATS = ["float32", "float64"]


@register_kernel("affine_grid_grad", ("CPU", "GPU"), dtypes=FLOATS)
def affine_grid_grad(ctx, output_grad: Tensor, output_shape: IntArray,
                     align_corners: bool) -> Tensor:
    """dTheta[n, j, k] = sum over the grid of dOut[n, ..., j] * base[..., k], base the
    normalized output coordinates (x, y[, z], 1)."""
    xp = ctx.xp
    data = output_shape.data if isinstance(output_shape, IntArray) else output_shape
    shape = [int(v) for v in data]
    dt = output_grad.dtype.type
    axes = [_linspace(xp, n, align_corners, dt) for n in shape[2:]]
    mesh = xp.meshgrid(*axes, indexing="ij")
    base = xp.stack([*mesh[::-1], xp.ones_like(mesh[0])], axis=-1)
    k = base.shape[-1]
    g = xp.reshape(output_grad, (shape[0], -1, k - 1))
    b = xp.reshape(base, (-1, k))
    return xp.ascontiguousarray(xp.matmul(xp.swapaxes(g, 1, 2), b).astype(output_grad.dtype))
