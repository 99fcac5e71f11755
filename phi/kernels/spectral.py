"""fft and signal kernels of helper `linalg2` (Paddle's paddle/phi/kernels/{fft,frame,
overlap_add}_kernel*, the stft op), computed with numpy.fft.

Normalization as Paddle's: "backward" scales the inverse transform by 1/n, "forward" the forward
one, "ortho" both by 1/sqrt(n); ``forward`` picks the sign of the exponent.  numpy's ``norm``
names the same scaling for its (forward, inverse) pairs.
"""

from __future__ import annotations

import numpy as np

from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.infermeta.funcs import fft_axes, frame_out_dims, overlap_add_out_dims

__all__ = ["fft_c2c", "fft_c2r", "fft_r2c", "frame", "overlap_add", "stft"]

# Paddle 2.6.2 CPU registrations (corpus cpu_ops.json)
COMPLEX = ["complex64", "complex128"]
REAL = ["float32", "float64"]
SIGNAL = ["int32", "int64", "float32", "float64", "complex64", "complex128"]

_CPLX = {np.dtype(np.float32): np.complex64, np.dtype(np.float64): np.complex128}
_REAL = {np.dtype(np.complex64): np.float32, np.dtype(np.complex128): np.float64}
# the scaling of a forward-sign transform as numpy's inverse transforms name it
_SWAP = {"backward": "forward", "forward": "backward", "ortho": "ortho"}


@register_kernel("fft_c2c", ("CPU", "GPU"), dtypes=COMPLEX)
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
    return ctx.xp.ascontiguousarray(out).astype(_CPLX[x.dtype])


@register_kernel("fft_c2r", ("CPU", "GPU"), dtypes=COMPLEX)
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


def _frame(xp, x, frame_length, hop_length, axis):
    dims = frame_out_dims(x.shape, frame_length, hop_length, axis)
    if axis == 0:
        t = xp.moveaxis(x, 0, -1)
        return xp.ascontiguousarray(xp.moveaxis(_frame(xp, t, frame_length, hop_length, -1),
                                                (-2, -1), (1, 0))).reshape(dims)
    n = dims[-1]
    idx = xp.arange(frame_length)[:, None] + hop_length * xp.arange(n)[None, :]
    return xp.ascontiguousarray(x[..., idx])


@register_kernel("frame", ("CPU", "GPU"), dtypes=SIGNAL)
def frame(ctx, x: Tensor, frame_length: int, hop_length: int, axis: int) -> Tensor:
    """Overlapping frames of ``frame_length`` every ``hop_length`` along the first / last
    axis."""
    return _frame(ctx.xp, x, frame_length, hop_length, axis)


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


@register_kernel("stft", ("CPU", "GPU"), dtypes=REAL)
def stft(ctx, x: Tensor, window: Tensor, n_fft: int, hop_length: int, normalized: bool,
         onesided: bool) -> Tensor:
    """Windowed frames of x [B, T] transformed: [B, n_fft // 2 + 1, n_frames] complex; the
    two-sided transform of a real input fails in Paddle's kernel (it reads the real frames as
    complex), so it raises here too."""
    if not onesided:
        raise InvalidArgument("stft: onesided=False needs a complex input, but Input(X) is "
                              f"{x.dtype} (Paddle's stft kernel fails on it as well).")
    frames = _frame(ctx.xp, x, n_fft, hop_length, -1) * window[:, None]
    return fft_r2c(ctx, frames.astype(x.dtype), [1], "ortho" if normalized else "backward",
                   True, onesided)
