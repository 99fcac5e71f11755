"""Kernels of helper `misc1`: check_numerics, the float-status ops, the pow2-decay learning-rate
scheduler and the random ops rrelu, gaussian_inplace, dirichlet and gumbel_softmax (Paddle's
paddle/phi/kernels/{cpu,impl}/{check_numerics,pow2_decay_with_linear_warmup,rrelu,gaussian,
dirichlet,gumbel_softmax}_kernel*, fluid/operators/amp/*_float_status_op.cc).

gaussian_inplace, dirichlet and gumbel_softmax draw Paddle's CPU streams (phi/kernels/
cpu_random.py): a fresh mt19937_64 for gaussian_inplace's non-zero ``seed``, else Paddle's
process-wide engine as ``paddle.seed(FLAGS_random_op_seed)`` leaves it (fresh entropy for flag
0), through libstdc++'s distributions and the C library's log / exp / pow.  gaussian_inplace and
dirichlet give Paddle's values bit for bit; gumbel_softmax within an ulp or so (Paddle's logs,
exps come from Eigen / the vector library).  rrelu's draws still come from numpy's generator
(an op seed, else the flag, else entropy): distributed as Paddle's, never bitwise equal; its
deterministic settings (is_test, lower == upper) give exactly Paddle's values.
"""

from __future__ import annotations

import math

import numpy as np

from phi import flags
from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument, PreconditionNotMet, Unimplemented
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import as_array, half_op, quiet, to_half

__all__ = ["alloc_float_status", "check_numerics", "clear_float_status", "dirichlet",
           "gaussian_inplace", "get_float_status", "gumbel_softmax",
           "pow2_decay_with_linear_warmup", "rrelu"]

# Paddle 2.6.2 CPU registrations (corpus cpu_ops.json)
F = ["float32", "float64"]
HALF = (DataType.FLOAT16, DataType.BFLOAT16)



def _rng(seed: int = 0) -> np.random.Generator:
    """The op's seed when non-zero, else FLAGS_random_op_seed when non-zero, else entropy."""
    seed = seed or flags.FLAGS["FLAGS_random_op_seed"]
    return np.random.default_rng(seed if seed else None)


def _device(ctx, array):
    return array if ctx.xp is np else ctx.from_host(array)


# -- check_numerics ----------------------------------------------------------------------------

_MT = {DataType.FLOAT64: np.float64, DataType.COMPLEX128: np.float64}


@register_kernel("check_numerics", ("CPU", "GPU"),
                 dtypes=["bfloat16", "complex128", "complex64", "float16", "float32", "float64"],
                 output_defs={0: {"dtype": DataType.INT64}, 1: {"dtype": DataType.FLOAT32}})
def check_numerics(ctx, tensor: Tensor, op_type: str, var_name: str, check_nan_inf_level: int,
                   stack_height_limit: int, output_dir: str) -> tuple[Tensor, Tensor]:
    """stats = [#NaN, #Inf, #zero], values = [max, min, mean] as float32; NaN / Inf raise
    PreconditionNotMet at level 0.  A complex tensor is only checked: NaN / Inf in either part
    raise at every level, and stats / values (unwritten by Paddle) are zeros."""
    dtype = ctx.data_type(tensor)
    mt = _MT.get(dtype, np.float32)  # Paddle's MPTypeTrait: double stays double, else float
    v = np.asarray(ctx.to_host(tensor))
    if v.dtype.kind == "c":
        if not np.all(np.isfinite(v)):
            raise PreconditionNotMet(
                f"There are NAN or INF in [device=cpu, op={op_type}, tensor={var_name}].")
        return (_device(ctx, np.zeros(3, np.int64)), _device(ctx, np.zeros(3, np.float32)))
    v = np.asarray(v, dtype=mt).reshape(-1)
    with np.errstate(all="ignore"):
        nan = int(np.count_nonzero(np.isnan(v)))
        inf = int(np.count_nonzero(np.isinf(v)))
        zero = int(np.count_nonzero(v == 0))
        # std::max / std::min: NaN never wins (an all -inf tensor's max is -inf, as in Paddle)
        finite = v[~np.isnan(v)]
        vmax = np.max(finite, initial=-np.inf)
        vmin = np.min(finite, initial=np.inf)
        # mean += v[i] / numel, one element after another in MT (Paddle-made cases
        # hb_check_numerics_long_*: numpy's pairwise sum differs in the last bits)
        mean = np.cumsum(v / mt(v.size), dtype=mt)[-1] if v.size else mt(0)
    if (nan or inf) and check_nan_inf_level == 0:
        raise PreconditionNotMet(
            f"There are NAN or INF (num_nan={nan}, num_inf={inf}, num_zero={zero}) in "
            f"[device=cpu, op={op_type}, tensor={var_name}, dtype={dtype.name.lower()}].")
    stats = np.array([nan, inf, zero], dtype=np.int64)
    values = np.array([vmax, vmin, mean], dtype=mt).astype(np.float32)
    return _device(ctx, stats), _device(ctx, values)


