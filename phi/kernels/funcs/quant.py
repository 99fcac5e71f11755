"""Helpers shared by the quantization kernels and the RoI pools: rounding half away from zero."""

from __future__ import annotations


__all__ = ["round_half_away"]


def round_half_away(xp, v):
    """std::round: halves away from zero (exact: ``a - floor(a)`` has no rounding error)."""
    a = xp.abs(v)
    f = xp.floor(a)
    r = xp.where(a - f >= 0.5, f + 1, f)
    return xp.where(v < 0, -r, r).astype(v.dtype)
