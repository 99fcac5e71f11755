"""Paddle's CPU random stream, reproduced: ``std::mt19937_64`` seeded with the op's ``seed`` and
the libstdc++ distributions Paddle's CPU kernels draw from (``uniform_real_distribution``,
``normal_distribution``), vectorized with numpy.

A kernel with ``seed != 0`` makes a fresh engine (``engine->seed(seed)``), as Paddle's kernels
do, so the same seed gives Paddle's numbers.  ``seed == 0`` draws from Paddle's process-wide
generator, whose state this bridge cannot share: ``FLAGS_random_op_seed`` seeds a fresh engine
when non-zero, else fresh entropy does.  ``global_engine`` seeds it as ``paddle.seed`` does
(through ``std::seed_seq``), so the first op run after ``paddle.seed(S)`` gets Paddle's values
with the flag S (gaussian_inplace, dirichlet, gumbel_softmax use it; ``engine_for(0)`` does not
yet).  ``std::log`` / ``exp`` / ``pow`` are the C library's (phi.kernels.funcs.libm), as in Paddle.
"""

from __future__ import annotations

import secrets

import numpy as np

from phi import flags
from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.kernels.funcs import cast_array
from phi.kernels.funcs.common import shape_numel
from phi.kernels.funcs.libm import libm_log

__all__ = ["MT19937_64", "engine_for", "global_engine", "normal", "seed_seq_engine",
           "seed_seq_generate", "set_diagonal", "uniform_int", "uniform_real", "uniform_values"]

_N, _M = 312, 156
_MATRIX_A = np.uint64(0xB5026F5AA96619E9)
_UPPER = np.uint64(0xFFFFFFFF80000000)
_LOWER = np.uint64(0x7FFFFFFF)
_TWO64 = 18446744073709551616.0


class MT19937_64:
    """``std::mt19937_64``: the 64-bit Mersenne Twister with the C++ standard's seeding."""

    def __init__(self, seed: int) -> None:
        mt = [0] * _N
        mt[0] = seed & 0xFFFFFFFFFFFFFFFF
        for i in range(1, _N):
            prev = mt[i - 1]
            mt[i] = (6364136223846793005 * (prev ^ (prev >> 62)) + i) & 0xFFFFFFFFFFFFFFFF
        self._mt = np.array(mt, dtype=np.uint64)
        self._pos = _N
        self._out = np.empty(0, np.uint64)

    def _twist(self) -> None:
        mt = self._mt
        one = np.uint64(1)
        # i in [0, N-M): mt[i + 1] and mt[i + M] are still the old values
        y = (mt[:_N - _M] & _UPPER) | (mt[1:_N - _M + 1] & _LOWER)
        mt[:_N - _M] = mt[_M:] ^ (y >> one) ^ np.where(y & one, _MATRIX_A, np.uint64(0))
        # i in [N-M, N-1): mt[i + M - N] was renewed above
        y = (mt[_N - _M:_N - 1] & _UPPER) | (mt[_N - _M + 1:] & _LOWER)
        mt[_N - _M:_N - 1] = (mt[:_M - 1] ^ (y >> one)
                              ^ np.where(y & one, _MATRIX_A, np.uint64(0)))
        y = (mt[_N - 1] & _UPPER) | (mt[0] & _LOWER)
        mt[_N - 1] = mt[_M - 1] ^ (y >> one) ^ (_MATRIX_A if int(y) & 1 else np.uint64(0))
        # tempering of the whole block
        t = mt.copy()
        t ^= (t >> np.uint64(29)) & np.uint64(0x5555555555555555)
        t ^= (t << np.uint64(17)) & np.uint64(0x71D67FFFEDA60000)
        t ^= (t << np.uint64(37)) & np.uint64(0xFFF7EEE000000000)
        t ^= t >> np.uint64(43)
        self._out = t
        self._pos = 0

    def draw(self, n: int) -> np.ndarray:
        """The next ``n`` 64-bit outputs."""
        parts, need = [], n
        while need > 0:
            if self._pos >= _N:
                self._twist()
            take = min(need, _N - self._pos)
            parts.append(self._out[self._pos:self._pos + take])
            self._pos += take
            need -= take
        return np.concatenate(parts) if parts else np.empty(0, np.uint64)


