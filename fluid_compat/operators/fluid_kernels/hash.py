"""The fluid kernels of hash."""

from __future__ import annotations

import numpy as np

from fluid_compat.operators.fluid_kernels.funcs import host_in, set_out
from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from phi.core.errors import InvalidArgument

__all__: list[str] = []


_P1, _P2, _P3, _P4, _P5 = (np.uint64(p) for p in (
    0x9E3779B185EBCA87, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9, 0x85EBCA77C2B2AE63,
    0x27D4EB2F165667C5))


def _rotl(v, r: int):
    return (v << np.uint64(r)) | (v >> np.uint64(64 - r))


def _round(acc, lane):
    return _rotl(acc + lane * _P2, 31) * _P1


def xxh64_rows(data: np.ndarray, seed: int) -> np.ndarray:
    """XXH64 (xxHash 64-bit) of every row of a 2-D uint8 array, as uint64."""
    rows, n = data.shape
    seed = np.uint64(seed)
    with np.errstate(over="ignore"):
        pos = 0
        if n >= 32:
            v = [np.full(rows, seed + _P1 + _P2), np.full(rows, seed + _P2),
                 np.full(rows, seed), np.full(rows, seed - _P1)]
            while pos + 32 <= n:
                lanes = data[:, pos:pos + 32].copy().view("<u8")
                v = [_round(v[i], lanes[:, i]) for i in range(4)]
                pos += 32
            h = _rotl(v[0], 1) + _rotl(v[1], 7) + _rotl(v[2], 12) + _rotl(v[3], 18)
            for i in range(4):
                h = (h ^ _round(np.uint64(0), v[i])) * _P1 + _P4
        else:
            h = np.full(rows, seed + _P5)
        h = h + np.uint64(n)
        while pos + 8 <= n:
            lane = data[:, pos:pos + 8].copy().view("<u8")[:, 0]
            h = _rotl(h ^ _round(np.uint64(0), lane), 27) * _P1 + _P4
            pos += 8
        if pos + 4 <= n:
            lane = data[:, pos:pos + 4].copy().view("<u4")[:, 0].astype(np.uint64)
            h = _rotl(h ^ (lane * _P1), 23) * _P2 + _P3
            pos += 4
        while pos < n:
            h = _rotl(h ^ (data[:, pos].astype(np.uint64) * _P5), 11) * _P1
            pos += 1
        h = (h ^ (h >> np.uint64(33))) * _P2
        h = (h ^ (h >> np.uint64(29))) * _P3
        return h ^ (h >> np.uint64(32))


@register_fluid_kernel("hash", "CPU", ("int32", "int64"))
class HashKernel(FluidKernel):
    """Out[i, j, 0] = XXH64(bytes of row i of X, seed j) % mod_by, for j < num_hash: dims
    X.dims[:-1] + [num_hash, 1]."""

    dtype_tied_inputs = ("X",)

    def compute(self, ctx) -> None:
        x = host_in(ctx, "X")
        num_hash, mod_by = int(ctx.attr("num_hash")), int(ctx.attr("mod_by"))
        if x.ndim < 1:
            raise InvalidArgument("hash: Input(X) must be at least 1-D.")
        if mod_by <= 0:
            raise InvalidArgument(f"hash: Attr(mod_by) must be positive, but received {mod_by}.")
        rows = x.reshape(-1, x.shape[-1] if x.ndim else 1)
        data = np.ascontiguousarray(rows).view(np.uint8).reshape(
            rows.shape[0], rows.shape[1] * rows.itemsize)
        out = np.zeros((rows.shape[0], max(num_hash, 0)), x.dtype)
        for j in range(max(num_hash, 0)):
            # XXH64(...) % mod_by: an unsigned 64-bit remainder, then converted to T
            out[:, j] = (xxh64_rows(data, j) % np.uint64(mod_by)).astype(x.dtype)
        set_out(ctx, "Out", out.reshape((*x.shape[:-1], max(num_hash, 0), 1)))

