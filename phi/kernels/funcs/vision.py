"""Helpers shared by the vision kernels (pad3d, temporal_shift)."""

from __future__ import annotations


import numpy as np


__all__ = ["transposed"]


def transposed(ctx, forward, x_shape, dout, *args):
    """The gradient of a forward that only moves (or drops, or zero-fills) elements: forward
    run on x's 1-based positions, dout summed back per source position."""
    xp = ctx.xp
    size = int(np.prod(x_shape))
    pos = xp.reshape(xp.arange(1, size + 1, dtype=np.int64), x_shape)
    src = xp.reshape(forward(ctx, pos, *args), (-1,))
    flat = xp.reshape(dout, (-1,))
    if xp.iscomplexobj(flat):
        parts = [xp.bincount(src, weights=p, minlength=size + 1) for p in (flat.real,
                                                                           flat.imag)]
        dx = parts[0] + 1j * parts[1]
    else:
        dx = xp.bincount(src, weights=flat, minlength=size + 1)
    return xp.reshape(dx[1:], x_shape).astype(dout.dtype)
