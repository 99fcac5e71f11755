"""Fluid kernel of pyramid_hash (paddle/fluid/operators/pyramid_hash_op.cc, a fluid OpKernel in
Paddle 2.6.2): every n-gram (2 .. pyramid_layer words) of each sequence of X, as the bytes of
its ids converted to float32, is hashed with XXH32 into rows of the embedding table W; bloom
filters (WhiteList / BlackList, MurmurHash3 x64 128) choose the n-grams; in training a glibc
rand_r stream seeded by the seed attribute drops some, at inference the output is scaled by
drop_out_percent (Paddle's axpy_noadd: the default 0 gives zeros).
"""

from __future__ import annotations

import numpy as np

from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument, PreconditionNotMet
from phi.core.lod import from_lengths

__all__ = ["murmur3_x64_128_rows", "rand_r", "xxh32_rows"]


_OP = "pyramid_hash"


_U32, _U64 = np.uint32, np.uint64


_XP1, _XP2, _XP3, _XP4, _XP5 = (_U32(p) for p in (0x9E3779B1, 0x85EBCA77, 0xC2B2AE3D,
                                                   0x27D4EB2F, 0x165667B1))


def _rotl32(v, r: int):
    return (v << _U32(r)) | (v >> _U32(32 - r))


def xxh32_rows(data: np.ndarray, seed: int) -> np.ndarray:
    """XXH32 (xxHash 32-bit) of every row of a 2-D uint8 array, as uint32."""
    rows, n = data.shape
    seed = _U32(seed & 0xFFFFFFFF)
    pos = 0
    with np.errstate(over="ignore"):
        if n >= 16:
            v = [np.full(rows, seed + _XP1 + _XP2), np.full(rows, seed + _XP2),
                 np.full(rows, seed), np.full(rows, seed - _XP1)]
            while pos + 16 <= n:
                lanes = data[:, pos:pos + 16].copy().view("<u4")
                v = [_rotl32(v[i] + lanes[:, i] * _XP2, 13) * _XP1 for i in range(4)]
                pos += 16
            h = _rotl32(v[0], 1) + _rotl32(v[1], 7) + _rotl32(v[2], 12) + _rotl32(v[3], 18)
        else:
            h = np.full(rows, seed + _XP5)
        h = h + _U32(n & 0xFFFFFFFF)
        while pos + 4 <= n:
            lane = data[:, pos:pos + 4].copy().view("<u4")[:, 0]
            h = _rotl32(h + lane * _XP3, 17) * _XP4
            pos += 4
        while pos < n:
            h = _rotl32(h + data[:, pos].astype(_U32) * _XP5, 11) * _XP1
            pos += 1
        h = (h ^ (h >> _U32(15))) * _XP2
        h = (h ^ (h >> _U32(13))) * _XP3
        return h ^ (h >> _U32(16))


_MC1, _MC2 = _U64(0x87C37B91114253D5), _U64(0x4CF5AD432745937F)


def _rotl64(v, r: int):
    return (v << _U64(r)) | (v >> _U64(64 - r))


def _fmix64(k):
    k = (k ^ (k >> _U64(33))) * _U64(0xFF51AFD7ED558CCD)
    k = (k ^ (k >> _U64(33))) * _U64(0xC4CEB9FE1A85EC53)
    return k ^ (k >> _U64(33))