# -- float status: Paddle 2.6.2 has NPU kernels only; its CPU kernels throw ---------------------

def _no_cpu(name: str):
    raise Unimplemented(f"Operator {name} is not supported on CPU.")


@register_kernel("alloc_float_status", ("CPU",), dtypes=["float32"])
def alloc_float_status(ctx) -> Tensor:
    """Unimplemented on CPU, as in Paddle."""
    _no_cpu("alloc_float_status")


@register_kernel("get_float_status", ("CPU",), dtypes=["float32"])
def get_float_status(ctx, float_status: Tensor) -> Tensor:
    """Unimplemented on CPU, as in Paddle."""
    _no_cpu("get_float_status")


@register_kernel("clear_float_status", ("CPU",), dtypes=["float32"])
def clear_float_status(ctx, float_status: Tensor) -> Tensor:
    """Unimplemented on CPU, as in Paddle."""
    _no_cpu("clear_float_status")


# -- pow2_decay_with_linear_warmup --------------------------------------------------------------

@register_kernel("pow2_decay_with_linear_warmup", ("CPU", "GPU"), dtypes=F,
                 input_defs={"step": {"dtype": DataType.INT64}},
                 output_defs={1: {"dtype": DataType.INT64}})
def pow2_decay_with_linear_warmup(ctx, lr: Tensor, step: Tensor, warmup_steps: int,
                                  total_steps: int, base_lr: float, end_lr: float
                                  ) -> tuple[Tensor, Tensor]:
    """step += 1; lr = base_lr * step / warmup while step <= warmup, then
    (base_lr - end_lr) * (1 - (step - warmup) / (total - warmup))^2 + end_lr while
    step < total, else end_lr (in double, then cast to lr's dtype)."""
    now = int(np.asarray(ctx.to_host(step)).reshape(-1)[0]) + 1
    base, end = float(np.float32(base_lr)), float(np.float32(end_lr))
    if now <= warmup_steps:
        new_lr = now / warmup_steps * base
    elif now < total_steps:
        factor = 1 - (now - warmup_steps) / (total_steps - warmup_steps)
        new_lr = (base - end) * (factor * factor) + end
    else:
        new_lr = end
    lr_out = np.full(tuple(lr.shape), new_lr, dtype=lr.dtype)
    step_out = np.full(tuple(step.shape), now, dtype=np.int64)
    return _device(ctx, lr_out), _device(ctx, step_out)


# -- rrelu --------------------------------------------------------------------------------------

@register_kernel("rrelu", ("CPU", "GPU"), dtypes=["float16", *F])
def rrelu(ctx, x: Tensor, lower: float, upper: float, is_test: bool) -> tuple[Tensor, Tensor]:
    """x < 0 ? a * x : x with noise = a (else 1): a = (lower + upper) / 2 in test mode, a draw
    of U(lower, upper) per negative element in training (NaN and -0.0 pass through)."""
    xp = ctx.xp
    dtype = ctx.data_type(x)
    neg = x < 0
    if is_test:
        a = np.float32((np.float32(lower) + np.float32(upper)) / np.float32(2))
        a = np.full(tuple(x.shape), a, dtype=np.float32)
    else:
        # std::uniform_real_distribution<float>(lower, upper), one draw per negative element
        a = _rng().uniform(np.float32(lower), np.float32(upper), tuple(x.shape))
        a = a.astype(np.float32)
    a = _device(ctx, a)
    if dtype in HALF:
        a = to_half(ctx, a, dtype)
        scaled = half_op(ctx, lambda s, v: s * v, a, x)
    else:
        a = a.astype(x.dtype)
        with quiet(xp):
            scaled = a * x
    one = xp.ones((), dtype=x.dtype)
    return as_array(xp, xp.where(neg, scaled, x)), as_array(xp, xp.where(neg, a, one))


# -- gaussian_inplace ---------------------------------------------------------------------------

