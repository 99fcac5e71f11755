"""Manipulation and creation kernels of helper `manip` (Paddle's paddle/phi/kernels/
{broadcast_tensors,crop,diag,diag_embed,diagonal,eye,fill,fill_diagonal,fill_diagonal_tensor,
full_batch_size_like,flip,full_int_array,empty,meshgrid,pad,reverse,roll,tril_indices,
triu_indices,unbind,tensor_unfold,as_strided,view_dtype,view_shape,transfer_layout,
channel_shuffle,pixel_unshuffle,temporal_shift,logspace,is_empty}_kernel*).

Outputs are copies, never views of the inputs, as Paddle's dense kernels write new memory.  The
dims arithmetic is shared with InferMeta (phi/infermeta/funcs.py).
"""

from __future__ import annotations

import math

import numpy as np

from phi.common.backend import Backend
from phi.common.data_type import DataType
from phi.common.int_array import IntArray
from phi.common.layout import DataLayout
from phi.common.scalar import Scalar
from phi.core.errors import InvalidArgument
from phi.core.kernel import LoDTensor, Tensor
from phi.core.registry import register_kernel
from phi.infermeta.funcs import (
    broadcast_tensors_out_dims,
    crop_out_dims,
    diagonal_out_dims,
    flip_axes,
    norm_axis,
    reshape_out_dims,
    transfer_layout_axes,
)
from phi.infermeta.unary import diag_infer_meta, full_batch_size_like_infer_meta, pad_infer_meta
from phi.kernels.creation import full_like
from phi.kernels.funcs import ALL_DTYPES, cast_array, owned, scalar_as

__all__ = [
    "as_strided", "broadcast_tensors", "channel_shuffle", "crop", "diag", "diag_embed",
    "diagonal", "empty", "eye", "fill", "fill_diagonal", "fill_diagonal_tensor", "flip",
    "full_batch_size_like", "full_int_array", "is_empty", "logspace", "meshgrid", "pad",
    "pixel_unshuffle", "reverse", "roll", "temporal_shift", "tensor_unfold", "transfer_layout",
    "tril_indices", "triu_indices", "unbind", "view_dtype", "view_shape",
]

# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json, the ALL_LAYOUT keys)
_ALL12 = list(ALL_DTYPES)
_F_I = ["float32", "float64", "int32", "int64"]
BROADCAST_TENSORS_DTYPES = ["bool", "int32", "int64", "float16", "float32", "float64",
                            "complex64", "complex128"]
CROP_DTYPES = DIAG_EMBED_DTYPES = MESHGRID_DTYPES = LOGSPACE_DTYPES = IS_EMPTY_DTYPES = _F_I
DIAG_DTYPES = EYE_DTYPES = ["float16", *_F_I]
DIAGONAL_DTYPES = ["bool", "float32", "float64", "int32", "int64", "complex64", "complex128"]
FILL_DTYPES = EMPTY_DTYPES = TRANSFER_LAYOUT_DTYPES = _ALL12
FULL_BATCH_SIZE_LIKE_DTYPES = ["bool", *_F_I]
FILL_DIAGONAL_DTYPES = ["bool", "float16", *_F_I]
FILL_DIAGONAL_TENSOR_DTYPES = [d for d in _ALL12 if d != "bfloat16"]
FLIP_DTYPES = ["bool", *_F_I, "complex64", "complex128"]
INDEX_DTYPES = ["int32", "int64"]
PAD_DTYPES = ["bfloat16", *_F_I, "complex64", "complex128"]
REVERSE_DTYPES = ["bool", "uint8", *_F_I]
ROLL_DTYPES = [*_F_I, "complex64", "complex128"]
UNBIND_DTYPES = ["bool", "float16", "bfloat16", *_F_I, "complex64", "complex128"]
SHUFFLE_DTYPES = ["float32", "float64"]
# tensor_unfold, as_strided, view_dtype and view_shape exist for the STRIDED layout only (as in
# Paddle 2.6.2): no dense kernel key selects them, so legacy programs fail with NotFound where
# Paddle raises "There are no kernels which are registered"; the functions serve direct calls
STRIDED_DTYPES = _ALL12
STRIDED = DataLayout.STRIDED

