"""InferMeta of the manipulation / creation family of helper `manip` (Paddle's
paddle/phi/infermeta/{unary,binary,multiary,nullary}.cc): broadcast_tensors, crop, diag,
diag_embed, diagonal, eye, fill_diagonal_tensor, full_batch_size_like, flip, meshgrid, pad, roll,
tril/triu_indices, unbind, the stride views, channel_shuffle, pixel_unshuffle, temporal_shift,
logspace, is_empty, transfer_layout.

The dims helpers (``*_out_dims``) are shared with the kernels (phi/kernels/manip.py), which must
compute the same numbers; dims of -1 are sizes unknown at compile time.
"""

from __future__ import annotations

import math

from phi.common.data_type import DataType
from phi.common.layout import DataLayout
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
from phi.infermeta.unary import reshape_out_dims

__all__ = [
    "broadcast_tensors_infer_meta",
    "broadcast_tensors_out_dims",
    "channel_shuffle_infer_meta",
    "crop_infer_meta",
    "crop_out_dims",
    "diag_embed_infer_meta",
    "diag_infer_meta",
    "diagonal_infer_meta",
    "eye_infer_meta",
    "fill_diagonal_tensor_infer_meta",
    "flip_axes",
    "flip_infer_meta",
    "full_batch_size_like_infer_meta",
    "full_int_array_infer_meta",
    "is_empty_infer_meta",
    "logspace_infer_meta",
    "meshgrid_infer_meta",
    "norm_axis",
    "pad_infer_meta",
    "pixel_unshuffle_infer_meta",
    "reverse_infer_meta",
    "roll_infer_meta",
    "as_strided_infer_meta",
    "strided_unchanged_infer_meta",
    "temporal_shift_infer_meta",
    "tensor_unfold_infer_meta",
    "transfer_layout_axes",
    "transfer_layout_infer_meta",
    "tril_indices_infer_meta",
    "tril_indices_count",
    "triu_indices_infer_meta",
    "unbind_infer_meta",
    "view_dtype_infer_meta",
    "view_shape_infer_meta",
]


def norm_axis(axis: int, rank: int, op: str, what: str = "axis") -> int:
    """``axis`` in [-rank, rank) made non-negative, else InvalidArgument naming the op."""
    if not -rank <= axis < rank:
        raise InvalidArgument(f"{op}: Attr({what}) = {axis} is out of range, expected "
                              f"[{-rank}, {rank}) for an input of rank {rank}.")
    return axis + rank if axis < 0 else axis


def _same(x, out, dims) -> None:
    out.set_dims(tuple(dims))
    out.set_dtype(x.dtype)
    out.set_layout(x.layout)


# -- broadcast_tensors / meshgrid / unbind -----------------------------------------------------

def broadcast_tensors_out_dims(dims_list) -> tuple[int, ...]:
    """BroadcastTensorsInferMeta: the common broadcast dims, right-aligned (-1 when unknown)."""
    rank = max((len(d) for d in dims_list), default=0)
    out = []
    for i in range(rank):
        target = 1
        for dims in dims_list:
            k = i - (rank - len(dims))
            if k < 0:
                continue
            d = dims[k]
            if d == UNKNOWN:
                target = UNKNOWN if target in (1, UNKNOWN) else target
            elif d != 1:
                if target not in (1, UNKNOWN) and target != d:
                    raise InvalidArgument(
                        "broadcast_tensors: Input tensors broadcast failed: the sizes "
                        f"{target} and {d} differ at output dimension {i}, and neither is 1 "
                        f"(inputs {', '.join(fmt_dims(x) for x in dims_list)}).")
                target = d
        out.append(target)
    return tuple(out)


def broadcast_tensors_infer_meta(x: list, out: list) -> None:
    """BroadcastTensorsInferMeta: every output has the broadcast dims of all inputs."""
    dims = broadcast_tensors_out_dims([tuple(m.dims) for m in x])
    for src, o in zip(x, out, strict=False):
        _same(src, o, dims)


def meshgrid_infer_meta(x: list, out: list) -> None:
    """MeshgridInferMeta: out[i] has dims [n_0, ..., n_k] (a 0-D input counts as 1)."""
    sizes = []
    for i, m in enumerate(x):
        dims = tuple(m.dims)
        if len(dims) > 1:
            raise InvalidArgument(f"meshgrid: Input(X)[{i}] must be 0-D or 1-D, but its dims "
                                  f"are {fmt_dims(dims)}.")
        sizes.append(dims[0] if dims else 1)
    for src, o in zip(x, out, strict=False):
        _same(src, o, sizes)


