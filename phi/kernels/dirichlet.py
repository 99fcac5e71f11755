"""The ``dirichlet`` kernel."""

from __future__ import annotations

import math

import numpy as np

from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.common import on_device

__all__ = ["dirichlet"]


# Paddle 2.6.2 CPU registrations (corpus cpu_ops.json)
F = ["float32", "float64"]


# -- dirichlet ----------------------------------------------------------------------------------

@register_kernel("dirichlet", ("CPU", "GPU"), dtypes=F)
def dirichlet(ctx, alpha: Tensor) -> Tensor:
    """Gamma(alpha_i, 1) draws normalised along the last axis, Paddle's CPU stream: the
    process-wide engine (cpu_random.global_engine), one gamma after another in alpha's order
    (_gamma_sample), each at least T's smallest normal; the sum along the last axis one value
    after another in T, then gamma / sum."""
    from phi.kernels.funcs.cpu_random import global_engine

    a = np.asarray(ctx.to_host(alpha))
    if a.size == 0:
        # Paddle's ReduceSum of the gamma samples refuses an empty tensor
        raise InvalidArgument("dirichlet: Tensor need be reduced must not empty, but "
                              f"Input(Alpha) has the shape {list(a.shape)}.")
    t = a.dtype.type
    draws = _CanonicalStream(global_engine(), a.dtype)
    tiny = np.finfo(a.dtype).tiny
    with np.errstate(all="ignore"):
        g = np.array([_gamma_sample(t(v), draws) for v in a.reshape(-1)], a.dtype)
        g = np.where(tiny < g, g, t(tiny)).reshape(a.shape)  # std::max(min(), sample)
        total = np.zeros((*a.shape[:-1], 1), a.dtype)
        for k in range(a.shape[-1]):
            total = (total + g[..., k:k + 1]).astype(a.dtype)
        out = g / total
    return on_device(ctx, np.asarray(out, dtype=a.dtype))


def _c_log(v):
    """std::log of one value of T (the C library's logf / log)."""
    from phi.kernels.funcs.libm import libm_log

    return libm_log(np.asarray(v))[()]


class _CanonicalStream:
    """std::generate_canonical<T> values one at a time from an engine (drawn in blocks: the
    engine is the op's own, so drawing past the last value used changes nothing)."""

    def __init__(self, engine, dtype) -> None:
        self._engine, self._dtype = engine, np.dtype(dtype)
        self._buf: list = []
        self._pos = 0

    def next(self):
        if self._pos == len(self._buf):
            from phi.kernels.funcs.cpu_random import uniform_real

            self._buf = list(uniform_real(self._engine, 312, 0.0, 1.0, self._dtype))
            self._pos = 0
        self._pos += 1
        return self._buf[self._pos - 1]

    def normal(self):
        """A fresh std::normal_distribution<T>(0, 1) per value (as Paddle's sampler lambda
        makes one per call): one accepted polar pair, y * mult returned, x * mult lost."""
        t = self._dtype.type
        while True:
            x = t(t(2) * self.next() - t(1))
            y = t(t(2) * self.next() - t(1))
            r2 = t(x * x + y * y)
            if r2 <= 1 and r2 != 0:
                break
        # sqrt is correctly rounded in either precision; the log is the C library's
        mult = t(math.sqrt(float(t(t(-2) * _c_log(r2) / r2))))
        return t(y * mult)


def _gamma_sample(alpha, draws: _CanonicalStream):
    """Paddle's sample_gamma on the CPU (dirichlet_kernel_impl.h, after numpy's legacy
    generator): alpha < 1 boosted by one uniform, then Marsaglia and Tsang's acceptance-
    rejection with standard normals and uniforms; arithmetic in T, the C++ float literals
    (1/3, 0.0331) as floats even for double."""
    from phi.kernels.funcs.libm import libm_pow

    t = type(alpha)
    f32 = np.float32
    scale, orig = t(1), alpha
    if alpha < 1:
        if alpha == 0:
            return t(0)
        u = draws.next()
        # std::pow(1 - u, 1.0f / alpha): the C library's powf for float, pow for double
        scale = t(scale * libm_pow(t(1) - u, t(t(1) / alpha), t))
        alpha = t(alpha + t(1))
    d = t(alpha - t(f32(1) / f32(3)))
    if not d >= 0:
        # an Alpha below -2/3, or NaN: c is NaN and Paddle's rejection loop never returns
        raise InvalidArgument(f"dirichlet: every Alpha must be at least -2/3 (Paddle's gamma "
                              f"sampler never ends on a smaller one or NaN), got {orig}.")
    c = t(t(1) / t(math.sqrt(float(t(9) * d))))
    small = t(f32(0.0331))
    while True:
        while True:
            x = draws.normal()
            y = t(t(1) + c * x)
            if not y <= 0:  # do { ... } while (y <= 0): a NaN leaves the loop
                break
        v = t(y * y * y)
        u = t(t(1) - draws.next())
        xx = t(x * x)
        if u < t(t(1) - t(small * xx) * xx):
            return t(t(scale * d) * v)
        if _c_log(u) < t(t(0.5) * xx) + d * t(t(t(1) - v) + _c_log(v)):
            return t(t(scale * d) * v)