class _Sink:
    """A meta that accepts and ignores what InferMeta writes (kernels reuse its checks)."""

    def __getattr__(self, name):
        return lambda *a, **k: None


class _Shape:
    """The meta of an array for the InferMeta checks kernels reuse."""

    def __init__(self, array) -> None:
        self.dims = tuple(array.shape)
        self.dtype = self.layout = None


def _scalar_int(value) -> int:
    v = value.value if isinstance(value, Scalar) else value
    return int(v.real if isinstance(v, complex) else v)


# -- broadcast_tensors / meshgrid / unbind -----------------------------------------------------

@register_kernel("broadcast_tensors", ("CPU", "GPU"), dtypes=BROADCAST_TENSORS_DTYPES)
def broadcast_tensors(ctx, input: list[Tensor]) -> list[Tensor]:
    """Every input broadcast to their common dims."""
    xp = ctx.xp
    dims = broadcast_tensors_out_dims([tuple(a.shape) for a in input])
    return [xp.asarray(xp.broadcast_to(a, dims), copy=True) for a in input]


@register_kernel("meshgrid", ("CPU", "GPU"), dtypes=MESHGRID_DTYPES)
def meshgrid(ctx, inputs: list[Tensor]) -> list[Tensor]:
    """The coordinate grids of 0-D / 1-D inputs ('ij' indexing)."""
    xp = ctx.xp
    if len(inputs) < 2:
        raise InvalidArgument(f"meshgrid: Expected at least 2 input tensors, but only received "
                              f"{len(inputs)}.")
    flat = [xp.reshape(a, (-1,)) for a in inputs]
    dims = tuple(int(a.shape[0]) for a in flat)
    outs = []
    for i, a in enumerate(flat):
        view = [1] * len(flat)
        view[i] = dims[i]
        outs.append(xp.asarray(xp.broadcast_to(xp.reshape(a, view), dims), copy=True))
    return outs


@register_kernel("unbind", ("CPU", "GPU"), dtypes=UNBIND_DTYPES)
@register_kernel("unbind", ("CPU", "GPU"), dtypes=STRIDED_DTYPES, layout=STRIDED)
def unbind(ctx, x: Tensor, axis: int) -> list[Tensor]:
    """The slices of x along ``axis``, that axis removed."""
    xp = ctx.xp
    a = norm_axis(axis, x.ndim, "unbind")
    return [owned(xp, xp.take(x, i, axis=a)) for i in range(x.shape[a])]


# -- crop / pad / flip / reverse / roll --------------------------------------------------------

def crop_array(ctx, x, dims, offsets):
    """x[offsets : offsets + dims] per axis, bounds checked as CropTensorFunction does."""
    for i, (o, d) in enumerate(zip(offsets, dims, strict=True)):
        if o < 0:
            raise InvalidArgument(f"The offsets ({o}) of the {i}th elements of Op(crop_tensor) "
                                  "should be greater than or equal to 0.")
        if o + d > x.shape[i]:
            raise InvalidArgument(
                f"The sum of the {i}th elements of offsets ({o}) and shape ({d}) of "
                "Op(crop_tensor) should be less than or equal to the size of "
                f"{i}th dimension of the input ({x.shape[i]}).")
    index = tuple(slice(o, o + d) for o, d in zip(offsets, dims, strict=True))
    return owned(ctx.xp, x[index])