def unbind_infer_meta(x, axis: int, outs: list) -> None:
    """UnbindInferMeta: x's dims without ``axis``, one output per slice."""
    dims = tuple(x.dims)
    a = norm_axis(axis, len(dims), "unbind")
    for o in outs:
        _same(x, o, dims[:a] + dims[a + 1:])


# -- crop --------------------------------------------------------------------------------------

def crop_out_dims(x_dims, shape, offsets) -> tuple[int, ...]:
    """CropInferMeta / the kernel's ValidateShape: ``shape`` has one entry per dim; -1 (or any
    value <= 0 where x's dim is known) takes x's size minus the offset."""
    x_dims, shape, offsets = tuple(x_dims), tuple(shape), tuple(offsets)
    if len(shape) != len(x_dims):
        raise InvalidArgument(
            f"The number of elements ({len(shape)}) of attribute 'shape' for CropTensor must be "
            f"equal to the number of dimensions ({len(x_dims)}) of the input.")
    out = []
    for i, s in enumerate(shape):
        if s > 0:
            out.append(s)
        elif x_dims[i] == UNKNOWN or i >= len(offsets) or offsets[i] == UNKNOWN:
            out.append(UNKNOWN)
        elif x_dims[i] == 0:
            out.append(s)
        elif s == 0:
            raise InvalidArgument(f"The value ({s}) of the {i}th element for shape of "
                                  "Op(crop_tensor) should not be zero.")
        elif s != -1:
            raise InvalidArgument(f"When the value ({s}) of the {i}th element for shape of "
                                  "Op(crop_tensor) is negative, only -1 is supported.")
        else:
            out.append(x_dims[i] - offsets[i])
    return tuple(out)


def crop_infer_meta(x, shape, offsets, out, *, config: MetaConfig | None = None) -> None:
    """CropInferMeta: :func:`crop_out_dims` (all unknown while a tensor gives the shape)."""
    rank = len(x.dims)
    if is_compile_time_tensor_attr(shape, config):
        dims = (UNKNOWN,) * rank
    else:
        offs = (UNKNOWN,) * rank if is_compile_time_tensor_attr(offsets, config) else \
            int_array_data(offsets)
        dims = crop_out_dims(x.dims, int_array_data(shape), offs)
    _same(x, out, dims)
    out.share_lod(x)  # whatever the new dim 0 (Paddle-made case lodmeta_crop_tensor_dim0)


# -- diag / diag_embed / diagonal / eye / fill_diagonal_tensor ---------------------------------

def _diag_len(rows: int, cols: int, offset: int) -> int:
    if UNKNOWN in (rows, cols):
        return UNKNOWN
    n = min(rows, cols - offset) if offset >= 0 else min(rows + offset, cols)
    return max(n, 0)


def diag_infer_meta(x, offset: int, padding_value: float, out) -> None:
    """DiagInferMeta: a 0-D / 1-D x gives a square matrix of side n + |offset|; a matrix gives
    its ``offset`` diagonal."""
    dims = tuple(x.dims)
    if len(dims) <= 1:
        n = dims[0] if dims else 1
        side = UNKNOWN if n == UNKNOWN else n + abs(offset)
        _same(x, out, (side, side))
    elif len(dims) == 2:
        n = _diag_len(dims[0], dims[1], offset)
        _same(x, out, (n,))
    else:
        raise InvalidArgument(f"The input tensor X's dimensions of DiagV2Op should be either 1 "
                              f"or 2, but received {len(dims)}.")


def diag_embed_infer_meta(input, offset: int, dim1: int, dim2: int, out) -> None:
    """DiagEmbedInferMeta: the last dim n becomes two dims of n + |offset| at dim1 and dim2."""
    dims = tuple(input.dims)
    if not dims:
        raise InvalidArgument("diag_embed: Input must be at least 1-D, but received a 0-D "
                              "tensor.")
    rank = len(dims) + 1
    d1 = norm_axis(dim1, rank, "diag_embed", "dim1")
    d2 = norm_axis(dim2, rank, "diag_embed", "dim2")
    if d1 == d2:
        raise InvalidArgument(f"diag_embed: dim1 and dim2 cannot be the same dimension, but "
                              f"received dim1 = {dim1}, dim2 = {dim2}.")
    n = dims[-1]
    side = UNKNOWN if n == UNKNOWN else n + abs(offset)
    out_dims = list(dims[:-1])
    lo, hi = sorted((d1, d2))
    out_dims.insert(lo, side)
    out_dims.insert(hi, side)
    _same(input, out, out_dims)


