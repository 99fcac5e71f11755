"""Helpers shared by the InferMeta modules and by the kernels (Paddle keeps such code in
paddle/phi/kernels/funcs/): ``MetaConfig``, attribute unwrapping, dims printing and meta setters,
and the pure dims rules (padding resolution, output sizes, reduce axes, reshape / squeeze /
slice dims, broadcast, concat axis ...) that a kernel and its InferMeta must compute alike.

They are plain functions of ints and metas; sizes use C++ ``int`` division, which truncates toward
zero, and dims of -1 (sizes unknown at compile time) give -1 results as Paddle's compile-time
branches do.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from phi.common.data_type import DataType
from phi.common.int_array import IntArray
from phi.common.layout import DataLayout
from phi.common.scalar import Scalar
from phi.core import records
from phi.core.errors import InvalidArgument

__all__ = [
    "COMPLEX_OF", "MetaConfig", "RUNTIME", "adaptive_bounds", "affine_grid_out_dims", "attr_axis",
    "bad_argument", "batch_broadcast", "batch_norm_channels", "broadcast_dims",
    "broadcast_tensors_out_dims", "check_conv_groups", "check_graph_indices", "check_index_dtype",
    "check_kth", "check_nms_inputs", "check_positive", "check_roi_inputs", "check_same_dims",
    "checked_axis", "complex_dtype", "concat_axis", "conv_out_size", "conv_transpose_geometry",
    "crop_out_dims", "cross_axis", "decided_by_kernel", "decreased_dims", "diag_len", "dims_match",
    "dims_product", "expand_out_dims", "fft_axes", "flatten_out_dims", "flip_axes",
    "float_to_int32", "fmt_dims", "fold_geometry", "frame_out_dims", "int_array_data", "int_list",
    "interp_channel_last", "interp_out_hw", "interp_out_sizes", "inverse_dims", "is_channel_last",
    "is_compile_time_tensor_attr", "matrix_dims", "max_pool_with_index_geometry", "maxout_axis",
    "median_out_dims", "meta_like", "multi_dot_out_dims", "norm_axis", "normalize_perm",
    "outputs_like", "overlap_add_out_dims", "pad3d_pairs", "pool_output_size", "prod",
    "qr_out_dims", "reduce_axes", "reduce_out_dims", "reshape_out_dims", "resolve_conv_padding",
    "resolve_pool_padding", "scalar_value", "set_meta", "share_lod_if_same_dim0", "slice_axis",
    "slice_bounds", "solve_out_dims", "spatial_dims", "split_axis", "split_sections",
    "square_dims", "squeeze_out_dims", "strided_slice_bounds", "sum_out_dtype", "tile_out_dims",
    "transfer_layout_axes", "transpose_channel_last", "unfold_geometry", "unsqueeze_out_dims",
]


UNKNOWN = -1
"""A dimension whose size is not known at compile time (fluid VarDesc shapes)."""


@records.frozen
class MetaConfig:
    """Paddle's ``MetaConfig``: whether InferMeta runs at run time or at compile time.

    At compile time (fluid InferShape on a VarDesc) dims may be -1 and attributes that come from
    tensors (ShapeTensor, AxisTensor ...) carry no values yet; the functions then fill what they
    can and leave the rest -1, as Paddle's ``!config.is_runtime`` branches do.
    """

    is_runtime: bool = True
    is_run_mkldnn_kernel: bool = False


RUNTIME = MetaConfig()


def fmt_dims(dims: Iterable[int]) -> str:
    """Dims as Paddle prints a DDim inside brackets: ``[2, 3]``."""
    return "[" + ", ".join(str(int(d)) for d in dims) + "]"


def int_array_data(value: object) -> tuple[int, ...]:
    """The ints of an IntArray attribute (also accepts a plain list/tuple or int)."""
    if isinstance(value, IntArray):
        return value.data
    if isinstance(value, int):
        return (value,)
    return tuple(int(v) for v in value)  # type: ignore[union-attr]


def scalar_value(value: object) -> object:
    """The Python number of a Scalar attribute (also accepts a plain number)."""
    return value.value if isinstance(value, Scalar) else value


def is_compile_time_tensor_attr(value: object, config: MetaConfig | None) -> bool:
    """A Scalar/IntArray fed by a tensor while InferMeta runs at compile time: no values yet."""
    runtime = config is None or config.is_runtime
    return (not runtime) and bool(getattr(value, "from_tensor", False))


def decided_by_kernel(shape, dims) -> bool:
    """Whether run-time InferMeta dims ``dims`` admit the kernel's ``shape``: a -1 means the
    size depends on input values (arange, linspace, unique ...) and the kernel decides it, as
    Paddle's kernels resize their outputs."""
    return len(shape) == len(dims) and all(
        d == -1 or d == s for s, d in zip(shape, dims, strict=True))


def check_index_dtype(op: str, slot: str, meta, allowed=("int32", "int64")) -> None:
    """An index-like input (ids, indices) must be an integer tensor of ``allowed`` dtypes, as
    Paddle's kernels require; raises InvalidArgument naming the op and the slot.  Meta whose
    dtype is not known yet (compile time) passes."""
    from phi.common.data_type import DataType
    from phi.core.errors import InvalidArgument

    dtype = meta.dtype
    if dtype is None or dtype is DataType.UNDEFINED:
        return
    if str(dtype) not in allowed:
        raise InvalidArgument(f"{op}: Input({slot}) holds the wrong type, it holds {dtype}, but "
                              f"desires to be {' or '.join(allowed)}.")


def set_meta(out, dims, dtype, layout=None) -> None:
    """Fill an output MetaTensor (nothing for an absent optional output, ``None``)."""
    if out is None:
        return
    out.set_dims(tuple(dims))
    out.set_dtype(dtype)
    if layout is not None:
        out.set_layout(layout)


def prod(dims) -> int:
    """Product of known dims (1 for none)."""
    n = 1
    for d in dims:
        n *= d
    return n


def share_lod_if_same_dim0(out, x) -> None:
    """Paddle's "only pass LoD when the first dimension of output and Input(X) are the same"
    (squeeze, unsqueeze, flatten, expand, tile, pad): rows kept, sequences kept."""
    if not getattr(x, "lod", ()):
        return  # nothing to pass (kernels reuse InferMeta checks on plain metas)
    if out.dims and x.dims and out.dims[0] == x.dims[0]:
        out.share_lod(x)


# -- reshape, reduce, split, squeeze, slice ----------------------------------------------------

# -- reshape -----------------------------------------------------------------------------------

def reshape_out_dims(x_dims, shape) -> tuple[int, ...]:
    """Paddle's ValidateShape: 0 copies x's dim at that index, one -1 is inferred.

    Unlike Paddle (which skips the checks unless every input dim is > 0), size-0 dims count as
    known here, so that reshaping an empty tensor gives concrete dims: [0, 3] -> [-1, 3] is
    [0, 3]; a -1 next to a 0-sized target dim is ambiguous and refused.
    """
    x_dims = tuple(x_dims)
    shape = tuple(shape)
    out: list[int] = []
    unk_idx = -1
    for i, s in enumerate(shape):
        if s == UNKNOWN:
            if unk_idx != -1:
                raise InvalidArgument(
                    "Only one dimension value of 'shape' in ReshapeOp can be -1. But received "
                    f"shape = {fmt_dims(shape)}, shape[{i}] is also -1."
                )
            unk_idx = i
            out.append(UNKNOWN)
        elif s == 0:
            if i >= len(x_dims):
                raise InvalidArgument(
                    "The index of 0 in `shape` must be less than the input tensor X's dimensions."
                    f" But received shape = {fmt_dims(shape)}, shape[{i}] = 0, X's shape = "
                    f"{fmt_dims(x_dims)}, X's dimensions = {len(x_dims)}."
                )
            out.append(x_dims[i])
        elif s < 0:
            raise InvalidArgument(
                "Each dimension value of 'shape' in ReshapeOp must not be negative except one "
                f"unknown dimension. But received shape = {fmt_dims(shape)}, shape[{i}] = {s}."
            )
        else:
            out.append(s)
    x_known = all(d >= 0 for d in x_dims)
    other_known = all(d >= 0 for k, d in enumerate(out) if k != unk_idx)
    if not (x_known and other_known):
        return tuple(out)  # compile time: nothing to check, the -1 stays unknown
    in_size = prod(x_dims)
    capacity = prod(d for k, d in enumerate(out) if k != unk_idx)
    if unk_idx != -1:
        if capacity == 0 or in_size % capacity != 0:
            raise InvalidArgument(
                "The 'shape' attribute in ReshapeOp is invalid. The input tensor X'size must be "
                f"divisible by known capacity of 'shape'. But received X's shape = "
                f"{fmt_dims(x_dims)}, X's size = {in_size}, 'shape' is {fmt_dims(shape)}, known "
                f"capacity of 'shape' is {capacity}."
            )
        out[unk_idx] = in_size // capacity
    elif capacity != in_size:
        raise InvalidArgument(
            "The 'shape' in ReshapeOp is invalid. The input tensor X'size must be equal to the "
            f"capacity of 'shape'. But received X's shape = {fmt_dims(x_dims)}, X's size = "
            f"{in_size}, 'shape' is {fmt_dims(shape)}, the capacity of 'shape' is {capacity}."
        )
    return tuple(out)