@register_kernel("crop", ("CPU", "GPU"), dtypes=CROP_DTYPES)
def crop(ctx, x: Tensor, shape: IntArray, offsets: IntArray) -> Tensor:
    """The box of ``shape`` (-1: to the end) starting at ``offsets``; rank 1 to 6."""
    if not 1 <= x.ndim <= 6:
        raise InvalidArgument(f"The number of dimensions of the input 'x' for Op(crop_tensor) "
                              f"must be in [1, 6], but the value received is {x.ndim}.")
    offs = tuple(offsets.data)
    if len(offs) != x.ndim:
        raise InvalidArgument(f"The number of elements ({len(offs)}) for input 'Offsets' must "
                              f"be equal to the number of dimensions ({x.ndim}) of the input "
                              "tensor.")
    shp = tuple(shape.data)
    dims = crop_out_dims(x.shape, shp, offs)
    # Paddle checks offsets + shape with the -1 entries as given, then slices the real dims
    for i, (o, s) in enumerate(zip(offs, shp, strict=True)):
        if o >= 0 and o + s > x.shape[i]:
            crop_array(ctx, x, [s if k == i else 0 for k in range(x.ndim)], offs)
    return crop_array(ctx, x, dims, offs)


@register_kernel("pad", ("CPU", "GPU"), dtypes=PAD_DTYPES)
def pad(ctx, x: Tensor, paddings: list[int], pad_value: Scalar) -> Tensor:
    """x padded by (before, after) pairs per dim with ``pad_value`` converted to x's dtype."""
    pad_infer_meta(_Shape(x), list(paddings), pad_value, _Sink())
    dtype = ctx.data_type(x)
    out = ctx.full(tuple(d + paddings[2 * i] + paddings[2 * i + 1]
                         for i, d in enumerate(x.shape)), scalar_as(ctx, pad_value, dtype), dtype)
    out[tuple(slice(paddings[2 * i], paddings[2 * i] + d) for i, d in enumerate(x.shape))] = x
    return out


@register_kernel("flip", ("CPU", "GPU"), dtypes=FLIP_DTYPES)
def flip(ctx, x: Tensor, axis: list[int]) -> Tensor:
    """x reversed along each axis of ``axis`` (an axis named twice is reversed once)."""
    axes = flip_axes(x.ndim, axis)
    return owned(ctx.xp, ctx.xp.flip(x, axis=axes)) if axes else owned(ctx.xp, x)


@register_kernel("reverse", ("CPU", "GPU"), dtypes=REVERSE_DTYPES)
def reverse(ctx, x: Tensor, axis: IntArray) -> Tensor:
    """x reversed along ``axis`` (non-empty; an axis named twice is reversed once)."""
    if not axis.data:
        raise InvalidArgument("reverse: 'axis' can not be empty.")
    axes = flip_axes(x.ndim, axis.data, "reverse")
    return owned(ctx.xp, ctx.xp.flip(x, axis=axes))


@register_kernel("roll", ("CPU", "GPU"), dtypes=ROLL_DTYPES)
def roll(ctx, x: Tensor, shifts: IntArray, axis: list[int]) -> Tensor:
    """x rolled by ``shifts`` along ``axis`` (no axis: x flattened, rolled, reshaped)."""
    xp = ctx.xp
    n = list(shifts.data)
    if axis:
        if len(n) != len(axis):
            raise InvalidArgument(f"When dims.size() != 0, dims.size() should be equal to "
                                  f"shifts.size(). But received dims.size() = {len(axis)}, "
                                  f"shifts.size() = {len(n)}")
        out = x
        for s, a in zip(n, axis, strict=True):
            a = norm_axis(int(a), x.ndim, "roll")
            if x.shape[a]:
                out = xp.roll(out, int(s) % x.shape[a], axis=a)
        return owned(xp, out)
    if len(n) != 1:
        raise InvalidArgument(f"shifts.size() should be equal to 1 when dims is empty, but "
                              f"received shifts.size() = {len(n)}")
    flat = xp.reshape(x, (-1,))
    if flat.shape[0]:
        flat = xp.roll(flat, int(n[0]) % flat.shape[0])
    return xp.reshape(owned(xp, flat), x.shape)


# -- diagonals ---------------------------------------------------------------------------------