def diagonal_out_dims(dims, offset: int, axis1: int, axis2: int) -> tuple[int, ...]:
    """DiagonalInferMeta: axis1 and axis2 removed, the diagonal's length appended."""
    rank = len(dims)
    if rank < 2:
        raise InvalidArgument(f"diagonal: Input must be at least 2-D, but received rank {rank}.")
    a1 = norm_axis(axis1, rank, "diagonal", "axis1")
    a2 = norm_axis(axis2, rank, "diagonal", "axis2")
    if a1 == a2:
        raise InvalidArgument(f"diagonal: axis1 and axis2 cannot be the same axis, but "
                              f"received axis1 = {axis1}, axis2 = {axis2}.")
    rest = [d for i, d in enumerate(dims) if i not in (a1, a2)]
    return (*rest, _diag_len(dims[a1], dims[a2], offset))


def diagonal_infer_meta(input, offset: int, axis1: int, axis2: int, out) -> None:
    """DiagonalInferMeta: :func:`diagonal_out_dims`."""
    _same(input, out, diagonal_out_dims(tuple(input.dims), offset, axis1, axis2))


def eye_infer_meta(num_rows, num_columns, dtype: DataType, out, *,
                   config: MetaConfig | None = None) -> None:
    """EyeInferMeta: [rows, columns] (-1 columns: rows) of ``dtype``."""
    rows = UNKNOWN if is_compile_time_tensor_attr(num_rows, config) else \
        int(scalar_value(num_rows))
    if is_compile_time_tensor_attr(num_columns, config):
        cols = UNKNOWN  # Paddle: a tensor's columns stay unknown (not "-1 means rows")
    else:
        cols = int(scalar_value(num_columns))
        if cols == -1:
            cols = rows
    if rows < UNKNOWN or cols < UNKNOWN:
        raise InvalidArgument(f"eye: num_rows and num_columns must be non-negative, but "
                              f"received ({rows}, {cols}).")
    out.set_dims((rows, cols))
    out.set_dtype(dtype)


def fill_diagonal_tensor_infer_meta(x, y, offset: int, dim1: int, dim2: int, out) -> None:
    """FillDiagonalTensorInferMeta: x's meta (y is checked by the kernel)."""
    out.share_meta(x)


# -- creation like an input --------------------------------------------------------------------

def full_batch_size_like_infer_meta(input, shape, value, dtype: DataType, input_dim_idx: int,
                                    output_dim_idx: int, out) -> None:
    """FullBatchSizeLikeInferMeta (BatchSizeLikeInferShape): ``shape`` with
    shape[output_dim_idx] = input.dims[input_dim_idx]."""
    dims = list(shape)
    in_dims = tuple(input.dims)
    if not dims:
        raise InvalidArgument("fill_constant_batch_size_like: Attr(shape) must not be empty.")
    if not 0 <= input_dim_idx < len(in_dims):
        raise InvalidArgument(f"fill_constant_batch_size_like: input_dim_idx = {input_dim_idx} "
                              f"is out of range [0, {len(in_dims)}).")
    if not 0 <= output_dim_idx < len(dims):
        raise InvalidArgument(f"fill_constant_batch_size_like: output_dim_idx = "
                              f"{output_dim_idx} is out of range [0, {len(dims)}).")
    dims[output_dim_idx] = in_dims[input_dim_idx]
    lod = getattr(input, "lod", ())
    if lod and input_dim_idx == 0:
        # a LoD input's batch is its number of sequences (Paddle's kernel resizes Out so)
        dims[output_dim_idx] = len(lod[-1]) - 1
    out.set_dims(tuple(dims))
    out.set_dtype(dtype)
    out.set_layout(input.layout)


