"""Broadcasting and shape-query kernels: expand, expand_as, tile, shape, numel, one_hot_raw
(Paddle's paddle/phi/kernels/{expand,expand_as,tile,shape,numel,one_hot}_kernel*)."""

from __future__ import annotations

from phi.common.backend import Backend
from phi.common.data_type import DataType
from phi.common.int_array import IntArray
from phi.common.scalar import Scalar
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.infermeta.funcs import expand_out_dims, tile_out_dims

__all__ = ["expand", "expand_as", "numel", "one_hot_raw", "shape", "tile"]

# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json, ALL_LAYOUT keys)
EXPAND_DTYPES = ["float32", "float64", "int8", "uint8", "int16", "int32", "int64", "bool",
                 "float16", "bfloat16", "complex64", "complex128"]
EXPAND_AS_DTYPES = ["bool", "float32", "float64", "int32", "int64"]
TILE_DTYPES = ["bool", "float32", "float64", "int32", "int64", "complex64", "complex128"]
SHAPE_DTYPES = ["bool", "int8", "uint8", "int32", "int64", "float32", "float64", "complex64",
                "complex128"]
NUMEL_DTYPES = ["uint8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
                "float64", "bool", "complex64", "complex128"]
_STAYS = {"backend": Backend.ALL_BACKEND}  # only the dims are read: never moved


def _broadcast(xp, x, dims):
    return xp.asarray(xp.broadcast_to(x, dims), copy=True)


@register_kernel("expand", ("CPU", "GPU"), dtypes=EXPAND_DTYPES)
def expand(ctx, x: Tensor, shape: IntArray) -> Tensor:
    """x broadcast to ``shape`` (-1 keeps x's size; new leading dims allowed)."""
    return _broadcast(ctx.xp, x, expand_out_dims(x.shape, shape.data))


@register_kernel("expand_as", ("CPU", "GPU"), dtypes=EXPAND_AS_DTYPES,
                 input_defs={"y": {"dtype": DataType.ALL_DTYPE, **_STAYS}})
def expand_as(ctx, x: Tensor, y: Tensor | None, target_shape: list[int]) -> Tensor:
    """x broadcast to y's dims (``target_shape`` without y)."""
    target = tuple(y.shape) if y is not None else tuple(target_shape)
    return _broadcast(ctx.xp, x, expand_out_dims(x.shape, target, "expand_as_v2"))


@register_kernel("tile", ("CPU", "GPU"), dtypes=TILE_DTYPES)
def tile(ctx, x: Tensor, repeat_times: IntArray) -> Tensor:
    """x repeated ``repeat_times`` times along each axis (numpy's tile)."""
    xp = ctx.xp
    dims = tile_out_dims(x.shape, repeat_times.data)
    reps = [1] * (len(dims) - len(repeat_times.data)) + list(repeat_times.data)
    return xp.reshape(xp.tile(x, tuple(reps)), dims)


@register_kernel("shape", ("CPU", "GPU"), dtypes=SHAPE_DTYPES, input_defs={"input": _STAYS},
                 output_defs={0: {"dtype": DataType.INT32}})
def shape(ctx, input: Tensor) -> Tensor:
    """x's dims as an int32 vector."""
    return ctx.asarray(list(input.shape), DataType.INT32)


@register_kernel("numel", ("CPU", "GPU"), dtypes=NUMEL_DTYPES, input_defs={"input": _STAYS},
                 output_defs={0: {"dtype": DataType.INT64}})
def numel(ctx, input: Tensor) -> Tensor:
    """x's number of elements as a 0-D int64."""
    return ctx.asarray(int(input.size), DataType.INT64)


@register_kernel("one_hot_raw", ("CPU", "GPU"), dtypes=["int32", "int64"],
                 output_defs={0: {"dtype": DataType.UNDEFINED}})
def one_hot_raw(ctx, x: Tensor, depth: Scalar, dtype: DataType,
                allow_out_of_range: bool) -> Tensor:
    """One-hot rows of ``depth`` along a new last axis, in ``dtype`` (float32 when undefined);
    an index outside [0, depth) is an error unless ``allow_out_of_range`` (then a zero row)."""
    xp = ctx.xp
    n = int(depth.value if isinstance(depth, Scalar) else depth)
    out_dtype = DataType.FLOAT32 if dtype is DataType.UNDEFINED else dtype
    if not allow_out_of_range and x.size:
        lo, hi = int(xp.min(x)), int(xp.max(x))
        if lo < 0:
            raise InvalidArgument("Illegal index value, Input(input) value should be at least "
                                  f"0, but received input ({lo}) less than 0")
        if hi >= n:
            raise InvalidArgument("Illegal index value, Input(input) value should be less than "
                                  f"Input(depth), but received input ({hi}) not less than "
                                  f"depth ({n})")
    hot = xp.expand_dims(x, -1) == xp.arange(n, dtype=x.dtype)
    return ctx.astype(hot, out_dtype)
