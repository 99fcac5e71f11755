"""The ``fft_c2c``, ``fft_c2c_grad``, ``fft_c2r``, ``fft_c2r_grad``, ``fft_r2c`` and
``fft_r2c_grad`` kernels."""

from __future__ import annotations

import numpy as np

from phi.common.data_type import DataType
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.infermeta.funcs import fft_axes
from phi.kernels.funcs.fft import FFT_COMPLEX

__all__ = ["fft_c2c", "fft_c2c_grad", "fft_c2r", "fft_c2r_grad", "fft_r2c", "fft_r2c_grad"]


# Paddle 2.6.2 CPU registrations (corpus cpu_ops.json)
COMPLEX_DTYPES = ["complex64", "complex128"]
REAL = ["float32", "float64"]


_REAL = {np.dtype(np.complex64): np.float32, np.dtype(np.complex128): np.float64}
# the scaling of a forward-sign transform as numpy's inverse transforms name it
_SWAP = {"backward": "forward", "forward": "backward", "ortho": "ortho"}


@register_kernel("fft_c2c", ("CPU", "GPU"), dtypes=COMPLEX_DTYPES)
def fft_c2c(ctx, x: Tensor, axes: list[int], normalization: str, forward: bool) -> Tensor:
    """Complex to complex n-D transform over ``axes``."""
    ax = fft_axes(axes, x.ndim, normalization, "fft_c2c")
    fn = ctx.xp.fft.fftn if forward else ctx.xp.fft.ifftn
    return fn(x, axes=ax, norm=normalization).astype(x.dtype)


@register_kernel("fft_r2c", ("CPU", "GPU"), dtypes=REAL)
def fft_r2c(ctx, x: Tensor, axes: list[int], normalization: str, forward: bool,
            onesided: bool) -> Tensor:
    """Real to complex transform; onesided keeps n // 2 + 1 entries of the last axis."""
    ax = fft_axes(axes, x.ndim, normalization, "fft_r2c")
    fn = ctx.xp.fft.fftn if forward else ctx.xp.fft.ifftn
    out = fn(x, axes=ax, norm=normalization)
    if onesided:
        index = [slice(None)] * x.ndim
        index[ax[-1]] = slice(0, x.shape[ax[-1]] // 2 + 1)
        out = out[tuple(index)]
    return ctx.xp.ascontiguousarray(out).astype(FFT_COMPLEX[x.dtype])


@register_kernel("fft_c2r", ("CPU", "GPU"), dtypes=COMPLEX_DTYPES)
def fft_c2r(ctx, x: Tensor, axes: list[int], normalization: str, forward: bool,
            last_dim_size: int) -> Tensor:
    """Hermitian complex to real transform; the last axis gets ``last_dim_size`` points
    (0: 2 * (n - 1)).  A forward-sign one is the inverse one of conj(x) with the scaling of
    the forward direction."""
    xp = ctx.xp
    ax = fft_axes(axes, x.ndim, normalization, "fft_c2r")
    s = [x.shape[a] for a in ax]
    s[-1] = last_dim_size if last_dim_size > 0 else 2 * (x.shape[ax[-1]] - 1)
    if forward:
        out = xp.fft.irfftn(xp.conj(x), s=s, axes=ax, norm=_SWAP[normalization])
    else:
        out = xp.fft.irfftn(x, s=s, axes=ax, norm=normalization)
    return out.astype(_REAL[x.dtype])


def _other_sign(xp, forward: bool):
    return xp.fft.ifftn if forward else xp.fft.fftn


@register_kernel("fft_c2c_grad", ("CPU", "GPU"), dtypes=COMPLEX_DTYPES)
def fft_c2c_grad(ctx, out_grad: Tensor, axes: list[int], normalization: str,
                 forward: bool) -> Tensor:
    """The transform of the other sign with the forward op's scaling."""
    ax = fft_axes(axes, out_grad.ndim, normalization, "fft_c2c_grad")
    fn = _other_sign(ctx.xp, forward)
    return fn(out_grad, axes=ax, norm=_SWAP[normalization]).astype(out_grad.dtype)


@register_kernel("fft_r2c_grad", ("CPU", "GPU"), dtypes=COMPLEX_DTYPES,
                 input_defs={"x": {"dtype": DataType.ALL_DTYPE}})
def fft_r2c_grad(ctx, x: Tensor, out_grad: Tensor, axes: list[int], normalization: str,
                 forward: bool, onesided: bool) -> Tensor:
    """A onesided dout is zero-padded to x's length, transformed back (other sign, same
    scaling); dx is the real part."""
    xp = ctx.xp
    ax = fft_axes(axes, x.ndim, normalization, "fft_r2c_grad")
    dy = out_grad
    if onesided:
        pad = [(0, 0)] * dy.ndim
        pad[ax[-1]] = (0, x.shape[ax[-1]] - dy.shape[ax[-1]])
        dy = xp.pad(dy, pad)
    full = _other_sign(xp, forward)(dy, axes=ax, norm=_SWAP[normalization])
    return xp.ascontiguousarray(xp.real(full)).astype(x.dtype)


@register_kernel("fft_c2r_grad", ("CPU", "GPU"), dtypes=REAL)
def fft_c2r_grad(ctx, out_grad: Tensor, axes: list[int], normalization: str, forward: bool,
                 last_dim_size: int) -> Tensor:
    """The onesided transform of dout (other sign, same scaling), with the entries that
    stand for two conjugate frequencies (1 .. n - n_half) doubled."""
    xp = ctx.xp
    ax = fft_axes(axes, out_grad.ndim, normalization, "fft_c2r_grad")
    n = out_grad.shape[ax[-1]]
    full = _other_sign(xp, forward)(out_grad, axes=ax, norm=_SWAP[normalization])
    half = n // 2 + 1
    index = [slice(None)] * out_grad.ndim
    index[ax[-1]] = slice(0, half)
    dx = xp.array(full[tuple(index)])
    index[ax[-1]] = slice(1, n - half + 1)
    dx[tuple(index)] *= 2
    return dx.astype(FFT_COMPLEX[out_grad.dtype])