def full_int_array_infer_meta(value, dtype: DataType, out) -> None:
    """CreateVecShapeInferMeta-like: [len(value)] of ``dtype``."""
    out.set_dims((len(value),))
    out.set_dtype(dtype)


# -- flip / reverse / roll / pad ---------------------------------------------------------------

def flip_axes(rank: int, axis, op: str = "flip") -> tuple[int, ...]:
    """FlipInferMeta's checks (range; consecutive duplicates, std::unique's only) and the
    kernel's bitset: the set of normalized axes."""
    axis = [int(a) for a in axis]
    for a in axis:
        if not -rank <= a < rank:
            raise InvalidArgument(f"{op}: the axis {a} is out of range, expected "
                                  f"[{-rank}, {rank}) for an input of rank {rank}.")
    unique = [a for i, a in enumerate(axis) if not i or a != axis[i - 1]]
    if op == "flip" and len(unique) != len(axis):
        raise InvalidArgument(f"flip: dims has duplicates, original flip dims size={len(axis)}, "
                              f"but unique flip dims size={len(unique)}.")
    return tuple(sorted({a + rank if a < 0 else a for a in axis}))


def flip_infer_meta(x, axis, out) -> None:
    """FlipInferMeta: x's meta, axes checked."""
    flip_axes(len(x.dims), axis)
    out.share_meta(x)


def reverse_infer_meta(x, axis, out, *, config: MetaConfig | None = None) -> None:
    """ReverseInferMeta: x's meta; ``axis`` must be non-empty and in range."""
    if not is_compile_time_tensor_attr(axis, config):
        data = int_array_data(axis)
        if not data:
            raise InvalidArgument("reverse: 'axis' can not be empty.")
        flip_axes(len(x.dims), data, "reverse")
    out.share_meta(x)


def roll_infer_meta(x, shifts, axis, out, *, config: MetaConfig | None = None) -> None:
    """RollInferMeta: x's meta; one shift per axis, or exactly one shift when axis is empty."""
    rank = len(x.dims)
    if not is_compile_time_tensor_attr(shifts, config):
        n = len(int_array_data(shifts))
        if axis and n != len(axis):
            raise InvalidArgument(f"When dims.size() != 0, dims.size() should be equal to "
                                  f"shifts.size(). But received dims.size() = {len(axis)}, "
                                  f"shifts.size() = {n}")
        if not axis and n != 1:
            raise InvalidArgument(f"shifts.size() should be equal to 1 when dims is empty, "
                                  f"but received shifts.size() = {n}")
    for a in axis:
        norm_axis(int(a), max(rank, 1), "roll")
    out.share_meta(x)


def pad_infer_meta(x, paddings, pad_value, out) -> None:
    """PadInferMeta: dims[i] + paddings[2i] + paddings[2i+1]."""
    dims = tuple(x.dims)
    if len(paddings) != 2 * len(dims):
        raise InvalidArgument(f"Size of 'paddings' dimension should be equal to 2 * size of "
                              f"Input(X)'s dimension, but received {len(paddings)} paddings for "
                              f"an input of rank {len(dims)}.")
    if any(p < 0 for p in paddings):
        raise InvalidArgument(f"pad: every padding must be >= 0, but received "
                              f"{fmt_dims(paddings)}.")
    _same(x, out, [UNKNOWN if d == UNKNOWN else d + paddings[2 * i] + paddings[2 * i + 1]
                   for i, d in enumerate(dims)])
    share_lod_if_same_dim0(out, x)


# -- tril / triu indices -----------------------------------------------------------------------

def tril_indices_count(rows: int, cols: int, offset: int) -> int:
    """The number of (r, c) with 0 <= r < rows, 0 <= c < cols, c - r <= offset."""
    return sum(max(0, min(cols, r + offset + 1)) for r in range(rows))


def tril_indices_infer_meta(rows: int, cols: int, offset: int, dtype: DataType, out) -> None:
    """TrilIndicesInferMeta: [2, count]."""
    if rows < 0 or cols < 0:
        raise InvalidArgument(f"tril_indices: rows and cols must be non-negative, but received "
                              f"({rows}, {cols}).")
    out.set_dims((2, tril_indices_count(rows, cols, offset)))
    out.set_dtype(dtype)


