"""The ``full``, ``full_batch_size_like``, ``full_int_array`` and ``full_like`` kernels."""

from __future__ import annotations

import math

import numpy as np

from phi.common.backend import Backend
from phi.common.data_type import DataType
from phi.common.int_array import IntArray
from phi.common.scalar import Scalar
from phi.core.bound import binds
from phi.core.errors import InvalidArgument
from phi.core.kernel import LoDTensor, Tensor
from phi.core.registry import register_kernel
from phi.infermeta.unary import full_batch_size_like_infer_meta
from phi.kernels.funcs import COMPLEX, cast_array, quiet, scalar_as
from phi.kernels.funcs.manipulation import SinkMeta

__all__ = ["full", "full_batch_size_like", "full_int_array", "full_like"]


# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json)
FULL_DTYPES = ["float32", "float64", "int8", "uint8", "int16", "int32", "int64", "bool",
               "float16", "bfloat16", "complex64", "complex128"]
FULL_LIKE_DTYPES = ["float32", "float64", "uint8", "int16", "int32", "int64", "bool",
                    "float16", "bfloat16", "complex64", "complex128"]

# numeric_limits<T>::lowest()/max() of the types numpy's finfo/iinfo do not describe
_LIMITS = {
    DataType.BOOL: (0.0, 1.0),
    DataType.FLOAT16: (-65504.0, 65504.0),
    DataType.BFLOAT16: (-3.3895313892515355e38, 3.3895313892515355e38),
}


@register_kernel("full", ("CPU", "GPU"), dtypes=FULL_DTYPES)
def full(ctx, shape: IntArray, value: Scalar, dtype: DataType) -> Tensor:
    """A tensor of ``shape`` filled with ``value`` converted as Scalar::to<T>."""
    dims = tuple(shape.data)
    if any(d < 0 for d in dims):
        raise InvalidArgument(
            "The Tensor's element number must be equal or greater than zero. The Tensor's shape "
            f"is [{', '.join(map(str, dims))}] now."
        )
    return ctx.full(dims, scalar_as(ctx, value, dtype), dtype)


def _limits(ctx, dtype: DataType) -> tuple[float, float]:
    if dtype in _LIMITS:
        return _LIMITS[dtype]
    np_dtype = ctx.xp_dtype(dtype)
    info = ctx.xp.iinfo(np_dtype) if dtype.is_integer else ctx.xp.finfo(np_dtype)
    return float(info.min), float(info.max)


def _common(ctx, value: float, dtype: DataType) -> float:
    # std::common_type<float, T>: the range check runs in float, in double only for double T
    if dtype is DataType.FLOAT64 or math.isnan(value):
        return value
    with quiet(ctx.xp):  # values beyond float's range become inf, as the C++ cast does
        return float(ctx.astype(ctx.asarray(value, DataType.FLOAT64), DataType.FLOAT32))


# x is read for its dims only: never moved (ALL_BACKEND, as Paddle registers it) and its dtype is
# not the kernel's (ALL_DTYPE: fill_any_like(float x, dtype=int32) selects the int32 kernel)
@register_kernel("full_like", ("CPU", "GPU"), dtypes=FULL_LIKE_DTYPES,
                 input_defs={"x": {"backend": Backend.ALL_BACKEND,
                                   "dtype": DataType.ALL_DTYPE}})