def engine_for(seed: int) -> MT19937_64:
    """The engine a Paddle CPU kernel uses for attribute ``seed`` (see the module doc)."""
    seed = int(seed) or flags.FLAGS["FLAGS_random_op_seed"] or secrets.randbits(63)
    return MT19937_64(seed)


_M32 = 0xFFFFFFFF


def seed_seq_generate(values: list[int], n: int) -> list[int]:
    """``std::seed_seq(values).generate`` of ``n`` 32-bit words ([rand.util.seedseq])."""
    b = [0x8B8B8B8B] * n
    s = len(values)
    t = 11 if n >= 623 else 7 if n >= 68 else 5 if n >= 39 else 3 if n >= 7 else (n - 1) // 2
    p = (n - t) // 2
    q, m = p + t, max(s + 1, n)
    for k in range(m):
        x = b[k % n] ^ b[(k + p) % n] ^ b[(k - 1) % n]
        r1 = (1664525 * (x ^ (x >> 27))) & _M32
        r2 = (r1 + (s if k == 0 else (k % n + values[k - 1] if k <= s else k % n))) & _M32
        b[(k + p) % n] = (b[(k + p) % n] + r1) & _M32
        b[(k + q) % n] = (b[(k + q) % n] + r2) & _M32
        b[k % n] = r2
    for k in range(m, m + n):
        x = (b[k % n] + b[(k + p) % n] + b[(k - 1) % n]) & _M32
        r3 = (1566083941 * (x ^ (x >> 27))) & _M32
        r4 = (r3 - k % n) & _M32
        b[(k + p) % n] ^= r3
        b[(k + q) % n] ^= r4
        b[k % n] = r4
    return b


def seed_seq_engine(seed: int) -> MT19937_64:
    """``std::mt19937_64`` seeded through ``std::seed_seq{seed}`` (the seed taken mod 2**32), as
    Paddle's Generator::SetCurrentSeed, i.e. ``paddle.seed(seed)``, seeds the process-wide CPU
    engine: two 32-bit words per state word, low word first."""
    words = seed_seq_generate([int(seed) & _M32], 2 * _N)
    mt = [words[2 * i] | (words[2 * i + 1] << 32) for i in range(_N)]
    if (mt[0] & 0xFFFFFFFF80000000) == 0 and not any(mt[1:]):
        mt[0] = 1 << 63  # the standard's all-zero guard
    engine = MT19937_64(0)
    engine._mt = np.array(mt, dtype=np.uint64)
    engine._pos = _N
    return engine


def global_engine() -> MT19937_64:
    """Paddle's process-wide CPU engine (what a kernel draws for ``seed == 0``, or one without a
    seed attribute) as it stands right after ``paddle.seed(FLAGS_random_op_seed)``: the first op
    run after that call gets these numbers.  Flag 0: fresh entropy."""
    seed = flags.FLAGS["FLAGS_random_op_seed"]
    return seed_seq_engine(seed) if seed else MT19937_64(secrets.randbits(63))


def _canonical(engine: MT19937_64, n: int, dtype) -> np.ndarray:
    """``std::generate_canonical<T, digits>`` over mt19937_64: one draw per value, the 64-bit
    integer converted to T, divided by 2**64 in T, kept below 1."""
    dtype = np.dtype(dtype)
    u = engine.draw(n).astype(dtype) / dtype.type(_TWO64)
    below_one = np.nextafter(dtype.type(1), dtype.type(0))
    return np.where(u >= 1, below_one, u).astype(dtype)