# -- reductions --------------------------------------------------------------------------------

def reduce_axes(x_dims, axis, reduce_all: bool = False) -> tuple[int, ...]:
    """The reduced axes, normalized, unique and sorted; every axis when reducing all.

    As Paddle's ReduceInferDim: an empty axis list, or one naming every dim, reduces all; a
    0-D input accepts only -1 and 0; duplicates are allowed (a set is taken).
    """
    rank = len(x_dims)
    axis = int_array_data(axis)
    formatted = set()
    for i, a in enumerate(axis):
        if rank == 0:
            if a not in (0, -1):
                raise InvalidArgument(
                    "When input 0D Tensor, the axis can only be -1, 0, None or [], but received "
                    f"axis[{i}] = {a}."
                )
            continue
        if not -rank <= a < rank:
            raise InvalidArgument(
                f"The reduce dim index {i} should be in the range [ -dimension(X), dimension(X) )"
                f" which dimesion = {rank}. But received dim index = {a}."
            )
        formatted.add(a + rank if a < 0 else a)
    if reduce_all or not axis or len(formatted) == rank:
        return tuple(range(rank))
    return tuple(sorted(formatted))


def reduce_out_dims(x_dims, axes, keep_dim: bool) -> tuple[int, ...]:
    """Dims after reducing ``axes`` (from :func:`reduce_axes`); full reduction gives 0-D."""
    if keep_dim:
        return tuple(1 if i in axes else d for i, d in enumerate(x_dims))
    return tuple(d for i, d in enumerate(x_dims) if i not in axes)


def sum_out_dtype(x_dtype: DataType, dtype: DataType) -> DataType:
    """SumRawInferMeta's dtype rule: the requested dtype, else bool and int32 sum to int64."""
    if dtype != DataType.UNDEFINED:
        return dtype
    if x_dtype in (DataType.BOOL, DataType.INT32):
        return DataType.INT64
    return x_dtype


# -- split -------------------------------------------------------------------------------------

def split_axis(x_dims, axis) -> int:
    """GetSplitAxisValue: an int axis in [-rank, rank), returned normalized."""
    value = scalar_value(axis)
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidArgument(
            f"split(): argument (position 3) must be int, but got {type(value).__name__}"
            f" ({value!r})."
        )
    rank = len(x_dims)
    if not -rank <= value < rank:
        raise InvalidArgument(
            f"The axis is expected to be in range of [{-rank}, {rank}), but got {value}"
        )
    return value + rank if value < 0 else value


def split_sections(x_dims, sections, axis: int) -> list[int]:
    """The size of each piece along (normalized) ``axis``; one -1 takes the rest.

    As Paddle: the sections must add up to the split dim, and with a -1 the others must add up
    to less than it.  A split dim of 0 (or -1, unknown) skips the checks, as Paddle does.
    """
    secs = list(int_array_data(sections))
    dim = x_dims[axis]
    unknown = [i for i, s in enumerate(secs) if s == UNKNOWN]
    if len(unknown) > 1:
        raise InvalidArgument(
            "Only one dimension value of Attr(num_or_sections) in SplitOp can be -1. But "
            f"received Attr(num_or_sections) = {fmt_dims(secs)}."
        )
    for i, s in enumerate(secs):
        if s < UNKNOWN:
            raise InvalidArgument(
                f"Each value of sections must be >= 0 (or one -1), but received sections = "
                f"{fmt_dims(secs)}, sections[{i}] = {s}."
            )
    if dim == 0:
        return [0] * len(secs)
    if dim == UNKNOWN:
        return secs
    known = sum(s for s in secs if s != UNKNOWN)
    if unknown:
        if known >= dim:
            raise InvalidArgument(
                "Sum of Attr(num_or_sections) other than unknown section must be less than the "
                "input's size along the split dimension. But received Attr(num_or_sections) = "
                f"{fmt_dims(secs)}, input(X)'s shape = {fmt_dims(x_dims)}, Attr(dim) = {axis}."
            )
        secs[unknown[0]] = dim - known
    elif known != dim:
        raise InvalidArgument(
            "Sum of Attr(num_or_sections) must be equal to the input's size along the split "
            f"dimension. But received Attr(num_or_sections) = {fmt_dims(secs)}, input(X)'s "
            f"shape = {fmt_dims(x_dims)}, Attr(dim) = {axis}."
        )
    return secs


# -- transpose ---------------------------------------------------------------------------------

def normalize_perm(rank: int, perm) -> tuple[int, ...]:
    """Check that ``perm`` is a permutation of range(rank) (negatives allowed); normalize it."""
    perm = tuple(int(p) for p in perm)
    if len(perm) != rank:
        raise InvalidArgument(
            "The input tensor's dimension should be equal to the perm's size. But received input"
            f" tensor's dimension is {rank}, perm's size is {len(perm)} (perm = {fmt_dims(perm)})."
        )
    seen: set[int] = set()
    out = []
    for i, p in enumerate(perm):
        if not -rank <= p < rank:
            raise InvalidArgument(
                f"The perm index {i} should be in the range [ -dimension(X), dimension(X) ) "
                f"which dimesion = {rank}. But received perm index = {p}."
            )
        q = p + rank if p < 0 else p
        if q in seen:
            raise InvalidArgument(
                f"Each element of perm should be unique. but perm[{i}] is {p} appear not only "
                f"once (perm = {fmt_dims(perm)})."
            )
        seen.add(q)
        out.append(q)
    return tuple(out)


# -- squeeze / unsqueeze / unstack ---------------------------------------------------------------

def squeeze_out_dims(x_dims, axes) -> tuple[int, ...]:
    """GetOutputSqueezeShape: no axes squeezes every 1; listed axes are squeezed when their size
    is 1 (or unknown at compile time) and kept otherwise."""
    dims = tuple(x_dims)
    rank = len(dims)
    if not axes:
        return tuple(d for d in dims if d != 1)
    drop = set()
    for a in axes:
        if not -rank <= a < max(rank, 1):
            raise InvalidArgument(f"The squeeze axis {a} is out of range [{-rank}, {rank}).")
        a = a + rank if a < 0 else a
        if rank and dims[a] in (1, UNKNOWN):
            drop.add(a)
    return tuple(d for i, d in enumerate(dims) if i not in drop)


def unsqueeze_out_dims(x_dims, axes) -> tuple[int, ...]:
    """GetUnsqueezeShape: each axis (negative counts from the end of the growing shape) inserts
    a 1, moving the 1s inserted before it."""
    dims = tuple(x_dims)
    out_rank = len(dims) + len(axes)
    cur_rank = len(dims)
    shape = [0] * out_rank
    for axis in axes:
        cur = axis + cur_rank + 1 if axis < 0 else axis
        if not 0 <= cur <= cur_rank:
            raise InvalidArgument(f"The unsqueeze axis {axis} is out of range for a "
                                  f"{cur_rank}-D shape.")
        for i in range(cur_rank, cur - 1, -1):
            if shape[i] == 1:
                shape[i + 1] = 1
                shape[i] = 0
        shape[cur] = 1
        cur_rank += 1
    it = iter(dims)
    return tuple(s if s == 1 else next(it) for s in shape)


