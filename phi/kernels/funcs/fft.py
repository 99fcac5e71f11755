"""Helpers shared by the FFT and framing kernels (fft, frame, stft, complex)."""

from __future__ import annotations

import numpy as np

from phi.infermeta.funcs import frame_out_dims

__all__ = ["FFT_COMPLEX", "frame_array"]


FFT_COMPLEX = {np.dtype(np.float32): np.complex64, np.dtype(np.float64): np.complex128}


def frame_array(xp, x, frame_length, hop_length, axis):
    dims = frame_out_dims(x.shape, frame_length, hop_length, axis)
    if axis == 0:
        t = xp.moveaxis(x, 0, -1)
        return xp.ascontiguousarray(xp.moveaxis(frame_array(xp, t, frame_length, hop_length, -1),
                                                (-2, -1), (1, 0))).reshape(dims)
    n = dims[-1]
    idx = xp.arange(frame_length)[:, None] + hop_length * xp.arange(n)[None, :]
    return xp.ascontiguousarray(x[..., idx])
