"""Kernels of helper `misc1`: check_numerics, the float-status ops, the pow2-decay learning-rate
scheduler and the random ops rrelu, gaussian_inplace, dirichlet and gumbel_softmax (Paddle's
paddle/phi/kernels/{cpu,impl}/{check_numerics,pow2_decay_with_linear_warmup,rrelu,gaussian,
dirichlet,gumbel_softmax}_kernel*, fluid/operators/amp/*_float_status_op.cc).

Random draws come from numpy's generator, not Paddle's mt19937_64 streams: an op's ``seed``
attribute when non-zero, else ``FLAGS_random_op_seed`` when non-zero, else fresh entropy. The
draws are distributed as Paddle's but never bitwise equal to them; deterministic settings
(rrelu's is_test, lower == upper, std 0, one category) give exactly Paddle's values.
"""

from __future__ import annotations

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

flags.define_flag("FLAGS_random_op_seed", int, 0,
                  "Seed of rrelu / gaussian_inplace / dirichlet / gumbel_softmax draws when the op "
                  "has no seed of its own (0: fresh entropy, as Paddle's global generator).")


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
    """x refilled with N(mean, std) draws (std::normal_distribution<T>): seed 0 means the
    global generator."""
    z = _rng(seed).standard_normal(tuple(x.shape))
    out = (np.asarray(mean, x.dtype) + np.asarray(std, x.dtype) * z.astype(x.dtype))
    return _device(ctx, np.asarray(out, dtype=x.dtype))


# -- dirichlet ----------------------------------------------------------------------------------

@register_kernel("dirichlet", ("CPU", "GPU"), dtypes=F)
def dirichlet(ctx, alpha: Tensor) -> Tensor:
    """Gamma(alpha_i, 1) draws normalised along the last axis."""
    a = np.asarray(ctx.to_host(alpha))
    if a.size == 0:
        # Paddle's ReduceSum of the gamma samples refuses an empty tensor
        raise InvalidArgument("dirichlet: Tensor need be reduced must not empty, but "
                              f"Input(Alpha) has the shape {list(a.shape)}.")
    with np.errstate(all="ignore"):
        g = _rng().standard_gamma(a.astype(np.float64)).astype(a.dtype)
        out = g / np.sum(g, axis=-1, keepdims=True)
    return _device(ctx, np.asarray(out, dtype=a.dtype))


# -- gumbel_softmax -----------------------------------------------------------------------------

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
    with np.errstate(all="ignore"):
        u = _rng().uniform(1e-5, 1.0, v.shape).astype(v.dtype)
        y = (v + -np.log(-np.log(u))) / t(temperature)
        e = np.exp(y - np.max(y, axis=ax, keepdims=True))
        out = e / np.sum(e, axis=ax, keepdims=True)
    if hard:
        idx = np.expand_dims(np.argmax(out, axis=ax), ax)
        out = np.zeros_like(out)
        np.put_along_axis(out, idx, t(1), axis=ax)
    return _device(ctx, np.asarray(out, dtype=v.dtype))