@register_kernel("diag", ("CPU", "GPU"), dtypes=DIAG_DTYPES)
def diag(ctx, x: Tensor, offset: int, padding_value: float) -> Tensor:
    """0-D / 1-D x: a square matrix with x on its ``offset`` diagonal, ``padding_value``
    elsewhere; 2-D x: its ``offset`` diagonal."""
    xp = ctx.xp
    diag_infer_meta(_Shape(x), offset, padding_value, _Sink())
    if x.ndim == 2:
        return owned(xp, xp.diagonal(x, offset=offset))
    v = xp.reshape(x, (-1,))
    n = v.shape[0] + abs(offset)
    dtype = ctx.data_type(x)
    out = ctx.full((n, n), scalar_as(ctx, float(padding_value), dtype), dtype)
    i = xp.arange(v.shape[0])
    rows, cols = (i, i + offset) if offset >= 0 else (i - offset, i)
    out[rows, cols] = v
    return out


@register_kernel("diag_embed", ("CPU", "GPU"), dtypes=DIAG_EMBED_DTYPES)
def diag_embed(ctx, input: Tensor, offset: int, dim1: int, dim2: int) -> Tensor:
    """Matrices (at dims dim1, dim2) holding input's last dim on their ``offset`` diagonal."""
    xp = ctx.xp
    if input.ndim == 0:
        raise InvalidArgument("diag_embed: Input must be at least 1-D, but received a 0-D "
                              "tensor.")
    rank = input.ndim + 1
    d1 = norm_axis(dim1, rank, "diag_embed", "dim1")
    d2 = norm_axis(dim2, rank, "diag_embed", "dim2")
    if d1 == d2:
        raise InvalidArgument(f"diag_embed: dim1 and dim2 cannot be the same dimension, but "
                              f"received dim1 = {dim1}, dim2 = {dim2}.")
    m = input.shape[-1]
    n = m + abs(offset)
    out = xp.zeros((*input.shape[:-1], n, n), dtype=input.dtype)
    i = xp.arange(m)
    rows, cols = (i, i + offset) if offset >= 0 else (i - offset, i)
    out[..., rows, cols] = input
    return owned(xp, xp.moveaxis(out, (-2, -1), (d1, d2)))


@register_kernel("diagonal", ("CPU", "GPU"), dtypes=DIAGONAL_DTYPES)
@register_kernel("diagonal", ("CPU", "GPU"), dtypes=STRIDED_DTYPES, layout=STRIDED)
def diagonal(ctx, x: Tensor, offset: int, axis1: int, axis2: int) -> Tensor:
    """The ``offset`` diagonals of the planes (axis1, axis2), as the last dim."""
    diagonal_out_dims(tuple(x.shape), offset, axis1, axis2)
    a1, a2 = axis1 % x.ndim, axis2 % x.ndim
    return owned(ctx.xp, ctx.xp.diagonal(x, offset=offset, axis1=a1, axis2=a2))


def _diag_index(xp, rows: int, cols: int, offset: int):
    n = min(rows, cols - offset) if offset >= 0 else min(rows + offset, cols)
    i = xp.arange(max(n, 0))
    return (i, i + offset) if offset >= 0 else (i - offset, i)


@register_kernel("eye", ("CPU", "GPU"), dtypes=EYE_DTYPES)
def eye(ctx, num_rows: Scalar, num_columns: Scalar, dtype: DataType) -> Tensor:
    """A [rows, columns] matrix with ones on its diagonal (columns -1: rows)."""
    rows, cols = _scalar_int(num_rows), _scalar_int(num_columns)
    cols = rows if cols == -1 else cols
    if rows < 0 or cols < 0:
        raise InvalidArgument(f"eye: num_rows and num_columns must be non-negative, but "
                              f"received ({rows}, {cols}).")
    out = ctx.full((rows, cols), scalar_as(ctx, 0, dtype), dtype)
    r, c = _diag_index(ctx.xp, rows, cols, 0)
    out[r, c] = scalar_as(ctx, 1, dtype)
    return out


