"""Random ops of issue 12 (io / random / control): uniform, uniform_raw, gaussian,
truncated_gaussian_random, randint(_with_seed), randperm, uniform_inplace, bernoulli,
multinomial, exponential, poisson, dropout_nd and class_center_sample (Paddle's
paddle/phi/kernels/cpu/*_kernel.cc).

Ops with a seed draw Paddle's own stream (phi/kernels/funcs/cpu_random.py), so a non-zero seed gives
Paddle's numbers: uniform(_raw), uniform_inplace, gaussian, dropout_nd, and randint (see
``randint_with_seed``).  Ops Paddle runs on its process-wide generator (bernoulli,
multinomial, exponential, poisson, randperm, and any seed 0) draw from a fresh engine: the
same distribution, other numbers (docs/design.md).
"""

from __future__ import annotations

import math

import numpy as np

from phi.common.data_type import DataType
from phi.common.int_array import IntArray
from phi.common.scalar import Scalar
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.cpu_random import MT19937_64, engine_for, normal, uniform_int, uniform_real
from phi.kernels.funcs import cast_array
from phi.kernels.funcs.special import ndtri64

__all__ = ["bernoulli", "class_center_sample", "dropout_nd", "exponential", "gaussian",
           "multinomial", "poisson", "randint", "randint_with_seed", "randperm",
           "truncated_gaussian_random", "uniform", "uniform_inplace", "uniform_raw"]

_FLOATS = ["float32", "float64"]


def _numel(shape) -> int:
    return int(np.prod(shape, dtype=np.int64))


def _dims(shape: IntArray | list) -> tuple[int, ...]:
    dims = tuple(int(d) for d in (shape.data if isinstance(shape, IntArray) else shape))
    if any(d < 0 for d in dims):
        raise InvalidArgument(f"The shape of a random tensor must not be negative, got "
                              f"{list(dims)}.")
    return dims


def _uniform_values(ctx, dims, dtype: DataType, low: float, high: float, seed: int):
    """UniformRealDistribution<T>: float for bfloat16 / float16, then converted as Paddle does."""
    n = _numel(dims)
    engine = engine_for(seed)
    if dtype in (DataType.BFLOAT16, DataType.FLOAT16):
        return cast_array(ctx, uniform_real(engine, n, low, high, np.float32).reshape(dims),
                          dtype)
    return uniform_real(engine, n, low, high, dtype.to_numpy()).reshape(dims)


@register_kernel("uniform", "CPU", dtypes=["bfloat16", "float32", "float64"])
def uniform(ctx, shape: IntArray, dtype: DataType, min: Scalar, max: Scalar, seed: int
            ) -> Tensor:
    """U(min, max) of ``shape``, Paddle's mt19937_64 stream for a non-zero seed."""
    return _uniform_values(ctx, _dims(shape), dtype, float(np.float32(min.value)),
                           float(np.float32(max.value)), seed)


@register_kernel("uniform_raw", "CPU", dtypes=["bfloat16", "float32", "float64"])
def uniform_raw(ctx, shape: IntArray, dtype: DataType, min: Scalar, max: Scalar, seed: int,
                diag_num: int, diag_step: int, diag_val: float) -> Tensor:
    """``uniform``, then diag_val at flat positions i * diag_step + i for i < diag_num."""
    out = _uniform_values(ctx, _dims(shape), dtype, float(np.float32(min.value)),
                          float(np.float32(max.value)), seed)
    return _diag(ctx, out, diag_num, diag_step, diag_val)


def _diag(ctx, out, diag_num: int, diag_step: int, diag_val: float):
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


@register_kernel("uniform_inplace", "CPU", dtypes=_FLOATS)
def uniform_inplace(ctx, x: Tensor, min: float, max: float, seed: int, diag_num: int,
                    diag_step: int, diag_val: float) -> Tensor:
    """x's shape and dtype filled with U(min, max) (diag_* unused on CPU, as in Paddle)."""
    return uniform_real(engine_for(seed), x.size, min, max, x.dtype).reshape(x.shape)


@register_kernel("gaussian", "CPU", dtypes=_FLOATS)
def gaussian(ctx, shape: IntArray, mean: float, std: float, seed: int, dtype: DataType
             ) -> Tensor:
    """N(mean, std) of ``shape`` (std::normal_distribution: Paddle's values for a seed)."""
    dims = _dims(shape)
    return normal(engine_for(seed), _numel(dims), mean, std, dtype.to_numpy()).reshape(dims)