@register_kernel("gaussian_inplace", ("CPU", "GPU"), dtypes=F)
def gaussian_inplace(ctx, x: Tensor, mean: float, std: float, seed: int) -> Tensor:
    """x refilled with N(mean, std) draws in x's order, Paddle's CPU stream: one
    std::normal_distribution<T>(mean, std) (libstdc++'s Marsaglia polar method) over a fresh
    mt19937_64 seeded with ``seed``, or over the process-wide engine for seed 0
    (cpu_random.global_engine: paddle.seed(FLAGS_random_op_seed))."""
    from phi.kernels.funcs.cpu_random import MT19937_64, global_engine, normal

    engine = MT19937_64(seed) if seed else global_engine()
    out = normal(engine, int(np.prod(x.shape, dtype=np.int64)), mean, std, x.dtype)
    return _device(ctx, out.reshape(tuple(x.shape)))


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
    return _device(ctx, np.asarray(out, dtype=a.dtype))


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


# -- gumbel_softmax -----------------------------------------------------------------------------

def _softmax_sum(e: np.ndarray, ax: int) -> np.ndarray:
    """The sums of Paddle's CPU softmax along ``ax`` (keepdims), in its order: on the last axis
    of float32 with 8 or more values, AVX's vec_sum (eight lanes summed block by block, folded
    as ((l0 + l1) + (l4 + l5)) + ((l2 + l3) + (l6 + l7)), then the tail one by one); otherwise
    one value after another."""
    t = e.dtype.type
    rows = np.moveaxis(e, ax, -1)
    flat = rows.reshape(-1, rows.shape[-1])
    n = flat.shape[1]
    if ax == e.ndim - 1 and e.dtype == np.float32 and n >= 8:
        end = n & ~7
        lanes = flat[:, 0:8].copy()
        for j in range(8, end, 8):
            lanes = (lanes + flat[:, j:j + 8]).astype(e.dtype)
        lo = (lanes[:, 0] + lanes[:, 1]) + (lanes[:, 4] + lanes[:, 5])
        hi = (lanes[:, 2] + lanes[:, 3]) + (lanes[:, 6] + lanes[:, 7])
        total = (lo + hi).astype(e.dtype)
        start = end
    else:
        total, start = np.zeros(flat.shape[0], e.dtype), 0
    for j in range(start, n):
        total = (total + flat[:, j]).astype(e.dtype)
    total = total.reshape((*rows.shape[:-1], 1)).astype(t)
    return np.moveaxis(total, -1, ax)


@register_kernel("gumbel_softmax", ("CPU", "GPU"), dtypes=F)
def gumbel_softmax(ctx, x: Tensor, temperature: float, hard: bool, axis: int) -> Tensor:
    """softmax((x + g) / temperature) along axis, g = -log(-log(u)) with u ~ U(1e-5, 1) in x's
    dtype (Paddle's bounds); hard: the one-hot of the softmax's first maximum."""
    if not temperature > 0:
        raise InvalidArgument(f"gumbel_softmax: the temperature must be greater than 0, but "
                              f"received temperature = {temperature}.")
    v = np.asarray(ctx.to_host(x))
    if v.size == 0:
        return _device(ctx, np.empty(v.shape, v.dtype))
    if v.ndim == 0:  # one class: softmax is 1
        return _device(ctx, np.ones((), v.dtype))
    if hard and v.ndim > 6:
        raise InvalidArgument("gumbel_softmax operator doesn't supports tensors whose ranks "
                              f"are greater than 6 in CPU mode, but received rank {v.ndim}.")
    ax = axis + v.ndim if axis < 0 else axis
    t = v.dtype.type
    from phi.kernels.funcs.cpu_random import global_engine, uniform_real
    from phi.kernels.funcs.libm import libm_exp, libm_log

    with np.errstate(all="ignore"):
        # std::uniform_real_distribution<T>(0.00001, 1) over the process-wide engine, in x's
        # order; the noise -log(-log(u)); Paddle's CPU softmax: shifted logits clipped at -64,
        # exp, times 1 / sum.  Its logs and exps are Eigen's / the vector library's, here the C
        # library's: they may differ in the last bit
        u = uniform_real(global_engine(), v.size, 1e-5, 1.0, v.dtype).reshape(v.shape)
        y = (v + -libm_log(-libm_log(u))) / t(np.float32(temperature))
        e = libm_exp(np.maximum(y - np.max(y, axis=ax, keepdims=True), t(-64)))
        out = e * (t(1) / _softmax_sum(e, ax))
    if hard:
        idx = np.expand_dims(np.argmax(out, axis=ax), ax)
        out = np.zeros_like(out)
        np.put_along_axis(out, idx, t(1), axis=ax)
    return _device(ctx, np.asarray(out, dtype=v.dtype))