def triu_indices_infer_meta(row: int, col: int, offset: int, dtype: DataType, out) -> None:
    """TriuIndicesInferMeta: [2, row * col - tril count(offset - 1)]."""
    if row < 0 or col < 0:
        raise InvalidArgument(f"triu_indices: row and col must be non-negative, but received "
                              f"({row}, {col}).")
    out.set_dims((2, row * col - tril_indices_count(row, col, offset - 1)))
    out.set_dtype(dtype)


# -- stride views (Paddle registers their kernels for the STRIDED layout only) ----------------

def strided_unchanged_infer_meta(x, out) -> None:
    """x's meta."""
    out.share_meta(x)


def tensor_unfold_infer_meta(input, axis: int, size: int, step: int, out) -> None:
    """TensorUnfoldInferMeta: dims[axis] -> (dims[axis] - size) / step + 1, plus [size]."""
    dims = list(input.dims)
    rank = len(dims)
    a = norm_axis(axis, max(rank, 1), "tensor_unfold")
    n = dims[a] if dims else 1
    if size > n:
        raise InvalidArgument(f"paddle.unfold size({size}) must be less than shape[axis]({n}).")
    if step <= 0:
        raise InvalidArgument(f"paddle.unfold step must be greater than 0, but got {step}.")
    if dims:
        dims[a] = (n - size) // step + 1
    _same(input, out, (*dims, size))


def as_strided_infer_meta(input, dims, stride, offset: int, out) -> None:
    """AsStridedInferMeta: ``dims``."""
    _same(input, out, tuple(dims))


def view_shape_infer_meta(input, dims, out) -> None:
    """ViewShapeInferMeta: ``dims`` with one -1 inferred."""
    _same(input, out, reshape_out_dims(input.dims, dims))