def uniform_real(engine: MT19937_64, n: int, low: float, high: float, dtype) -> np.ndarray:
    """``std::uniform_real_distribution<T>(low, high)`` drawn ``n`` times: u * (b - a) + a in T."""
    dtype = np.dtype(dtype)
    a, b = dtype.type(low), dtype.type(high)
    return (_canonical(engine, n, dtype) * (b - a) + a).astype(dtype)


def normal(engine: MT19937_64, n: int, mean: float, std: float, dtype) -> np.ndarray:
    """``std::normal_distribution<T>(mean, std)`` drawn ``n`` times: libstdc++'s Marsaglia polar
    method, two values per accepted pair (the second one first), rejected pairs skipped."""
    dtype = np.dtype(dtype)
    out = np.empty(n, dtype)
    filled = 0
    two, one = dtype.type(2), dtype.type(1)
    while filled < n:
        pairs = max(8, int((n - filled) / 2 * 1.3) + 8)
        u = _canonical(engine, 2 * pairs, dtype).reshape(pairs, 2)
        x = two * u[:, 0] - one
        y = two * u[:, 1] - one
        r2 = x * x + y * y
        ok = (r2 <= one) & (r2 != 0)
        x, y, r2 = x[ok], y[ok], r2[ok]
        # std::log is the C library's: glibc's logf is not correctly rounded, and numpy's
        # vectorised log differs from glibc's in the last bit of some values of either dtype
        log = libm_log(r2)
        mult = np.sqrt(dtype.type(-2) * log / r2).astype(dtype)
        vals = np.stack([y * mult, x * mult], axis=1).reshape(-1)  # y first, x saved for next
        take = min(n - filled, vals.size)
        out[filled:filled + take] = vals[:take]
        filled += take  # (a batch may draw past the last value used: the engine is the op's)
    return (out * dtype.type(std) + dtype.type(mean)).astype(dtype)


_M64 = (1 << 64) - 1


def uniform_int(engine: MT19937_64, n: int, low: int, high: int) -> np.ndarray:
    """``std::uniform_int_distribution<int64>(low, high)`` (inclusive) drawn ``n`` times:
    libstdc++'s downscaling of a 64-bit draw by Lemire's multiply-shift with rejection."""
    span = high - low + 1
    out = np.empty(n, np.int64)
    if span > _M64:  # the whole 64-bit range
        return (engine.draw(n).astype(np.int64) + low).astype(np.int64)
    threshold = ((1 << 64) - span) % span
    for i in range(n):
        while True:
            product = int(engine.draw(1)[0]) * span
            if (product & _M64) >= threshold:
                break
        out[i] = low + (product >> 64)
    return out


def uniform_values(ctx, dims, dtype: DataType, low: float, high: float, seed: int):
    """UniformRealDistribution<T>: float for bfloat16 / float16, then converted as Paddle does."""
    n = shape_numel(dims)
    engine = engine_for(seed)
    if dtype in (DataType.BFLOAT16, DataType.FLOAT16):
        return cast_array(ctx, uniform_real(engine, n, low, high, np.float32).reshape(dims),
                          dtype)
    return uniform_real(engine, n, low, high, dtype.to_numpy()).reshape(dims)


def set_diagonal(ctx, out, diag_num: int, diag_step: int, diag_val: float):
    """diag_val at flat positions i * diag_step + i of ``out`` for i < diag_num (uniform_raw's
    and uniform_random_batch_size_like's diagonal)."""
    if diag_num <= 0:
        return out
    flat = out.reshape(-1)
    last = (diag_num - 1) * diag_step + (diag_num - 1)
    if last >= flat.size:
        raise InvalidArgument(f"The index of the diagonal elements is out of bounds: "
                              f"diag_num {diag_num}, diag_step {diag_step}, size {flat.size}.")
    pos = np.arange(diag_num) * (diag_step + 1)
    flat[pos] = cast_array(ctx, np.full(diag_num, diag_val, np.float32),
                           ctx.data_type(out))
    return flat.reshape(out.shape)