# -- slice / strided_slice ---------------------------------------------------------------------

def slice_axis(axis: int, rank: int, op: str) -> int:
    if not -rank <= axis < rank:
        raise InvalidArgument(f"The axis value should be less than the rank of input, but "
                              f"received axes = {axis}, rank of input is {rank} ({op}).")
    return axis + rank if axis < 0 else axis


def slice_bounds(dims, axes, starts, ends) -> dict[int, tuple[int, int]]:
    """CheckAndUpdateSliceAttrs (step 1): axis -> (start, end), negative values counted from
    the end, clamped to [0, size]; end < start is an error.  Unknown sizes are left out."""
    out = {}
    for i, axis in enumerate(axes):
        axis = slice_axis(axis, len(dims), "slice")
        size = dims[axis]
        if size == UNKNOWN:
            continue
        start, end = int(starts[i]), int(ends[i])
        start = max(start + size if start < 0 else start, 0)
        end = min(end + size if end < 0 else end, size)
        start, end = min(start, size), max(end, 0)
        if end < start:
            raise InvalidArgument("When step > 0, end should be greater than start, but "
                                  f"received end = {end}, start = {start}.")
        out[axis] = (start, end)
    return out


def strided_slice_bounds(dims, axes, starts, ends, strides, infer_flags=(),
                         decrease_axis=()) -> dict[int, tuple]:
    """StridedSliceOutDims' bounds as a Python slice: axis -> (start, end, step); with a
    negative stride an end of -1 means "through the first element" (end None).  Python's
    ``x[-1]`` (start -1, end 0, infer flag -1, a decreased axis) takes the last element.

    **Deviation**: bounds past the end that Paddle 2.6.2 turns into reads of memory outside the
    tensor (start = end = 9 on a size-6 axis) give empty slices here."""
    out = {}
    for i, axis in enumerate(axes):
        if (int(starts[i]) == -1 and int(ends[i]) == 0 and i < len(infer_flags)
                and infer_flags[i] == -1 and axes[i] in decrease_axis):
            size = dims[axis]
            out[axis + len(dims) if axis < 0 else axis] = (size - 1, size, 1)
            continue
        axis = slice_axis(axis, len(dims), "strided_slice")
        size = dims[axis]
        step = int(strides[i])
        if step == 0:
            raise InvalidArgument("stride index in StridedSlice operator is 0.")
        if size == UNKNOWN:
            continue
        start, end = int(starts[i]), int(ends[i])
        start = max(start + size if start < 0 else start, 0)
        if end < 0 and not (end == -1 and step < 0):
            end = max(end + size, 0)
        if (step < 0 and start < end) or (step > 0 and start > end):
            raise InvalidArgument("The start index and end index are invalid for their "
                                  "corresponding stride.")
        out[axis] = (start, None if end == -1 else end, step)
    return out


def decreased_dims(out_dims, decrease_axis, runtime: bool) -> tuple[int, ...]:
    """``out_dims`` without the ``decrease_axis`` axes (negative from the end); ``runtime``:
    each must be 1 (the slice kernels check it at InferMeta, not again)."""
    drop = set()
    for a in decrease_axis:
        a = a + len(out_dims) if a < 0 else a
        if runtime and out_dims[a] != 1:
            raise InvalidArgument(f"Decrease dim should be 1, but now received {out_dims[a]}")
        drop.add(a)
    return tuple(d for i, d in enumerate(out_dims) if i not in drop)


# -- elementwise, matmul, compare, gather ------------------------------------------------------

def broadcast_dims(x_dims, y_dims) -> tuple[int, ...]:
    """Paddle's GetBroadcastDimsArrays with axis -1 (trailing alignment, as numpy).

    Per aligned pair (a, b): equal sizes, or a size 1, or an unknown -1 are compatible; the
    output is the larger size when one is > 1 (or both are 1), else 0 when one is 0, else -1
    (unknown).  Size 0 broadcasts only against 1 or 0: this is Paddle's later rule
    (common_shape.h checks ``d <= 1 && d != 0``); 2.6.2's check let 0 pass against any size.
    """
    x_dims = tuple(x_dims)
    y_dims = tuple(y_dims)
    if x_dims == y_dims:
        return x_dims
    rank = max(len(x_dims), len(y_dims))
    xa = (1,) * (rank - len(x_dims)) + x_dims
    ya = (1,) * (rank - len(y_dims)) + y_dims
    out = []
    for i, (a, b) in enumerate(zip(xa, ya, strict=False)):
        if not (a == b or (a <= 1 and a != 0) or (b <= 1 and b != 0)):
            raise InvalidArgument(
                "Broadcast dimension mismatch. Operands could not be broadcast together with the "
                f"shape of X = {fmt_dims(x_dims)} and the shape of Y = {fmt_dims(y_dims)}. "
                f"Received [{a}] in X is not equal to [{b}] in Y at i:{i}."
            )
        if a > 1 or b > 1 or (a == 1 and b == 1):
            out.append(max(a, b))
        elif a == 0 or b == 0:
            out.append(0)
        else:
            out.append(UNKNOWN)
    return tuple(out)


# -- concat and stack --------------------------------------------------------------------------

def concat_axis(rank: int, axis) -> int:
    """The concat axis in [-rank, rank), normalized."""
    value = int(scalar_value(axis))  # type: ignore[call-overload]  # Scalar::to<int>
    if rank == 0:
        # Paddle's ConcatInferMeta lets rank 0 through (axis becomes 0) and infers a 0-D output
        # whatever the number of inputs; concatenating scalars has no meaning, so refuse it.
        raise InvalidArgument(
            "concat does not support 0-D tensors: x[0] has shape []; reshape them to [1] first."
        )
    if not -rank <= value < rank:
        raise InvalidArgument(
            f"The axis is expected to be in range of [{-rank}, {rank}), but got {value}"
        )
    return value + rank if value < 0 else value


# -- convolution, pooling, normalization -------------------------------------------------------