@register_kernel("fill_diagonal", ("CPU", "GPU"), dtypes=FILL_DIAGONAL_DTYPES)
def fill_diagonal(ctx, x: Tensor, value: float, offset: int, wrap: bool) -> Tensor:
    """x with ``value`` written every sum(strides) elements of the flat data from ``offset``
    (Paddle's walk: for 2-D x the diagonal, repeating below when ``wrap``)."""
    xp = ctx.xp
    out = owned(xp, x)
    if x.ndim < 2:
        raise InvalidArgument(f"fill_diagonal: Tensor dims should be >= 2, but received "
                              f"{x.ndim}.")
    flat = xp.reshape(out, (-1,))
    cols = x.shape[1]
    step = 0
    prod = 1
    for d in reversed(x.shape):  # CalStride: the flat distance between diagonal elements
        step += prod
        prod *= d
    size = flat.shape[0] if wrap else min(flat.shape[0], cols * cols)
    i = xp.arange(0, size, step) if step else xp.arange(0)
    keep = (i % cols + offset >= 0) & (i % cols + offset < cols)
    flat[i[keep] + offset] = scalar_as(ctx, float(value), ctx.data_type(x))
    return xp.reshape(flat, x.shape)


@register_kernel("fill_diagonal_tensor", ("CPU", "GPU"), dtypes=FILL_DIAGONAL_TENSOR_DTYPES)
def fill_diagonal_tensor(ctx, x: Tensor, y: Tensor, offset: int, dim1: int,
                         dim2: int) -> Tensor:
    """x with its ``offset`` diagonals of the planes (dim1, dim2) replaced by y (whose last dim
    runs along the diagonal, the other dims over x's remaining dims)."""
    xp = ctx.xp
    d1 = norm_axis(dim1, x.ndim, "fill_diagonal_tensor", "dim1")
    d2 = norm_axis(dim2, x.ndim, "fill_diagonal_tensor", "dim2")
    out = owned(xp, x)
    planes = xp.moveaxis(out, (d1, d2), (-2, -1))  # a view: writing it writes out
    rows, cols = _diag_index(xp, x.shape[d1], x.shape[d2], offset)
    batch = math.prod(planes.shape[:-2])
    want = (batch, int(rows.shape[0]))
    got = (math.prod(y.shape[:-1]), y.shape[-1]) if y.ndim else (1, 1)
    if y.ndim == 0 or got != want:
        raise InvalidArgument(f"The dims should be {want[0]} x {want[1]}, but get "
                              f"{got[0]} x {got[1]} in fill tensor Y")
    planes[..., rows, cols] = xp.reshape(y, (*planes.shape[:-2], want[1]))
    return out


# -- creation ----------------------------------------------------------------------------------

@register_kernel("fill", ("CPU", "GPU"), dtypes=FILL_DTYPES)
def fill(ctx, x: Tensor, value: Scalar) -> Tensor:
    """A tensor shaped as x filled with ``value`` (NaN refused), converted as Scalar::to<T>."""
    v = value.value if isinstance(value, Scalar) else value
    if isinstance(v, float) and math.isnan(v):
        raise InvalidArgument("fill value should not be NaN, but received NaN")
    dtype = ctx.data_type(x)
    return ctx.full(tuple(x.shape), scalar_as(ctx, value, dtype), dtype)


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


class _Capture(_Sink):
    """A meta that keeps the dims InferMeta sets."""

    dims: tuple[int, ...] = ()

    def set_dims(self, dims) -> None:
        self.dims = tuple(dims)


@register_kernel("empty", ("CPU", "GPU"), dtypes=EMPTY_DTYPES)
def empty(ctx, shape: IntArray, dtype: DataType) -> Tensor:
    """An uninitialized tensor of ``shape``: zeros here (Paddle leaves the memory as it is)."""
    dims = tuple(shape.data)
    if any(d < 0 for d in dims):
        raise InvalidArgument(f"empty: the shape must not be negative, but received "
                              f"[{', '.join(map(str, dims))}].")
    return ctx.full(dims, scalar_as(ctx, 0, dtype), dtype)


@register_kernel("full_int_array", ("CPU", "GPU"), dtypes=INDEX_DTYPES)
def full_int_array(ctx, value: list[int], dtype: DataType) -> Tensor:
    """The 1-D tensor of ``value`` in ``dtype``."""
    return cast_array(ctx, ctx.asarray([int(v) for v in value], DataType.INT64), dtype)