def murmur3_x64_128_rows(data: np.ndarray, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """MurmurHash3_x64_128 of every row of a 2-D uint8 array: (h1, h2) as uint64."""
    rows, n = data.shape
    nblocks = n // 16
    tail = np.zeros((rows, 16), np.uint8)
    tail[:, :n - nblocks * 16] = data[:, nblocks * 16:]
    h1 = np.full(rows, _U64(seed & 0xFFFFFFFF))
    h2 = h1.copy()
    with np.errstate(over="ignore"):
        for i in range(nblocks):
            k1, k2 = data[:, i * 16:i * 16 + 16].copy().view("<u8").T
            h1 ^= _rotl64(k1 * _MC1, 31) * _MC2
            h1 = (_rotl64(h1, 27) + h2) * _U64(5) + _U64(0x52DCE729)
            h2 ^= _rotl64(k2 * _MC2, 33) * _MC1
            h2 = (_rotl64(h2, 31) + h1) * _U64(5) + _U64(0x38495AB5)
        t1, t2 = tail.view("<u8").T
        if n & 15 > 8:
            h2 ^= _rotl64(t2 * _MC2, 33) * _MC1
        if n & 15:
            h1 ^= _rotl64(t1 * _MC1, 31) * _MC2
        h1 ^= _U64(n)
        h2 ^= _U64(n)
        h1 = h1 + h2
        h2 = h2 + h1
        h1, h2 = _fmix64(h1), _fmix64(h2)
        h1 = h1 + h2
        h2 = h2 + h1
    return h1, h2


def rand_r(state: int) -> tuple[int, int]:
    """glibc's rand_r: (value in [0, 2^31), next state) — three LCG steps, 11 + 10 + 10 bits."""
    result = 0
    for bits in (2048, 1024, 1024):
        state = (state * 1103515245 + 12345) & 0xFFFFFFFF
        result = ((result << (10 if bits == 1024 else 0)) ^ ((state >> 16) % bits))
    return result, state


class _Bloom:
    """Paddle's math::bloomfilter laid over a float tensor's bytes: uint64 magic, m, k,
    count, then the bit vector (most significant bit first)."""

    MAGIC = 17070416

    def __init__(self, tensor, slot: str, length: int) -> None:
        raw = np.ascontiguousarray(np.asarray(tensor.data)).view(np.uint8).reshape(-1)
        head = raw[:32].copy().view("<u8") if raw.size >= 32 else np.zeros(4, _U64)
        if int(head[0]) != self.MAGIC:
            raise PreconditionNotMet(f"{_OP}: the {'white' if slot == 'WhiteList' else 'black'}"
                                     f" filter is not loaded successfully, please make sure "
                                     f"'{slot[:5].lower()}_list_len': {length} is valid for "
                                     f"Input({slot}) (magic number {int(head[0])}).")
        self.m, self.k = int(head[1]), int(head[2])
        self.bits = raw[32:]
        if self.m <= 0 or (self.m + 7) // 8 > self.bits.size:
            raise InvalidArgument(f"{_OP}: Input({slot}) holds {self.bits.size * 8} filter "
                                  f"bits, its header says m = {self.m}.")

    def contains(self, keys: np.ndarray) -> np.ndarray:
        """bloomfilter_get for each row of keys: both hash halves' bits set for every seed."""
        ok = np.ones(keys.shape[0], bool)
        for seed in range(self.k):
            for h in murmur3_x64_128_rows(keys, seed):
                bit = (h % _U64(self.m)).astype(np.int64)
                ok &= (self.bits[bit >> 3] & (0x80 >> (bit & 7))) != 0
        return ok


def _filters(ctx):
    if not ctx.attr("use_filter"):
        return None, None
    out = []
    for slot, attr in (("WhiteList", "white_list_len"), ("BlackList", "black_list_len")):
        n = int(ctx.attr(attr))
        t = ctx.input(slot)
        if n != 0 and (t is None or t.data is None):
            raise InvalidArgument(f"{_OP}: {attr} is {n} but Input({slot}) is not given.")
        out.append(_Bloom(t, slot, n) if n != 0 else None)
    return out


@register_fluid_kernel(_OP, "CPU", ("float32", "int8"))
class PyramidHashKernel(FluidKernel):
    """Out: one row of num_emb per kept n-gram of each sequence (a zero row for a sequence
    with none), rand_len-wide slices of W at XXH32(n-gram, c * rand_len) % space_len; LoD per
    sequence.  DropPos: 1 / 0 per n-gram considered (the rest of its rows zero: Paddle leaves
    them unwritten); X_Temp_Out: X as float32."""

    def compute(self, ctx) -> None:
        xt = ctx.input("X")
        x = np.asarray(xt.data)
        w = ctx.input_array("W")
        num_emb, rand_len = int(ctx.attr("num_emb")), int(ctx.attr("rand_len"))
        space_len, layers = int(ctx.attr("space_len")), int(ctx.attr("pyramid_layer"))
        if x.ndim != 2 or w.ndim != 2 or w.shape != (space_len + rand_len, 1):
            raise InvalidArgument(f"{_OP}: X must be 2-D and W [space_len + rand_len, 1] = "
                                  f"[{space_len + rand_len}, 1], got {list(x.shape)} and "
                                  f"{list(w.shape)}.")
        if rand_len <= 0 or num_emb % rand_len or space_len <= 0:
            raise InvalidArgument(f"{_OP}: num_emb ({num_emb}) must be a multiple of rand_len "
                                  f"({rand_len}) and space_len ({space_len}) positive.")
        if len(xt.lod) < 1:
            raise InvalidArgument(f"{_OP}: Input(X) needs a LoD (its sequences).")
        offs = xt.lod[0]
        rows = x.shape[0]
        temp = np.zeros(x.shape, np.float32)
        temp.reshape(-1)[:rows] = x.reshape(-1)[:rows]  # Paddle copies dims[0] ids
        flat = temp.reshape(-1)
        white, black = _filters(ctx)
        training = int(ctx.attr("is_training")) != 0
        drop = np.float32(ctx.attr("drop_out_percent"))
        state = int(ctx.attr("seed")) & 0xFFFFFFFF
        grams = []  # (sequence, start, length) in Paddle's order: sequence, layer, start
        for i in range(len(offs) - 1):
            width = offs[i + 1] - offs[i]
            for layer in range(1, min(layers, width)):
                grams += [(i, offs[i] + s, layer + 1) for s in range(width - layer)]
        use = np.ones(len(grams), bool)
        chunks = num_emb // rand_len
        slots = np.zeros((len(grams), chunks), np.int64)  # W offset of each rand_len slice
        for n in sorted({g[2] for g in grams}):
            idx = np.array([k for k, g in enumerate(grams) if g[2] == n])
            keys = np.stack([flat[grams[k][1]:grams[k][1] + n] for k in idx]).view(np.uint8)
            for f, want in ((white, True), (black, False)):
                if f is not None:
                    use[idx] &= f.contains(keys) == want
            for c in range(chunks):
                slots[idx, c] = xxh32_rows(keys, c * rand_len) % _U32(space_len)
        keep = use.copy()
        if training:  # one draw per n-gram the filters let through, in order
            for k in np.flatnonzero(use):
                value, state = rand_r(state)
                keep[k] = not np.float32(value) / np.float32(2147483647) < drop
        seqs = np.array([g[0] for g in grams], np.int64)[keep]
        kept = np.bincount(seqs, minlength=len(offs) - 1)
        rows_per_seq = np.maximum(kept, 1)  # a sequence without n-grams: one zero row
        out = np.zeros((int(rows_per_seq.sum()), num_emb), w.dtype)
        first = np.concatenate([[0], np.cumsum(rows_per_seq)])[seqs]
        rank = np.arange(seqs.size) - np.searchsorted(seqs, seqs)  # place within its sequence
        out[first + rank] = w.reshape(-1)[slots[keep][:, :, None] + np.arange(rand_len)] \
            .reshape(-1, num_emb)
        if not training and w.dtype != np.int8:
            out = (drop * out).astype(w.dtype)  # axpy_noadd: Out = drop_out_percent * Out
        drop_pos = np.zeros((rows * x.shape[1] * layers, 1), np.int32)
        drop_pos[:len(grams), 0] = keep
        ctx.set_output("Out", out, lod=from_lengths([rows_per_seq.tolist()]))
        ctx.set_output("DropPos", drop_pos, DataType.INT32, lod=from_lengths([kept.tolist()]))
        ctx.set_output("X_Temp_Out", temp, DataType.FLOAT32)