def _cdiv(a: int, b: int) -> int:
    """C++ integer division: the quotient truncated toward zero."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def is_channel_last(data_format: str) -> bool:
    """Paddle compares the string: only "NHWC"/"NDHWC" are channel-last ("AnyLayout" is NCHW)."""
    return data_format in ("NHWC", "NDHWC")


def _expand_paddings(paddings, n_spatial: int, op: str) -> list[int]:
    """[p0, p1] -> [p0, p0, p1, p1]; [t, b, l, r] stays (Paddle's UpdatePadding... helpers)."""
    pads = [int(p) for p in paddings]
    if len(pads) == n_spatial:
        return [p for p in pads for _ in range(2)]
    if len(pads) != 2 * n_spatial:
        raise InvalidArgument(
            f"Op({op}): Attribute padding's size should be the same or twice as the input's "
            f"dimension. But received: padding's size is {len(pads)}, padding is "
            f"{fmt_dims(pads)}; input's spatial dimension is {n_spatial}."
        )
    return pads


def _same_padding(size: int, stride: int, ksize: int) -> tuple[int, int]:
    out = _cdiv(size + stride - 1, stride)
    pad_sum = max((out - 1) * stride + ksize - size, 0)
    return pad_sum // 2, pad_sum - pad_sum // 2


def resolve_conv_padding(paddings, dilations, padding_algorithm: str, data_dims, strides,
                         ksize) -> tuple[list[int], list[int]]:
    """UpdatePaddingAndDilation: (paddings [before0, after0, before1, after1...], dilations).

    SAME pads so that out = ceil(in / stride) and resets the dilations to 1; VALID pads nothing;
    anything else (EXPLICIT) keeps the given paddings (2 values are used for both sides).
    """
    pads = _expand_paddings(paddings, len(data_dims), "Conv")
    dils = [int(d) for d in dilations]
    if padding_algorithm == "SAME":
        for i, size in enumerate(data_dims):
            pads[2 * i], pads[2 * i + 1] = _same_padding(size, strides[i], ksize[i])
            dils[i] = 1
    elif padding_algorithm == "VALID":
        pads = [0] * len(pads)
    return pads, dils


def conv_out_size(size: int, ksize: int, dilation: int, pad_before: int, pad_after: int,
                  stride: int) -> int:
    """ConvOutSize: (in + pads - (dilation * (k - 1) + 1)) / stride + 1 in C++ ints.

    0 gives an empty output, as Paddle 2.6.2 (its ConvInferMeta checks nothing); a negative size
    raises (Paddle allocates a negative dim and crashes: **deviation**, a typed error instead).
    """
    dkernel = dilation * (ksize - 1) + 1
    out = _cdiv(size + pad_before + pad_after - dkernel, stride) + 1
    if out < 0:
        raise InvalidArgument(
            "The output's size is expected to be at least 0. But received: output's size is "
            f"{out}. The output's size is computed by ((input_size + pad_left + pad_right - "
            "(dilation * (filter_size - 1) + 1)) / stride + 1), where input_size is "
            f"{size}, pad_left is {pad_before}, pad_right is {pad_after}, dilation is "
            f"{dilation}, filter_size is {ksize}, stride is {stride}."
        )
    return out


def resolve_pool_padding(paddings, global_pooling: bool, adaptive: bool,
                         padding_algorithm: str, data_dims, strides, ksize) -> list[int]:
    """Pooling's UpdatePadding: as conv's (without dilations); global or adaptive pads 0."""
    pads = _expand_paddings(paddings, len(data_dims), "pool")
    if padding_algorithm == "SAME":
        for i, size in enumerate(data_dims):
            pads[2 * i], pads[2 * i + 1] = _same_padding(size, strides[i], ksize[i])
    elif padding_algorithm == "VALID":
        pads = [0] * len(pads)
    if global_pooling or adaptive:
        pads = [0] * len(pads)
    return pads


def pool_output_size(size: int, ksize: int, pad_before: int, pad_after: int, stride: int,
                     ceil_mode: bool) -> int:
    """PoolOutputSize: floor (or ceil) of (in - k + pads) / stride, plus 1; must be > 0."""
    extra = stride - 1 if ceil_mode else 0
    out = _cdiv(size - ksize + pad_before + pad_after + extra, stride) + 1
    if out <= 0:
        raise InvalidArgument(
            f"the output size must be greater than 0. But received: output_size = {out} due to "
            f"the settings of input_size({size}), padding({pad_before},{pad_after}), "
            f"k_size({ksize}) and stride({stride}). Please check again!"
        )
    return out


def adaptive_bounds(index: int, in_size: int, out_size: int) -> tuple[int, int]:
    """AdaptStartIndex / AdaptEndIndex: [floor(i * in / out), ceil((i + 1) * in / out))."""
    return (index * in_size) // out_size, -((-(index + 1) * in_size) // out_size)


def spatial_dims(dims, channel_last: bool) -> list[int]:
    dims = list(dims)
    return dims[1:-1] if channel_last else dims[2:]


def check_positive(values, what: str, op: str) -> None:
    for v in values:
        if v <= 0:
            raise InvalidArgument(
                f"The {what} of Op({op}) should be larger than 0, but received {what} is {v}."
            )


# -- conv ----------------------------------------------------------------------------------------

def check_conv_groups(in_dims, f_dims, groups: int, data_format: str) -> None:
    """ConvInferMeta's checks of Attr(groups) against the input's and the filter's channels
    (also the conv kernels', which a direct call reaches without InferMeta)."""
    if groups <= 0:
        raise InvalidArgument(f"Op(Conv): Attr(groups) must be positive, but received {groups}.")
    in_channels = in_dims[-1] if is_channel_last(data_format) else in_dims[1]
    if in_channels != UNKNOWN and f_dims[1] != UNKNOWN and in_channels != f_dims[1] * groups:
        raise InvalidArgument(
            "The number of input's channels should be equal to filter's channels * groups for "
            f"Op(Conv). But received: the input's channels is {in_channels}, the input's shape "
            f"is {fmt_dims(in_dims)}; the filter's channels is {f_dims[1]}, the filter's shape "
            f"is {fmt_dims(f_dims)}; the groups is {groups}, the data_format is {data_format}. "
            "The error may come from wrong data_format setting."
        )
    if f_dims[0] != UNKNOWN and f_dims[0] % groups:
        raise InvalidArgument(
            "The number of output's channels (filter's first dimension) of Op(Conv) should be "
            f"divided by groups. But received: the output channels is {f_dims[0]}, the filter's "
            f"shape is {fmt_dims(f_dims)}, the groups is {groups}."
        )


# -- batch_norm ----------------------------------------------------------------------------------

_LAYOUTS = {"NCHW": False, "NHWC": True, "AnyLayout": False, "ANYLAYOUT": False,
            "NCDHW": False, "NDHWC": True}


def batch_norm_channels(x_dims, data_layout: str) -> tuple[int, bool]:
    """(C, channel_last) of batch_norm's input; unknown layouts raise (StringToDataLayout)."""
    if data_layout not in _LAYOUTS:
        raise InvalidArgument(
            f"Op(batch_norm): Attr(data_layout) \"{data_layout}\" is not a data layout "
            f"({', '.join(_LAYOUTS)})."
        )
    channel_last = _LAYOUTS[data_layout]
    return (x_dims[-1] if channel_last else x_dims[1]), channel_last


# -- flatten -------------------------------------------------------------------------------------

def flatten_out_dims(x_dims, start_axis: int, stop_axis: int) -> tuple[int, ...]:
    """Dims of flatten: axes start..stop (inclusive, negative from the end) become one.

    A 0-D input accepts only 0 / -1 and gives [1].  Out-of-range axes raise (Paddle reads
    past the dims instead).
    """
    x_dims = tuple(x_dims)
    rank = len(x_dims)
    if rank == 0:
        for name, axis in (("start_axis", start_axis), ("stop_axis", stop_axis)):
            if axis not in (0, -1):
                raise InvalidArgument(
                    f"The {name} should be 0 or -1 when the input tensor is a 0D-Tensor"
                )
        return (1,)
    for name, axis in (("start_axis", start_axis), ("stop_axis", stop_axis)):
        if not -rank <= axis < rank:
            raise InvalidArgument(
                f"The {name} of Op(flatten) should be in range [{-rank}, {rank}) for an input "
                f"of shape {fmt_dims(x_dims)}, but received {axis}."
            )
    start = start_axis + rank if start_axis < 0 else start_axis
    stop = stop_axis + rank if stop_axis < 0 else stop_axis
    if stop < start:
        raise InvalidArgument("The stop_axis should be greater than or equal to start_axis.")
    outer = 1
    for d in x_dims[start:stop + 1]:
        if d == UNKNOWN or outer == UNKNOWN:
            outer = UNKNOWN
        else:
            outer *= d
    return (*x_dims[:start], outer, *x_dims[stop + 1:])


# -- dropout, log_softmax ------------------------------------------------------------------------

def dims_product(dims) -> int:
    n = 1
    for d in dims:
        n = UNKNOWN if UNKNOWN in (n, d) else n * d
    return n


def transpose_channel_last(data_format: str) -> bool:
    """ConvTransposeInferMeta and its kernel compare the layout with kNHWC only: "NDHWC" is
    channel-first there (a Paddle-made case says so: conv3d_transpose_ndhwc_out_pad)."""
    return data_format == "NHWC"


def conv_transpose_geometry(x_dims, filter_dims, strides, paddings, output_padding,
                            output_size, padding_algorithm: str, dilations):
    """(paddings [before0, after0, ...], dilations, output sizes) of an NC* conv_transpose,
    with ConvTransposeInferMeta's checks: out = (in - 1) * stride - pads + dilation * (k - 1)
    + 1, then ``output_size`` (in [that, that + stride)) or + ``output_padding``.  A size of 0
    gives an empty output as in Paddle; a negative one raises (Paddle allocates a negative dim
    and crashes: **deviation**)."""
    data_dims = list(x_dims[2:])
    ksize = list(filter_dims[2:])
    pads, dils = resolve_conv_padding(paddings, dilations, padding_algorithm, data_dims,
                                      strides, ksize)
    if output_size and len(output_size) != len(data_dims):
        raise InvalidArgument(
            f"The Attr(output_size) of Op(conv_transpose) must hold {len(data_dims)} values, "
            f"but received {fmt_dims(output_size)}.")
    if output_padding and len(output_padding) != len(data_dims):
        raise InvalidArgument(
            f"The Attr(output_padding) of Op(conv_transpose) must hold {len(data_dims)} values, "
            f"but received {fmt_dims(output_padding)}.")
    out = []
    for i, size in enumerate(data_dims):
        if size == UNKNOWN:
            out.append(UNKNOWN)
            continue
        infer = (size - 1) * strides[i] - pads[2 * i] - pads[2 * i + 1] + \
            dils[i] * (ksize[i] - 1) + 1
        if output_size:
            want = int(output_size[i])
            if not infer <= want < infer + strides[i]:
                raise InvalidArgument(
                    f"The Attr(output_size) of Op(conv_transpose) should be in appropriate "
                    f"range, i.e. [{infer}, {infer + strides[i]}), but received "
                    f"output_size[{i}] = {want}.")
            size_i = want
        elif output_padding:
            p = int(output_padding[i])
            if not 0 <= p < max(strides[i], dils[i]):
                raise InvalidArgument(
                    f"The output_padding of Op(conv_transpose) should be in appropriate "
                    f"range, i.e. [0, {max(strides[i], dils[i])}), but received "
                    f"output_padding[{i}] = {p}.")
            size_i = infer + p
        else:
            size_i = infer
        if size_i < 0:
            raise InvalidArgument(
                f"The output size of Op(conv_transpose) must be at least 0, but (input_size - "
                f"1) * stride - pads + dilation * (filter_size - 1) + 1 is {size_i} on axis {i}"
                f" (input_size {size}, stride {strides[i]}, pads {pads[2 * i]} and "
                f"{pads[2 * i + 1]}, dilation {dils[i]}, filter_size {ksize[i]}).")
        out.append(size_i)
    return pads, dils, tuple(out)


# -- broadcast ---------------------------------------------------------------------------------

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


# -- manipulation and creation -----------------------------------------------------------------

def norm_axis(axis: int, rank: int, op: str, what: str = "axis") -> int:
    """``axis`` in [-rank, rank) made non-negative, else InvalidArgument naming the op."""
    if not -rank <= axis < rank:
        raise InvalidArgument(f"{op}: Attr({what}) = {axis} is out of range, expected "
                              f"[{-rank}, {rank}) for an input of rank {rank}.")
    return axis + rank if axis < 0 else axis


def meta_like(x, out, dims) -> None:
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


# -- diag / diag_embed / diagonal / eye / fill_diagonal_tensor ---------------------------------

def diag_len(rows: int, cols: int, offset: int) -> int:
    if UNKNOWN in (rows, cols):
        return UNKNOWN
    n = min(rows, cols - offset) if offset >= 0 else min(rows + offset, cols)
    return max(n, 0)


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
    return (*rest, diag_len(dims[a1], dims[a2], offset))


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


# -- logspace / is_empty / transfer_layout -----------------------------------------------------

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


# -- indexing ----------------------------------------------------------------------------------

def checked_axis(axis: int, rank: int, op: str) -> int:
    if not -max(rank, 1) <= axis < max(rank, 1):
        raise InvalidArgument(f"{op}: the axis should be in range [{-rank}, {rank}), but "
                              f"received {axis}.")
    return axis + rank if axis < 0 else axis


def check_graph_indices(src, dst, op: str) -> None:
    check_index_dtype(op, "Src_index", src)
    check_index_dtype(op, "Dst_index", dst)
    for name, m in (("Src_index", src), ("Dst_index", dst)):
        d = tuple(m.dims)
        if not (len(d) == 1 or (len(d) == 2 and d[1] in (1, UNKNOWN))):
            raise InvalidArgument(f"{op}: Input({name}) should be 1-D or [N, 1], but received "
                                  f"{fmt_dims(d)}.")


# -- linear algebra, comparisons, cumulative ops, histograms -----------------------------------

def dims_match(a: int, b: int) -> bool:
    return a == b or UNKNOWN in (a, b)


def bad_argument(op: str, what: str) -> InvalidArgument:
    return InvalidArgument(f"{op}: {what}")


def cross_axis(dims, dim: int) -> int:
    """The axis cross works on: ``dim`` (9, kDefaultDim: the first axis of size 3)."""
    rank = len(dims)
    if dim == 9:
        for i, d in enumerate(dims):
            if d == 3:
                return i
        raise bad_argument("cross", f"no dim of Input(X) {fmt_dims(dims)} has size 3.")
    if not -rank <= dim < rank:
        raise bad_argument("cross", f"Attr(dim) {dim} is out of range [{-rank}, {rank}).")
    dim %= rank
    if dims[dim] not in (3, UNKNOWN):
        raise bad_argument("cross", f"dim {dim} of Input(X) {fmt_dims(dims)} must be 3.")
    return dim


# -- linear algebra ----------------------------------------------------------------------------

COMPLEX_OF = {DataType.FLOAT32: DataType.COMPLEX64, DataType.FLOAT64: DataType.COMPLEX128}


def complex_dtype(dtype: DataType) -> DataType:
    return COMPLEX_OF.get(dtype, dtype)


def matrix_dims(dims, op: str, slot: str = "X") -> tuple[int, ...]:
    dims = tuple(dims)
    if len(dims) < 2:
        raise InvalidArgument(f"{op}: Input({slot}) must be a (batch of) matrix of rank >= 2, "
                              f"but its dims are {fmt_dims(dims)}.")
    return dims


def square_dims(dims, op: str, slot: str = "X") -> tuple[int, ...]:
    """Dims of a batch of square matrices, else InvalidArgument."""
    dims = matrix_dims(dims, op, slot)
    if UNKNOWN not in dims[-2:] and dims[-1] != dims[-2]:
        raise InvalidArgument(f"{op}: the inner-most 2 dimensions of Input({slot}) should be "
                              f"equal (square matrices), but received {fmt_dims(dims)}.")
    return dims


def batch_broadcast(a, b, op: str) -> tuple[int, ...]:
    """The broadcast of two batch dims (right-aligned), -1 when unknown."""
    a, b = tuple(a), tuple(b)
    n = max(len(a), len(b))
    a, b = (1,) * (n - len(a)) + a, (1,) * (n - len(b)) + b
    out = []
    for x, y in zip(a, b, strict=True):
        if x == 1 or x == y:
            out.append(y)
        elif y == 1:
            out.append(x)
        elif UNKNOWN in (x, y):
            out.append(max(x, y))
        else:
            raise InvalidArgument(f"{op}: the batch dimensions {fmt_dims(a)} and {fmt_dims(b)} "
                                  "cannot be broadcast together.")
    return tuple(out)


def inverse_dims(dims) -> tuple[int, ...]:
    """InverseInferMeta's checks: square matrices, every dim -1 or positive (no empty input)."""
    dims = square_dims(dims, "inverse", "Input")
    if any(d == 0 or d < UNKNOWN for d in dims):
        raise InvalidArgument(f"inverse: Each dimension of input tensor is expected to be -1 or "
                              f"a positive number, but received 0. Input's shape is "
                              f"{fmt_dims(dims)}.")
    return dims


def solve_out_dims(x_dims, y_dims, op: str = "solve") -> tuple[tuple[int, ...], bool]:
    """SolveInferMeta: (out dims, y is a vector); y is a vector when 1-D or when its dims are
    x's without the last (Paddle's is_vector_rhs)."""
    x_dims = square_dims(x_dims, op)
    y_dims = tuple(y_dims)
    vector = len(y_dims) == 1 or y_dims == x_dims[:-1]
    if not y_dims:
        raise InvalidArgument(f"{op}: Input(Y) must not be 0-D.")
    y_mat = (*y_dims, 1) if vector else y_dims
    if len(y_mat) < 2:
        raise InvalidArgument(f"{op}: Input(Y) dims {fmt_dims(y_dims)} are not a matrix.")
    n = x_dims[-1]
    if UNKNOWN not in (n, y_mat[-2]) and n != y_mat[-2]:
        raise InvalidArgument(f"{op}: the rows of Input(Y) ({y_mat[-2]}) must equal the order "
                              f"of Input(X) ({n}); dims {fmt_dims(x_dims)} and "
                              f"{fmt_dims(y_dims)}.")
    batch = batch_broadcast(x_dims[:-2], y_mat[:-2], op)
    return ((*batch, n) if vector else (*batch, n, y_mat[-1])), vector


def qr_out_dims(dims, mode: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """QrInferMeta: (Q dims, R dims); mode "r" computes no Q (dims [0])."""
    if mode not in ("reduced", "complete", "r"):
        raise InvalidArgument(f"qr: Attr(mode) must be 'reduced', 'complete' or 'r', but "
                              f"received '{mode}'.")
    dims = matrix_dims(dims, "qr")
    m, n = dims[-2:]
    k = UNKNOWN if UNKNOWN in (m, n) else min(m, n)
    batch = dims[:-2]
    if mode == "complete":
        return (*batch, m, m), (*batch, m, n)
    q = (0,) if mode == "r" else (*batch, m, k)
    return q, (*batch, k, n)


def multi_dot_out_dims(dims_list) -> tuple[int, ...]:
    """MultiDotInferMeta: a chain of 2-D matrices, the first / last may be 1-D vectors."""
    dims_list = [tuple(d) for d in dims_list]
    if len(dims_list) < 2:
        raise InvalidArgument(f"multi_dot: Input(X) needs at least 2 tensors, got "
                              f"{len(dims_list)}.")
    mats = []
    for i, d in enumerate(dims_list):
        edge = i in (0, len(dims_list) - 1)
        if len(d) == 1 and edge:
            d = (1, d[0]) if i == 0 else (d[0], 1)
        elif len(d) != 2:
            raise InvalidArgument(f"multi_dot: Input(X)[{i}] must be 2-D (the first and last "
                                  f"may be 1-D), but its dims are {fmt_dims(d)}.")
        mats.append(d)
    for i in range(1, len(mats)):
        a, b = mats[i - 1][1], mats[i][0]
        if UNKNOWN not in (a, b) and a != b:
            raise InvalidArgument(f"multi_dot: Input(X)[{i - 1}] dims {fmt_dims(dims_list[i - 1])}"
                                  f" and Input(X)[{i}] dims {fmt_dims(dims_list[i])} cannot be "
                                  "multiplied.")
    out = []
    if len(dims_list[0]) == 2:
        out.append(mats[0][0])
    if len(dims_list[-1]) == 2:
        out.append(mats[-1][1])
    return tuple(out)


# -- reductions, statistics, losses ------------------------------------------------------------

def attr_axis(axis: int, rank: int, op: str, name: str = "axis") -> int:
    lo = -rank if rank else -1
    hi = rank if rank else 1
    if not lo <= axis < hi:
        raise InvalidArgument(f"{op}: attribute {name} must be in [{lo}, {hi}) for an input of "
                              f"rank {rank}, but received {axis}.")
    return axis + rank if axis < 0 else axis


def check_same_dims(op: str, a: str, b: str, da, db) -> None:
    """Both known dims must agree (-1 passes, as Paddle's compile-time checks skip it)."""
    if len(da) != len(db) or any(x != y and UNKNOWN not in (x, y)
                                 for x, y in zip(da, db, strict=True)):
        raise InvalidArgument(f"{op}: Input({a}) and Input({b}) must have the same shape, but "
                              f"received {fmt_dims(da)} and {fmt_dims(db)}.")


# -- reductions and norms -------------------------------------------------------------------------

def median_out_dims(x_dims, axis, keepdim: bool) -> tuple[int, ...]:
    """Out's dims of nanmedian: every axis reduced when ``axis`` is empty (all 1 with keepdim)."""
    axis = int_array_data(axis)
    rank = len(x_dims)
    if not axis:
        return (1,) * rank if keepdim else ()
    axes = reduce_axes(x_dims, axis)
    return tuple(1 if i in axes else d for i, d in enumerate(x_dims) if keepdim or i not in axes)


def check_kth(x_dims, k: int, axis: int) -> None:
    """KthvalueInferMeta's checks of ``k`` and ``axis``."""
    rank = len(x_dims)
    if rank == 0:
        if k != 1:
            raise InvalidArgument("the k in the kthvalue must less equal than the elements "
                                  f"number of the input X, but received {k} .")
        attr_axis(axis, rank, "kthvalue")
        return
    a = attr_axis(axis, rank, "kthvalue")
    if k < 1:
        raise InvalidArgument(f"the k in the kthvalue must >= 1, but received {k} .")
    if x_dims[a] != UNKNOWN and x_dims[a] < k:
        raise InvalidArgument(f"input of kthvalue must have >= {k} columns in axis of {a}, but "
                              f"received input_dims[axis]:{x_dims[a]} < k:{k}.")


# -- FFT and framing ---------------------------------------------------------------------------

NORMS = ("backward", "ortho", "forward")


def fft_axes(axes, rank: int, normalization: str, op: str) -> list[int]:
    """The transform axes made non-negative, checked as Paddle's fft ops do."""
    if normalization not in NORMS:
        raise InvalidArgument(f"{op}: Attr(normalization) must be one of {', '.join(NORMS)}, "
                              f"but received '{normalization}'.")
    out = []
    for a in axes:
        if not -rank <= a < rank:
            raise InvalidArgument(f"{op}: Attr(axes) value {a} is out of range for an input of "
                                  f"rank {rank}.")
        out.append(a + rank if a < 0 else a)
    if not out or len(set(out)) != len(out):
        raise InvalidArgument(f"{op}: Attr(axes) {list(axes)} must be non-empty and unique.")
    return out


def _signal_axis(axis: int, op: str) -> int:
    if axis not in (0, -1):
        raise InvalidArgument(f"{op}: Attr(axis) should be 0 or -1, but received {axis}.")
    return axis


def frame_out_dims(dims, frame_length: int, hop_length: int, axis: int) -> tuple[int, ...]:
    """FrameInferMeta: [..., seq] -> [..., frame_length, n_frames] (axis -1) or [seq, ...] ->
    [n_frames, frame_length, ...] (axis 0); n_frames = 1 + (seq - frame_length) // hop."""
    _signal_axis(axis, "frame")
    dims = tuple(dims)
    if not dims:
        raise InvalidArgument("frame: Input(X) must have rank >= 1, got a 0-D tensor.")
    if hop_length <= 0:
        raise InvalidArgument(f"frame: Attr(hop_length) should be greater than 0, but got "
                              f"{hop_length}.")
    seq = dims[-1] if axis == -1 else dims[0]
    if seq != UNKNOWN and not 0 < frame_length <= seq:
        raise InvalidArgument(f"frame: Attribute(frame_length) should be in range (0, "
                              f"{seq}], but got {frame_length}.")
    n = UNKNOWN if seq == UNKNOWN else 1 + (seq - frame_length) // hop_length
    if axis == -1:
        return (*dims[:-1], frame_length, n)
    return (n, frame_length, *dims[1:])


def overlap_add_out_dims(dims, hop_length: int, axis: int) -> tuple[int, ...]:
    """OverlapAddInferMeta: [..., frame_length, n_frames] -> [..., seq] (axis -1) or
    [n_frames, frame_length, ...] -> [seq, ...]; seq = (n_frames - 1) * hop + frame_length."""
    _signal_axis(axis, "overlap_add")
    dims = tuple(dims)
    if len(dims) < 2:
        raise InvalidArgument(f"overlap_add: Input(X) must have rank >= 2, got "
                              f"{fmt_dims(dims)}.")
    if hop_length <= 0:
        raise InvalidArgument(f"overlap_add: Attr(hop_length) should be greater than 0, but "
                              f"got {hop_length}.")
    fl, nf = (dims[-2], dims[-1]) if axis == -1 else (dims[1], dims[0])
    seq = UNKNOWN if UNKNOWN in (fl, nf) else (nf - 1) * hop_length + fl
    return (*dims[:-2], seq) if axis == -1 else (seq, *dims[2:])


# -- sliding windows ---------------------------------------------------------------------------

def int_list(values) -> list[int]:
    return [int(v) for v in values]


def max_pool_with_index_geometry(spatial, kernel_size, strides, paddings,
                                 global_pooling: bool, adaptive: bool):
    """(kernel sizes, paddings, output sizes) of max_pool2d/3d_with_index, with
    MaxPoolWithIndexInferMeta's checks: one symmetric padding per axis; global pooling takes
    the whole input; out = (in - k + 2 * pad) / stride + 1 in C++ ints (0 gives an empty
    output as Paddle; a negative size raises where Paddle crashes: **deviation**)."""
    nd = len(spatial)
    ksize, strides, pads = int_list(kernel_size), int_list(strides), int_list(paddings)
    if global_pooling:
        ksize = list(spatial)
        pads = [0] * len(pads)
    if len(ksize) != nd or len(strides) != nd or len(pads) != nd:
        raise InvalidArgument(
            f"Op(max_pool{nd}d_with_index): Attr(ksize) {fmt_dims(ksize)}, Attr(strides) "
            f"{fmt_dims(strides)} and Attr(paddings) {fmt_dims(pads)} must each hold {nd} "
            f"values (one per spatial axis).")
    if adaptive:
        if any(k <= 0 for k in ksize):
            raise InvalidArgument(f"Op(max_pool{nd}d_with_index): the adaptive output size "
                                  f"{fmt_dims(ksize)} must be positive.")
        return ksize, pads, tuple(ksize)
    check_positive(strides, "stride", f"max_pool{nd}d_with_index")
    out = []
    for size, k, p, s in zip(spatial, ksize, pads, strides, strict=True):
        if size == UNKNOWN:
            out.append(UNKNOWN)
            continue
        o = _cdiv(size - k + 2 * p, s) + 1
        if o < 0:
            raise InvalidArgument(
                f"Op(max_pool{nd}d_with_index): the output size (input_size - ksize + 2 * "
                f"padding) / stride + 1 = ({size} - {k} + 2 * {p}) / {s} + 1 = {o} is "
                f"negative.")
        out.append(o)
    return ksize, pads, tuple(out)


def _check_lengths(op: str, **lists) -> None:
    for name, (values, n) in lists.items():
        if len(values) != n:
            raise InvalidArgument(f"Op({op}): Attr({name}) must hold {n} values, but received "
                                  f"{fmt_dims(values)}.")


def _check_all_positive(op: str, **lists) -> None:
    for name, values in lists.items():
        if any(v <= 0 for v in values):
            raise InvalidArgument(f"Op({op}): every value of Attr({name}) must be greater than "
                                  f"0, but received {fmt_dims(values)}.")


def unfold_geometry(spatial, kernel_sizes, strides, paddings, dilations):
    """(paddings [top, bottom, left, right], block counts) of unfold, with UnfoldInferMeta's
    checks; its ``paddings`` are [top, left, bottom, right] and the counts CalcOutputSize's:
    (in + pads - (dilation * (k - 1) + 1)) / stride + 1 in C++ ints, which must be > 0."""
    ksize, strides, dils = int_list(kernel_sizes), int_list(strides), int_list(dilations)
    pads = int_list(paddings)
    _check_lengths("unfold", kernel_sizes=(ksize, 2), strides=(strides, 2),
                   paddings=(pads, 4), dilations=(dils, 2))
    _check_all_positive("unfold", kernel_sizes=ksize, strides=strides, dilations=dils)
    blocks = [UNKNOWN if size == UNKNOWN else
              _cdiv(size + pads[i] + pads[i + 2] - (dils[i] * (ksize[i] - 1) + 1),
                    strides[i]) + 1 for i, size in enumerate(spatial)]
    if UNKNOWN not in spatial and min(blocks) <= 0:
        raise InvalidArgument(
            f"The sliding blocks calculated from input spatial size ({spatial[0]}, "
            f"{spatial[1]}), kernel_sizes ({ksize[0]}, {ksize[1]}), strides ({strides[0]}, "
            f"{strides[1]}), dilations ({dils[0]}, {dils[1]}), is ({blocks[0]}, {blocks[1]}), "
            f"which should be a positive integer.")
    return [pads[0], pads[2], pads[1], pads[3]], blocks


def fold_geometry(x_dims, output_sizes, kernel_sizes, strides, paddings, dilations):
    """(paddings [top, bottom, left, right], block counts) of fold, with FoldInferMeta's and
    col2im's checks: FoldInferMeta (and the kernel's column shape) count blocks with
    2 * paddings[0|1], col2im with both sides (paddings [top, left, bottom, right]); both must
    give the same counts, and their product must be the input's last dim."""
    outs, ksize, strides = int_list(output_sizes), int_list(kernel_sizes), int_list(strides)
    pads, dils = int_list(paddings), int_list(dilations)
    _check_lengths("fold", output_sizes=(outs, 2), kernel_sizes=(ksize, 2),
                   strides=(strides, 2), paddings=(pads, 4), dilations=(dils, 2))
    _check_all_positive("fold", output_sizes=outs, kernel_sizes=ksize, strides=strides,
                        dilations=dils)
    blocks = []
    for i in range(2):
        span = dils[i] * (ksize[i] - 1) + 1
        b = _cdiv(outs[i] + 2 * pads[i] - span, strides[i]) + 1
        both = _cdiv(outs[i] + pads[i] + pads[i + 2] - span, strides[i]) + 1
        if b != both:
            raise InvalidArgument(
                f"Op(fold): Output_{'height' if i == 0 else 'width'} and padding"
                f"{fmt_dims([pads[i], pads[i + 2]])} are inconsistent: {b} blocks counted with "
                f"2 * padding, {both} with both sides.")
        blocks.append(b)
    channels, length = x_dims[1], x_dims[2]
    if length != UNKNOWN and blocks[0] * blocks[1] != length:
        raise InvalidArgument(
            f"Given input output_size ({outs[0]}, {outs[1]}), kernel_sizes ({ksize[0]}, "
            f"{ksize[1]}), strides ({strides[0]}, {strides[1]}), dilations ({dils[0]}, "
            f"{dils[1]}), which should be expected size of input's dimension 2 to match the "
            f"calculated number of {blocks[0]} * {blocks[1]} = {blocks[0] * blocks[1]}, but "
            f"got {length}")
    if channels != UNKNOWN and channels % (ksize[0] * ksize[1]):
        raise InvalidArgument(
            f"Expected size of input's dimension 1 to be divisible by the product of "
            f"kernel_size, but got input.size(1)={channels} and kernel_size=({ksize[0]}, "
            f"{ksize[1]}).")
    return [pads[0], pads[2], pads[1], pads[3]], blocks


def maxout_axis(x_dims, groups: int, axis: int) -> int:
    """MaxOutInferMeta's checks; the channel axis (1 or 3: -1 means 3)."""
    if len(x_dims) != 4:
        raise InvalidArgument(f"x's dimension of Op(maxout) must be 4, but received "
                              f"{len(x_dims)}: {fmt_dims(x_dims)}.")
    if axis not in (1, -1, 3):
        raise InvalidArgument(f"axis only supported 1, -1 or 3, but recevied axis is: {axis}")
    axis = 3 if axis == -1 else axis
    if groups <= 0:
        raise InvalidArgument(f"Attr(groups) of Op(maxout) should be larger than 0. But "
                              f"received {groups}.")
    channels = x_dims[axis]
    if channels != UNKNOWN and channels % groups:
        raise InvalidArgument(
            f"The number of input channels for Op(maxout) should be divisible by Attr(groups)."
            f" But received: the input's channels is [{channels}], the shape of input is "
            f"{fmt_dims(x_dims)}, the Attr(groups) is [{groups}], the Attr(axis) is [{axis}].")
    return axis


# -- interpolation -----------------------------------------------------------------------------

_AXES = ("d", "h", "w")


def float_to_int32(v) -> int:
    """static_cast<int> of a float on x86-64: truncation, and INT_MIN for NaN, inf or values
    out of int's range (cvttss2si's "integer indefinite"; Python's int() would raise)."""
    v = float(v)
    if not -2147483649.0 < v < 2147483648.0:  # NaN fails both
        return -2147483648
    return int(v)


def interp_channel_last(data_layout: str) -> bool:
    """ExtractNCDWH compares the layout with kNCHW only: every other layout string ("NHWC",
    and "NCDHW" / "NDHWC" too) puts the channels last."""
    return data_layout != "NCHW"


def interp_out_sizes(in_sizes, outs, scale, size_tensor=None, scale_tensor=None,
                     out_size=None) -> tuple[list[int], list[float]]:
    """(output sizes, scales) of an interp over ``in_sizes`` (1 to 3 axes) in Paddle's order
    of precedence: SizeTensor, else the Scale tensor / ``scale`` attribute (out = int(in *
    scale), an int times a float in float), then OutSize over both; the ``outs`` attributes
    otherwise.  Scales are float32; -1 means none.  The ``scale`` attribute counts for one
    axis when it has a value, for 2 or 3 axes when it has more than one."""
    nd = len(in_sizes)
    names = _AXES[3 - nd:]
    scales = [-1.0] * nd
    outs = [int(o) for o in outs]
    if size_tensor:
        outs = [int(v) for v in size_tensor[:nd]]
    else:
        given, what = None, ""
        if scale_tensor is not None:
            vals = [float(np.float32(v)) for v in scale_tensor]
            given = vals[:nd] if len(vals) > 1 else vals[:1] * nd
            what = "input 'Scale' Tensor"
        elif len(scale) > (0 if nd == 1 else 1):
            given = [float(np.float32(v)) for v in scale[:nd]]
            what = "Attr(scale)"
        if given is not None:
            if len(given) != nd:
                raise InvalidArgument(f"The {what} of Operator(interpolate) must hold {nd} "
                                      f"values, but received {fmt_dims(given)}.")
            for name, s in zip(names, given, strict=True):
                if not s > 0:
                    raise InvalidArgument(
                        f"The scale_{name} in {what} of Operator(interpolate) should be "
                        f"greater than 0, but received value is {s}.")
            scales = given
            with np.errstate(over="ignore"):
                outs = [float_to_int32(np.float32(i) * np.float32(s)) for i, s in
                        zip(in_sizes, scales, strict=True)]
        if out_size is not None:
            outs = [int(v) for v in out_size[:nd]]
    for name, v in zip(names, outs, strict=True):
        if v <= 0:
            raise InvalidArgument(f"out_{name} in Attr(out_shape) of Op(interpolate) should be "
                                  f"greater than 0.")
    return outs, scales


def interp_out_hw(in_hw, out_h: int, out_w: int, scale, size_tensor=None, scale_tensor=None,
                  out_size=None) -> tuple[int, int, float, float]:
    """(out_h, out_w, scale_h, scale_w): interp_out_sizes over two axes."""
    (h, w), (sh, sw) = interp_out_sizes(in_hw, (out_h, out_w), scale, size_tensor,
                                        scale_tensor, out_size)
    return h, w, sh, sw


# -- vision ------------------------------------------------------------------------------------

_MODES = ("constant", "reflect", "replicate", "circular")


def pad3d_pairs(x_dims, paddings, mode: str, data_format: str) -> list[tuple[int, int]]:
    """Per-axis (before, after) pads of a 5-D x from [left, right, top, bottom, front, back],
    with Paddle's checks (6 values, known mode; reflect pads smaller than the dim, replicate
    and circular on non-empty dims)."""
    if len(paddings) != 6:
        raise InvalidArgument(f"Size of paddings should be equal to 6, but received "
                              f"{len(paddings)}.")
    if mode not in _MODES:
        raise InvalidArgument(f"mode of pad3d should be one of {_MODES}, but received {mode}.")
    left, right, top, bottom, front, back = (int(p) for p in paddings)
    spatial = [(front, back), (top, bottom), (left, right)]
    channel_last = data_format == "NDHWC"
    d_axes = (1, 2, 3) if channel_last else (2, 3, 4)
    for axis, (a, b), name in zip(d_axes, spatial, ("depth", "height", "width"), strict=True):
        size = x_dims[axis]
        if size == UNKNOWN:
            continue
        if mode == "reflect" and (a >= size or b >= size):
            raise InvalidArgument(f"The {name} of Input(X)'s dimension should be greater than "
                                  f"pad in reflect mode, but received {name} = {size} and "
                                  f"pads ({a}, {b}).")
        if mode in ("replicate", "circular") and size == 0 and (a or b):
            raise InvalidArgument(f"The input tensor size can not be 0 for circular or "
                                  f"replicate padding mode ({name}).")
    pairs = [(0, 0)] * 5
    for axis, pair in zip(d_axes, spatial, strict=True):
        pairs[axis] = pair
    return pairs


def affine_grid_out_dims(theta_dims, output_shape) -> tuple[int, ...]:
    """[N, H, W, 2] for a 4-D output_shape, [N, D, H, W, 3] for a 5-D one."""
    shape = tuple(output_shape)
    if len(shape) not in (4, 5):
        raise InvalidArgument(f"affine_grid: the output shape must have 4 or 5 entries, got "
                              f"{list(shape)}.")
    theta = tuple(theta_dims)
    rows = 2 if len(shape) == 4 else 3
    if len(theta) != 3 or (UNKNOWN not in theta[1:] and theta[1:] != (rows, rows + 1)):
        raise InvalidArgument(f"affine_grid: Input(Theta) must be [N, {rows}, {rows + 1}] for "
                              f"output shape {list(shape)}, got {fmt_dims(theta)}.")
    return (theta[0], *shape[2:], rows)


# -- optimizers --------------------------------------------------------------------------------

def outputs_like(n_args: int, pairs: dict[int, int], name: str):
    """An InferMeta whose output k shares the meta of argument pairs[k] (lists pairwise)."""

    def infer(*args) -> None:
        outs = args[n_args:]
        for k, i in pairs.items():
            out, src = outs[k], args[i]
            if out is None or src is None:
                continue
            if isinstance(out, list):
                for o, s in zip(out, src, strict=False):
                    if o is not None:
                        o.share_meta(s)
            else:
                out.share_meta(src)

    infer.__name__ = name
    infer.__doc__ = "Outputs take the meta of the inputs they update."
    return infer


# -- detection ---------------------------------------------------------------------------------

def check_roi_inputs(op, x, boxes, pooled_height, pooled_width) -> None:
    if len(x.dims) != 4:
        raise InvalidArgument(f"{op}: X must be 4-D (NCHW), got dims {list(x.dims)}.")
    if len(boxes.dims) != 2 or boxes.dims[1] not in (4, -1):
        raise InvalidArgument(f"{op}: ROIs must be [num_rois, 4], got dims "
                              f"{list(boxes.dims)}.")
    if pooled_height <= 0 or pooled_width <= 0:
        raise InvalidArgument(f"{op}: pooled_height and pooled_width must be positive, got "
                              f"{pooled_height} and {pooled_width}.")


def check_nms_inputs(op, bboxes, scores, polygons: bool = False) -> None:
    if len(scores.dims) not in (2, 3) or len(bboxes.dims) != 3:
        raise InvalidArgument(f"{op}: BBoxes must be 3-D and Scores 2-D or 3-D, got dims "
                              f"{list(bboxes.dims)} and {list(scores.dims)}.")
    if polygons and bboxes.dims[2] not in (4, 8, 16, 24, 32, -1):
        raise InvalidArgument(f"{op}: the last dim of BBoxes must be 4 (a box) or 8 / 16 / 24 / "
                              f"32 (a polygon's coordinates), got {list(bboxes.dims)}.")
    if not polygons and bboxes.dims[2] not in (4, -1):
        raise InvalidArgument(f"{op}: the last dim of BBoxes must be 4, got "
                              f"{list(bboxes.dims)}.")