@register_kernel("truncated_gaussian_random", "CPU", dtypes=_FLOATS)
def truncated_gaussian_random(ctx, shape: list[int], mean: float, std: float, seed: int,
                              dtype: DataType) -> Tensor:
    """N(mean, std) truncated to mean +- 2 std, by inverse CDF of u ~ U(FLT_MIN, 1) as
    Paddle's TruncatedNormal does."""
    dims = _dims(shape)
    t = np.dtype(dtype.to_numpy())
    u = uniform_real(engine_for(seed), _numel(dims), float(np.finfo(np.float32).tiny), 1.0, t)
    a = 0.5 * (1.0 + math.erf(-2.0 / math.sqrt(2.0)))
    b = 0.5 * (1.0 + math.erf(2.0 / math.sqrt(2.0)))
    p = a + (b - a) * u.astype(np.float64)
    # sqrt(2) * erfinv(2p - 1) = ndtri(p)
    return (ndtri64(np, p) * std + mean).astype(t).reshape(dims)


@register_kernel("randint", "CPU", dtypes=["int32", "int64"])
def randint(ctx, low: int, high: int, shape: IntArray, dtype: DataType) -> Tensor:
    """Integers uniform in [low, high) from Paddle's process-wide generator (seed 0)."""
    return _randint(low, high, _dims(shape), dtype, engine_for(0))


@register_kernel("randint_with_seed", "CPU", dtypes=["int32", "int64"])
def randint_with_seed(ctx, low: int, high: int, shape: IntArray, seed_attr: int, dtype_attr: int
                      ) -> Tensor:
    """Paddle 2.6.2's RandintWithSeedKernel takes (..., dtype, seed) while the legacy op's
    signature passes (..., seed, dtype): its engine is seeded with the dtype attribute (3 for
    int64, 2 for int32) and the seed attribute is ignored.  Reproduced: Paddle's numbers."""
    return _randint(low, high, _dims(shape), DataType.from_proto(int(dtype_attr)),
                    MT19937_64(int(dtype_attr)))


def _randint(low: int, high: int, dims, dtype: DataType, engine) -> np.ndarray:
    if low >= high:
        raise InvalidArgument(f"randint's low must less then high, but received: low = {low}, "
                              f"high = {high}.")
    values = uniform_int(engine, _numel(dims), low, high - 1)
    return values.astype(dtype.to_numpy()).reshape(dims)


@register_kernel("randperm", "CPU", dtypes=["float32", "float64", "int32", "int64"])
def randperm(ctx, n: int, dtype: DataType) -> Tensor:
    """A random permutation of 0..n-1 (std::shuffle on the process-wide generator)."""
    if n < 0:
        raise InvalidArgument(f"The input n should be greater than 0 in randperm op, got {n}.")
    engine = engine_for(0)
    perm = np.arange(n)
    for i in range(n - 1, 0, -1):  # Fisher-Yates with the engine's integers
        j = int(uniform_int(engine, 1, 0, i)[0])
        perm[i], perm[j] = perm[j], perm[i]
    return perm.astype(dtype.to_numpy())


@register_kernel("bernoulli", "CPU", dtypes=_FLOATS)
def bernoulli(ctx, x: Tensor) -> Tensor:
    """1 with probability x, else 0 (u ~ U(0, 1) per element, 1 where u < x)."""
    if x.size and (np.nanmin(x) < 0 or np.nanmax(x) > 1):
        raise InvalidArgument("bernoulli: every probability in X must be in [0, 1].")
    u = uniform_real(engine_for(0), x.size, 0.0, 1.0, x.dtype).reshape(x.shape)
    return (u < x).astype(x.dtype)


@register_kernel("exponential", "CPU", dtypes=_FLOATS)
def exponential(ctx, x: Tensor, lam: float) -> Tensor:
    """Exp(lambda) of x's shape: -log(1 - u) / lambda."""
    u = uniform_real(engine_for(0), x.size, 0.0, 1.0, x.dtype).reshape(x.shape)
    return (-np.log1p(-u) / x.dtype.type(lam)).astype(x.dtype)


@register_kernel("poisson", "CPU", dtypes=_FLOATS)
def poisson(ctx, x: Tensor) -> Tensor:
    """Poisson(x) per element, in x's dtype."""
    if x.size and np.nanmin(x) < 0:
        raise InvalidArgument("poisson: every rate in X must be >= 0.")
    rng = np.random.default_rng(int(engine_for(0).draw(1)[0]))
    return np.asarray(rng.poisson(x)).astype(x.dtype)