def view_dtype_infer_meta(input, dtype: DataType, out) -> None:
    """ViewDtypeInferMeta: the last dim scaled by the ratio of the element sizes."""
    dims = list(input.dims)
    src, dst = input.dtype.itemsize, dtype.itemsize
    if src != dst:
        if not dims:
            raise InvalidArgument("view_dtype: a 0-D tensor can only be viewed as a dtype of "
                                  "the same size.")
        if src > dst:
            dims[-1] = UNKNOWN if dims[-1] == UNKNOWN else dims[-1] * (src // dst)
        elif dims[-1] != UNKNOWN:
            if (dims[-1] * src) % dst:
                raise InvalidArgument(
                    f"view_dtype: the last dim {dims[-1]} of {input.dtype} elements does not "
                    f"divide into {dtype} elements.")
            dims[-1] = dims[-1] * src // dst
    out.set_dims(tuple(dims))
    out.set_dtype(dtype)
    out.set_layout(input.layout)


# -- vision-like shuffles ----------------------------------------------------------------------

def _nchw(x, data_format: str, op: str) -> tuple[int, ...]:
    dims = tuple(x.dims)
    if len(dims) != 4:
        raise InvalidArgument(f"Input should be a 4-D tensor of format [N, C, H, W] or "
                              f"[N, H, W, C], but got {fmt_dims(dims)} ({op}).")
    if data_format not in ("NCHW", "NHWC"):
        raise InvalidArgument(f"{op}: data_format must be one of NCHW and NHWC, but got "
                              f"{data_format!r}.")
    return dims


def channel_shuffle_infer_meta(x, groups: int, data_format: str, out) -> None:
    """ChannelShuffleInferMeta: x's meta; channels divisible by ``groups``."""
    dims = _nchw(x, data_format, "channel_shuffle")
    c = dims[1] if data_format == "NCHW" else dims[3]
    if groups <= 0:
        raise InvalidArgument(f"groups should be larger than 0, but received {groups}.")
    if c != UNKNOWN and c % groups:
        raise InvalidArgument(f"The number of groups should divide the number of channels, but "
                              f"received groups = {groups}, channels = {c}.")
    out.share_meta(x)


def pixel_unshuffle_infer_meta(x, downscale_factor: int, data_format: str, out) -> None:
    """PixelUnshuffleInferMeta: channels * f^2, height / f, width / f."""
    n, *rest = _nchw(x, data_format, "pixel_unshuffle")
    f = downscale_factor
    if f <= 0:
        raise InvalidArgument(f"downscale_factor should be larger than 0, but received {f}.")
    c, h, w = rest if data_format == "NCHW" else (rest[2], rest[0], rest[1])
    for name, d in (("height", h), ("width", w)):
        if d != UNKNOWN and d % f:
            raise InvalidArgument(f"Downscale factor[{f}] should divide {name}[{d}].")
    c2 = UNKNOWN if c == UNKNOWN else c * f * f
    h2 = UNKNOWN if h == UNKNOWN else h // f
    w2 = UNKNOWN if w == UNKNOWN else w // f
    _same(x, out, (n, c2, h2, w2) if data_format == "NCHW" else (n, h2, w2, c2))


def temporal_shift_infer_meta(x, seg_num: int, shift_ratio: float, data_format: str,
                              out) -> None:
    """TemporalShiftInferMeta: x's meta; dims[0] divisible by ``seg_num``."""
    dims = _nchw(x, data_format, "temporal_shift")
    if seg_num <= 0:
        raise InvalidArgument(f"Attr(seg_num) should be greater than 0, but received {seg_num}")
    if not 0.0 < shift_ratio < 0.5:
        raise InvalidArgument(f"Attr(shift_ratio) should be greater than 0 and less than 0.5, "
                              f"but received {shift_ratio}")
    if dims[0] != UNKNOWN and dims[0] % seg_num:
        raise InvalidArgument(f"Input(X) dimension[0] should be divided exactly by "
                              f"Attr(seg_num), but received X dimension[0]({dims[0]}), "
                              f"seg_num({seg_num})")
    out.share_meta(x)


# -- logspace / is_empty / transfer_layout -----------------------------------------------------

def logspace_infer_meta(start, stop, number, base, dtype: DataType, out) -> None:
    """LogspaceInferMeta: one-element inputs; [-1] of ``dtype`` (the kernel decides)."""
    for m, what in ((start, "Start"), (stop, "Stop"), (number, "Num"), (base, "Base")):
        n = math.prod(tuple(m.dims)) if UNKNOWN not in tuple(m.dims) else UNKNOWN
        if n not in (1, UNKNOWN):
            raise InvalidArgument(f"The size of Input({what}) of logspace should be 1, but got "
                                  f"{n}.")
    out.set_dims((UNKNOWN,))
    out.set_dtype(dtype)


def is_empty_infer_meta(x, out) -> None:
    """IsEmptyInferMeta: a 0-D bool."""
    out.set_dims(())
    out.set_dtype(DataType.BOOL)


#: the axes of Paddle's GetAxis(from, to) (transfer_layout_kernel.cc)
LAYOUT_AXES = {(DataLayout.NCHW, DataLayout.NHWC): (0, 2, 3, 1),
               (DataLayout.NHWC, DataLayout.NCHW): (0, 3, 1, 2)}


def transfer_layout_axes(x_layout, src_layout: int, dst_layout: int):
    """TransferLayoutKernel's decision: None to copy (x already has ``dst_layout``), else the
    permutation from x's layout; same src and dst, or another pair, raise as Paddle does."""
    from phi.core.errors import PreconditionNotMet

    if src_layout == dst_layout:
        raise PreconditionNotMet(f"transfer_layout: No layout transform needed between same "
                                 f"layout (src_layout = dst_layout = {src_layout}).")
    src = DataLayout.NCHW if x_layout in (DataLayout.ALL_LAYOUT, None) else x_layout
    if int(src) == dst_layout or dst_layout == int(DataLayout.ONEDNN):
        return None  # already there; to oneDNN Paddle only re-labels the data
    axes = LAYOUT_AXES.get((src, dst_layout))
    if axes is None:
        raise InvalidArgument(f"transfer_layout: Unsupported layout transform from {src!s} to "
                              f"layout {dst_layout}.")
    return axes


def transfer_layout_infer_meta(x, src_layout: int, dst_layout: int, out) -> None:
    """TransferLayoutInferMeta, with the dims the kernel gives them (x's dims permuted when the
    layout changes between NCHW and NHWC); layout ``dst_layout``."""
    dims = tuple(x.dims)
    axes = transfer_layout_axes(x.layout, src_layout, dst_layout)
    if axes is not None and len(dims) == 4:
        dims = tuple(dims[a] for a in axes)
    out.set_dims(dims)
    out.set_dtype(x.dtype)
    if dst_layout in (int(DataLayout.NHWC), int(DataLayout.NCHW)):
        out.set_layout(DataLayout(dst_layout))
