"""Paddle's CPU random stream, reproduced: ``std::mt19937_64`` seeded with the op's ``seed`` and
the libstdc++ distributions Paddle's CPU kernels draw from (``uniform_real_distribution``,
``normal_distribution``), vectorized with numpy.

A kernel with ``seed != 0`` makes a fresh engine (``engine->seed(seed)``), as Paddle's kernels
do, so the same seed gives Paddle's numbers.  ``seed == 0`` draws from Paddle's process-wide
generator, whose state this bridge cannot share: ``FLAGS_random_op_seed`` seeds a fresh engine
when non-zero, else fresh entropy does.
"""

from __future__ import annotations

import secrets

import numpy as np

from phi import flags

__all__ = ["MT19937_64", "engine_for", "normal", "uniform_int", "uniform_real"]

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
        # glibc's logf is correctly rounded; numpy's float32 log may be off by an ulp, so the
        # log is taken in double and rounded once
        log = np.log(r2.astype(np.float64)).astype(dtype)
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