@register_kernel("tril_indices", ("CPU", "GPU"), dtypes=INDEX_DTYPES)
def tril_indices(ctx, rows: int, cols: int, offset: int, dtype: DataType) -> Tensor:
    """[2, n]: the (row, col) of the lower triangle (col - row <= offset), row-major."""
    if rows < 0 or cols < 0:
        raise InvalidArgument(f"tril_indices: rows and cols must be non-negative, but received "
                              f"({rows}, {cols}).")
    r, c = np.tril_indices(rows, offset, cols)
    return ctx.asarray(np.stack([r, c]).astype(dtype.to_numpy()), dtype)


@register_kernel("triu_indices", ("CPU", "GPU"), dtypes=INDEX_DTYPES)
def triu_indices(ctx, row: int, col: int, offset: int, dtype: DataType) -> Tensor:
    """[2, n]: the (row, col) of the upper triangle (col - row >= offset), row-major."""
    if row < 0 or col < 0:
        raise InvalidArgument(f"triu_indices: row and col must be non-negative, but received "
                              f"({row}, {col}).")
    r, c = np.triu_indices(row, offset, col)
    return ctx.asarray(np.stack([r, c]).astype(dtype.to_numpy()), dtype)


def _host_scalar(ctx, t):
    return np.asarray(ctx.to_host(t)).reshape(-1)[0]


@register_kernel("logspace", ("CPU", "GPU"), dtypes=LOGSPACE_DTYPES,
                 input_defs={n: {"dtype": DataType.ALL_DTYPE, "backend": Backend.ALL_BACKEND}
                             for n in ("start", "stop", "number", "base")})
def logspace(ctx, start: Tensor, stop: Tensor, number: Tensor, base: Tensor,
             dtype: DataType) -> Tensor:
    """base ** (``number`` evenly spaced exponents from start to stop): start, stop and base
    cast to ``dtype`` first, powers in double, the first half counted up from start, the rest
    down from stop (Paddle's loop), each static_cast to ``dtype``."""
    s, e, b = (_host_scalar(ctx, cast_array(ctx, ctx.asarray(t), dtype))
               for t in (start, stop, base))
    num = int(_host_scalar(ctx, number))
    if num <= 0:
        raise InvalidArgument(f"The num of logspace op should be larger than 0, but received "
                              f"num is {num}")
    if num == 1:
        raw = [_c_pow(b, s)]
    else:
        step = float(e - s) / (num - 1)
        half = num // 2
        raw = [_c_pow(b, float(s) + step * i if i < half else float(e) - step * (num - i - 1))
               for i in range(num)]
    return cast_array(ctx, ctx.asarray(np.asarray(raw, np.float64)), dtype)


def _c_pow(b, e) -> float:
    """std::pow in double (math.pow is C's pow; its errors are C's inf / NaN results)."""
    try:
        return math.pow(float(b), float(e))
    except (OverflowError, ValueError):
        with np.errstate(all="ignore"):
            return float(np.power(np.float64(b), np.float64(e)))


@register_kernel("is_empty", ("CPU", "GPU"), dtypes=IS_EMPTY_DTYPES,
                 output_defs={0: {"dtype": DataType.BOOL}})
def is_empty(ctx, x: Tensor) -> Tensor:
    """A 0-D bool: whether x has no elements."""
    return ctx.asarray(math.prod(x.shape) == 0, DataType.BOOL)


# -- layout and channel shuffles ---------------------------------------------------------------

@register_kernel("transfer_layout", ("CPU", "GPU"), dtypes=TRANSFER_LAYOUT_DTYPES)
def transfer_layout(ctx, x: Tensor, src_layout: int, dst_layout: int) -> Tensor:
    """x copied, or permuted between NCHW and NHWC (x's layout is NCHW, every fed tensor's)."""
    axes = transfer_layout_axes(DataLayout.NCHW, src_layout, dst_layout)
    if axes is None:
        return owned(ctx.xp, x)
    if x.ndim != 4:
        raise InvalidArgument(f"transfer_layout: a layout transform needs a 4-D tensor, but "
                              f"received rank {x.ndim}.")
    return owned(ctx.xp, ctx.xp.permute_dims(x, axes))


