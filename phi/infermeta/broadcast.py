"""InferMeta of the broadcasting and shape-query ops: expand, expand_as, tile, shape, numel,
one_hot (Paddle's paddle/phi/infermeta/{unary,binary}.cc).  The dims helpers are shared with
the kernels, so that they check and compute exactly what InferMeta does."""

from __future__ import annotations

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.infermeta._utils import (
    share_lod_if_same_dim0,
    UNKNOWN,
    MetaConfig,
    fmt_dims,
    int_array_data,
    is_compile_time_tensor_attr,
    scalar_value,
)

__all__ = [
    "expand_as_infer_meta",
    "expand_infer_meta",
    "expand_out_dims",
    "numel_infer_meta",
    "one_hot_raw_infer_meta",
    "shape_infer_meta",
    "tile_infer_meta",
    "tile_out_dims",
]

MAX_RANK = 8


def expand_out_dims(x_dims, shape, op: str = "expand_v2") -> tuple[int, ...]:
    """ExpandInferMeta + ExpandKernel's checks: ``shape`` aligned to x's trailing dims; -1 keeps
    x's size, a non-singleton x dim must equal its target, leading new dims must be positive."""
    x_dims = tuple(x_dims)
    shape = tuple(shape) or (UNKNOWN,) * len(x_dims)
    if len(shape) < len(x_dims):
        raise InvalidArgument(
            f"The number of elements ({len(shape)}) of 'shape' for {op} op must be greater than "
            f"or equal to the rank ({len(x_dims)}) of the input.")
    if len(shape) > MAX_RANK:
        raise InvalidArgument(f"The number of elements ({len(shape)}) of 'shape' for {op} op "
                              f"must be less than or equal to {MAX_RANK}.")
    diff = len(shape) - len(x_dims)
    out = []
    for i, s in enumerate(shape):
        if s == 0:
            raise InvalidArgument("The expanded size cannot be zero.")
        if i < diff:
            if s < 0:
                raise InvalidArgument(f"The expanded size ({s}) for non-existing dimensions "
                                      f"must be positive for {op} op.")
            out.append(s)
            continue
        d = x_dims[i - diff]
        if s < 0:
            if s != -1:
                raise InvalidArgument(f"When the value in shape is negative for {op} op, only "
                                      f"-1 is supported, but the value received is {s}.")
            out.append(d)
        else:
            if d not in (1, UNKNOWN) and d != s:
                raise InvalidArgument(
                    f"The value ({d}) of the non-singleton dimension does not match the "
                    f"corresponding value ({s}) in shape for {op} op.")
            out.append(s)
    return tuple(out)


def expand_infer_meta(x, shape, out, *, config: MetaConfig | None = None) -> None:
    """ExpandInferMeta: :func:`expand_out_dims` (unknown dims when a tensor gives the shape at
    compile time)."""
    if is_compile_time_tensor_attr(shape, config):
        data = int_array_data(shape)
        out.set_dims((UNKNOWN,) * max(len(data), len(x.dims)))
    else:
        out.set_dims(expand_out_dims(x.dims, int_array_data(shape)))
    out.set_dtype(x.dtype)
    out.set_layout(x.layout)
    share_lod_if_same_dim0(out, x)


def expand_as_infer_meta(x, y, target_shape, out) -> None:
    """ExpandAsInferMeta: ``target_shape`` (Y's dims when Y is given), checked as expand."""
    target = tuple(y.dims) if y is not None else tuple(target_shape)
    out.set_dims(expand_out_dims(x.dims, target, "expand_as_v2"))
    out.set_dtype(x.dtype)
    out.set_layout(x.layout)


def tile_out_dims(x_dims, repeat_times) -> tuple[int, ...]:
    """TileInferMeta: the shorter of x's dims and ``repeat_times`` is padded with leading 1s;
    out = dims * repeats; repeats must be positive.  An empty ``repeat_times`` (the OpProto's
    default) repeats nothing: Paddle 2.6.2's kernel returns X unchanged."""
    dims, reps = list(x_dims), list(repeat_times) or [1] * len(x_dims)
    if len(reps) > MAX_RANK or len(dims) > MAX_RANK:
        raise InvalidArgument(f"The rank of the input and of 'repeat_times' for tile op must "
                              f"not exceed {MAX_RANK}.")
    if len(dims) > len(reps):
        reps = [1] * (len(dims) - len(reps)) + reps
    else:
        dims = [1] * (len(reps) - len(dims)) + dims
    out = []
    for d, r in zip(dims, reps, strict=True):
        if UNKNOWN in (d, r):
            out.append(UNKNOWN)
            continue
        if r <= 0:
            raise InvalidArgument("Every element of the input 'repeat_times' for tile op must "
                                  f"be greater than 0, but the value given is {r}.")
        out.append(d * r)
    return tuple(out)


def tile_infer_meta(x, repeat_times, out, *, config: MetaConfig | None = None) -> None:
    """TileInferMeta: :func:`tile_out_dims`."""
    reps = int_array_data(repeat_times)
    if is_compile_time_tensor_attr(repeat_times, config):
        reps = [UNKNOWN] * max(len(reps), 1)
    elif not reps and config is not None and not config.is_runtime:
        reps = [UNKNOWN] * len(x.dims)  # Paddle's compile-time answer for an empty list
    out.set_dims(tile_out_dims(x.dims, reps))
    out.set_dtype(x.dtype)
    out.set_layout(x.layout)
    share_lod_if_same_dim0(out, x)


def shape_infer_meta(input, out) -> None:
    """ShapeInferMeta: [rank] int32."""
    out.set_dims((len(input.dims),))
    out.set_dtype(DataType.INT32)


def numel_infer_meta(input, out) -> None:
    """NumelInferMeta: a 0-D int64."""
    out.set_dims(())
    out.set_dtype(DataType.INT64)


def one_hot_raw_infer_meta(x, depth, dtype: DataType, allow_out_of_range: bool, out, *,
                           config: MetaConfig | None = None) -> None:
    """OneHotRawInferMeta: x's dims + [depth] (unknown when a tensor gives depth at compile
    time), of ``dtype``."""
    if len(x.dims) < 1:
        raise InvalidArgument(f"Rank of Input(X) should be at least 1, but received "
                              f"{fmt_dims(x.dims)}.")
    d = UNKNOWN if is_compile_time_tensor_attr(depth, config) else int(scalar_value(depth))
    out.set_dims((*tuple(x.dims), d))
    out.set_dtype(DataType.FLOAT32 if dtype is DataType.UNDEFINED else dtype)
    out.set_layout(x.layout)
    out.share_lod(x)