def full_like(ctx, x: Tensor, value: Scalar, dtype: DataType) -> Tensor:
    """A tensor shaped as ``x`` filled with ``value``; dtype UNDEFINED keeps x's dtype."""
    out_dtype = ctx.data_type(x) if dtype == DataType.UNDEFINED else dtype
    shape = tuple(x.shape)
    if math.prod(shape) == 0:
        return ctx.empty(shape, out_dtype)
    if out_dtype in COMPLEX:
        fill = scalar_as(ctx, value, out_dtype)
    elif ctx.xp is np and (fill := _LIKE_FILLS.get(_fill_key(value, out_dtype))) is not None:
        pass  # checked and converted on an earlier run
    else:
        # Paddle reads the value as a double (val.to<double>()), refuses finite values outside
        # T's range, then fills static_cast<T>(double): NaN/inf into an integer type follow
        # funcs.float_to_int, and int64 values beyond 2**53 lose precision on the way.
        v = value.value if isinstance(value, Scalar) else value
        d = float(v.real if isinstance(v, complex) else v)  # type: ignore[arg-type]
        if math.isfinite(d):
            lo, hi = _limits(ctx, out_dtype)
            c = _common(ctx, d, out_dtype)
            if not (_common(ctx, lo, out_dtype) <= c <= _common(ctx, hi, out_dtype)):
                raise InvalidArgument(
                    "The filled value is out of range for target type, current kernel type is "
                    f"{out_dtype}, the range should between {lo:f} and {hi:f}, but now value is "
                    f"{d:f}."
                )
        fill = cast_array(ctx, ctx.asarray(d, DataType.FLOAT64), out_dtype)
        if ctx.xp is np and d == d:
            if len(_LIKE_FILLS) > 1024:
                _LIKE_FILLS.clear()
            if type(fill) is np.ndarray:
                fill.flags.writeable = False  # shared: nobody may write into it
            _LIKE_FILLS[_fill_key(value, out_dtype)] = fill
    return ctx.full(shape, fill, out_dtype)


# full_like's checked and converted fill values, as funcs.scalar_as keeps its own
_LIKE_FILLS: dict[tuple, object] = {}


def _fill_key(value, dtype: DataType) -> tuple:
    v = value.value if isinstance(value, Scalar) else value
    return type(v), repr(v), dtype


# Bound forms (phi.core.bound): the output depends on the attributes (and x's dims and dtype)
# only, so it is made once and each call returns a fresh copy of it.

@binds(full)
def _bind_full(ctx, attrs, metas):
    if ctx.xp is not np:
        return None
    template = full(ctx, *attrs)  # a typed error (negative dims): no bound form

    def bound():
        return template.copy()

    return bound


@binds(full_like)
def _bind_full_like(ctx, attrs, metas):
    if ctx.xp is not np or metas[0] is None:
        return None
    dtype_in, dims = metas[0]
    t = dtype_in.to_numpy()
    template = full_like(ctx, np.empty(dims, t), *attrs)
    if type(template) is not np.ndarray:
        return None
    nd = np.ndarray

    def bound(x):
        if type(x) is nd and x.dtype is t and x.shape == dims:
            return template.copy()
        return full_like(ctx, x, *attrs)

    return bound


_F_I = ["float32", "float64", "int32", "int64"]


FULL_BATCH_SIZE_LIKE_DTYPES = ["bool", *_F_I]


INDEX_DTYPES = ["int32", "int64"]


@register_kernel("full_batch_size_like", ("CPU", "GPU"), dtypes=FULL_BATCH_SIZE_LIKE_DTYPES,
                 input_defs={"input": {"dtype": DataType.ALL_DTYPE}})
def full_batch_size_like(ctx, input: LoDTensor, shape: list[int], value: Scalar,
                         dtype: DataType, input_dim_idx: int, output_dim_idx: int) -> Tensor:
    """``shape`` with shape[output_dim_idx] = input.dims[input_dim_idx] (the number of
    sequences of a LoD input when input_dim_idx is 0), filled as full_like."""
    sink = _Capture()
    full_batch_size_like_infer_meta(input, list(shape), value, dtype, input_dim_idx,
                                    output_dim_idx, sink)
    return full_like(ctx, ctx.empty(sink.dims, dtype), value, dtype)


class _Capture(SinkMeta):
    """A meta that keeps the dims InferMeta sets."""

    dims: tuple[int, ...] = ()

    def set_dims(self, dims) -> None:
        self.dims = tuple(dims)


@register_kernel("full_int_array", ("CPU", "GPU"), dtypes=INDEX_DTYPES)
def full_int_array(ctx, value: list[int], dtype: DataType) -> Tensor:
    """The 1-D tensor of ``value`` in ``dtype``."""
    return cast_array(ctx, ctx.asarray([int(v) for v in value], DataType.INT64), dtype)