def _check4(x, data_format: str, op: str) -> bool:
    if x.ndim != 4:
        raise InvalidArgument(f"Input should be a 4-D tensor of format [N, C, H, W] or "
                              f"[N, H, W, C], but got {list(x.shape)} ({op}).")
    if data_format not in ("NCHW", "NHWC"):
        raise InvalidArgument(f"{op}: data_format must be one of NCHW and NHWC, but got "
                              f"{data_format!r}.")
    return data_format == "NHWC"


@register_kernel("channel_shuffle", ("CPU", "GPU"), dtypes=SHUFFLE_DTYPES)
def channel_shuffle(ctx, x: Tensor, groups: int, data_format: str) -> Tensor:
    """Channels regrouped: [g, C/g] -> [C/g, g]."""
    xp = ctx.xp
    last = _check4(x, data_format, "channel_shuffle")
    n, *rest = x.shape
    c = rest[2] if last else rest[0]
    if groups <= 0 or c % groups:
        raise InvalidArgument(f"The number of groups should divide the number of channels, but "
                              f"received groups = {groups}, channels = {c}.")
    if last:
        y = xp.reshape(x, (n, rest[0], rest[1], groups, c // groups))
        y = xp.permute_dims(y, (0, 1, 2, 4, 3))
    else:
        y = xp.reshape(x, (n, groups, c // groups, rest[1], rest[2]))
        y = xp.permute_dims(y, (0, 2, 1, 3, 4))
    return xp.reshape(owned(xp, y), x.shape)


@register_kernel("pixel_unshuffle", ("CPU", "GPU"), dtypes=SHUFFLE_DTYPES)
def pixel_unshuffle(ctx, x: Tensor, downscale_factor: int, data_format: str) -> Tensor:
    """Each f x f block of pixels becomes f*f channels."""
    xp = ctx.xp
    last = _check4(x, data_format, "pixel_unshuffle")
    f = downscale_factor
    n, *rest = x.shape
    c, h, w = (rest[2], rest[0], rest[1]) if last else rest
    if f <= 0 or h % f or w % f:
        raise InvalidArgument(f"Downscale factor[{f}] should divide height[{h}] and "
                              f"width[{w}].")
    if last:
        t = xp.reshape(x, (n, h // f, f, w // f, f, c))
        out = xp.permute_dims(t, (0, 1, 3, 5, 2, 4))
        return xp.reshape(owned(xp, out), (n, h // f, w // f, c * f * f))
    t = xp.reshape(x, (n, c, h // f, f, w // f, f))
    out = xp.permute_dims(t, (0, 1, 3, 5, 2, 4))
    return xp.reshape(owned(xp, out), (n, c * f * f, h // f, w // f))


@register_kernel("temporal_shift", ("CPU", "GPU"), dtypes=SHUFFLE_DTYPES)
def temporal_shift(ctx, x: Tensor, seg_num: int, shift_ratio: float,
                   data_format: str) -> Tensor:
    """Per segment of ``seg_num`` frames: the first C*ratio channels take the previous frame,
    the next C*ratio the following one (zeros past the ends), the rest stay."""
    xp = ctx.xp
    last = _check4(x, data_format, "temporal_shift")
    if seg_num <= 0 or x.shape[0] % seg_num:
        raise InvalidArgument(f"Input(X) dimension[0] should be divided exactly by "
                              f"Attr(seg_num), but received X dimension[0]({x.shape[0]}), "
                              f"seg_num({seg_num})")
    y = x if not last else xp.permute_dims(x, (0, 3, 1, 2))
    nt, c, h, w = y.shape
    # static_cast<int>(c * shift_ratio): int times float, in float
    c1 = int(np.float32(c) * np.float32(shift_ratio))
    c2 = int(np.float32(c * 2) * np.float32(shift_ratio))
    v = xp.reshape(y, (nt // seg_num, seg_num, c, h, w))
    out = xp.zeros_like(v)
    out[:, 1:, :c1] = v[:, :-1, :c1]
    out[:, :-1, c1:c2] = v[:, 1:, c1:c2]
    out[:, :, c2:] = v[:, :, c2:]
    out = xp.reshape(out, (nt, c, h, w))
    return owned(xp, xp.permute_dims(out, (0, 2, 3, 1)) if last else out)


# -- stride views (STRIDED layout only, see STRIDED_DTYPES) ------------------------------------

@register_kernel("tensor_unfold", ("CPU", "GPU"), dtypes=STRIDED_DTYPES, layout=STRIDED)
def tensor_unfold(ctx, input: Tensor, axis: int, size: int, step: int) -> Tensor:
    """Windows of ``size`` every ``step`` along ``axis``, as a new last dim."""
    xp = ctx.xp
    if input.ndim == 0:
        return xp.reshape(owned(xp, input), (1,))
    a = norm_axis(axis, input.ndim, "tensor_unfold")
    n = input.shape[a]
    if size > n or step <= 0:
        raise InvalidArgument(f"paddle.unfold size({size}) must be less than shape[axis]({n}) "
                              f"and step({step}) greater than 0.")
    starts = range(0, n - size + 1, step)
    wins = [xp.moveaxis(xp.take(input, xp.arange(s, s + size), axis=a), a, -1)
            for s in starts]
    return owned(xp, xp.stack(wins, axis=a))


@register_kernel("as_strided", ("CPU", "GPU"), dtypes=STRIDED_DTYPES, layout=STRIDED)
def as_strided(ctx, input: Tensor, dims: list[int], stride: list[int], offset: int) -> Tensor:
    """The elements at offset + sum(index * stride) of input's flat data, shaped ``dims``."""
    xp = ctx.xp
    flat = xp.reshape(input, (-1,))
    index = xp.full(tuple(dims), int(offset), dtype=xp.int64)
    for k, (d, s) in enumerate(zip(dims, stride, strict=True)):
        shape = [1] * len(dims)
        shape[k] = d
        index = index + xp.reshape(xp.arange(d, dtype=xp.int64) * int(s), shape)
    if index.size and (int(index.min()) < 0 or int(index.max()) >= flat.shape[0]):
        raise InvalidArgument(f"as_strided: dims {list(dims)}, stride {list(stride)} and offset "
                              f"{offset} reach outside the {flat.shape[0]} elements of input.")
    return owned(xp, flat[index])


@register_kernel("view_shape", ("CPU", "GPU"), dtypes=STRIDED_DTYPES, layout=STRIDED)
def view_shape(ctx, input: Tensor, dims: list[int]) -> Tensor:
    """input with dims ``dims`` (one -1 inferred)."""
    return ctx.xp.reshape(owned(ctx.xp, input), reshape_out_dims(input.shape, dims))


@register_kernel("view_dtype", ("CPU", "GPU"), dtypes=STRIDED_DTYPES, layout=STRIDED,
                 output_defs={0: {"dtype": DataType.UNDEFINED}})
def view_dtype(ctx, input: Tensor, dtype: DataType) -> Tensor:
    """input's bytes read as ``dtype`` (the last dim rescaled)."""
    xp = ctx.xp
    data = xp.ascontiguousarray(input)
    if data.ndim == 0:
        data = xp.reshape(data, (1,))
        if data.dtype.itemsize != dtype.itemsize:
            raise InvalidArgument("view_dtype: a 0-D tensor can only be viewed as a dtype of "
                                  "the same size.")
        return owned(xp, xp.reshape(data.view(ctx.xp_dtype(dtype)), ()))
    if (data.shape[-1] * data.dtype.itemsize) % dtype.itemsize:
        raise InvalidArgument(f"view_dtype: the last dim {data.shape[-1]} of {input.dtype} "
                              f"elements does not divide into {dtype} elements.")
    return owned(xp, data.view(ctx.xp_dtype(dtype)))