@register_kernel("multinomial", "CPU", dtypes=_FLOATS, output_defs={0: {"dtype": DataType.INT64}})
def multinomial(ctx, x: Tensor, num_samples: Scalar, replacement: bool) -> Tensor:
    """``num_samples`` category indices per row of probabilities x (int64)."""
    n = int(num_samples.value)
    probs = np.asarray(x, np.float64)
    rows = probs.reshape(-1, probs.shape[-1]) if probs.ndim else probs.reshape(1, 1)
    if np.any(rows < 0) or not np.all(np.isfinite(rows)):
        raise InvalidArgument("multinomial: each element of X must be finite and >= 0.")
    rng = np.random.default_rng(int(engine_for(0).draw(1)[0]))
    out = np.empty((rows.shape[0], n), np.int64)
    for i, row in enumerate(rows):
        total = row.sum()
        if total <= 0:
            raise InvalidArgument("multinomial: the sum of probabilities in a row must be > 0.")
        if not replacement and n > np.count_nonzero(row):
            raise InvalidArgument(
                f"When replacement is False, number of samples should be less than non-zero "
                f"categories, got {n} samples and {np.count_nonzero(row)} non-zero categories.")
        out[i] = rng.choice(row.size, size=n, replace=replacement, p=row / total)
    return out.reshape((*probs.shape[:-1], n)) if probs.ndim > 1 else out.reshape(n)


@register_kernel("dropout_nd", "CPU", dtypes=_FLOATS,
                 input_defs={"seed_tensor": {"dtype": DataType.ALL_DTYPE}},
                 output_defs={1: {"dtype": DataType.UINT8}})
def dropout_nd(ctx, x: Tensor, seed_tensor: Tensor | None, p: Scalar, is_test: bool,
               mode: str, seed: int, fix_seed: bool, axis: list[int]) -> tuple[Tensor, Tensor]:
    """Dropout whose mask is shared along the dims not in ``axis`` (mask dims: x's on ``axis``,
    1 elsewhere), drawn like dropout's."""
    prob = np.float32(p.value)
    upscale = mode == "upscale_in_train"
    keep_scale = np.float32(1.0) - prob
    ndim = x.ndim
    axes = {a + ndim if a < 0 else a for a in axis}
    mask_dims = tuple(d if i in axes else 1 for i, d in enumerate(x.shape))
    if is_test:
        out = x.copy() if upscale else (x * x.dtype.type(keep_scale)).astype(x.dtype)
        return out, np.zeros(mask_dims, np.uint8)
    if prob == np.float32(1.0):
        return np.zeros_like(x), np.zeros(mask_dims, np.uint8)
    seed_data = 0
    if seed_tensor is not None:
        seed_data = int(np.asarray(seed_tensor).reshape(-1)[0])
    elif fix_seed:
        seed_data = seed
    u = uniform_real(engine_for(seed_data), _numel(mask_dims), 0.0, 1.0, np.float32)
    mask = (u.reshape(mask_dims) >= prob).astype(np.uint8)
    kept = np.broadcast_to(mask, x.shape) != 0
    value = x / x.dtype.type(keep_scale) if upscale else x
    return np.where(kept, value, x.dtype.type(0)).astype(x.dtype), mask


@register_kernel("class_center_sample", "CPU", dtypes=["int32", "int64"])
def class_center_sample(ctx, label: Tensor, num_classes: int, num_samples: int, ring_id: int,
                        rank: int, nranks: int, fix_seed: bool, seed: int
                        ) -> tuple[Tensor, Tensor]:
    """(remapped label, sampled class centers): the positive classes (sorted) first, then
    random negative classes up to ``num_samples``; labels renumbered into that list."""
    flat = label.reshape(-1)
    if flat.size and (flat.min() < 0 or flat.max() >= num_classes):
        raise InvalidArgument(f"class_center_sample: labels must be in [0, {num_classes}), got "
                              f"[{flat.min()}, {flat.max()}].")
    positive = np.unique(flat)
    sampled = list(positive)
    if len(positive) < num_samples:
        negative = np.setdiff1d(np.arange(num_classes), positive)
        engine = engine_for(seed if fix_seed else 0)
        for i in range(negative.size - 1, 0, -1):
            j = int(uniform_int(engine, 1, 0, i)[0])
            negative[i], negative[j] = negative[j], negative[i]
        sampled += list(negative[:num_samples - len(positive)])
    index = {int(c): i for i, c in enumerate(sampled)}
    remapped = np.array([index[int(v)] for v in flat], label.dtype).reshape(label.shape)
    return remapped, np.array(sampled, label.dtype)
