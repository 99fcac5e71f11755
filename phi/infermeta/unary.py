"""InferMeta functions of one tensor input (Paddle's paddle/phi/infermeta/unary.cc).

Each function reads ``dims``/``dtype``/``layout`` of its input meta and fills the output meta.
Dims of -1 are sizes unknown at compile time (fluid InferShape on VarDescs); they propagate as
Paddle's compile-time branches propagate them.  The pure shape helpers (``reshape_out_dims``,
``reduce_axes``, ``split_sections`` ...) are shared with the kernels, which need the same numbers.
"""

from __future__ import annotations

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.infermeta._utils import (
    share_lod_if_same_dim0,
    prod,
    UNKNOWN,
    MetaConfig,
    fmt_dims,
    int_array_data,
    is_compile_time_tensor_attr,
    scalar_value,
)

__all__ = [
    "cast_infer_meta",
    "create_like_infer_meta",
    "increment_infer_meta",
    "logical_not_infer_meta",
    "normalize_perm",
    "reduce_axes",
    "reduce_int_array_axis_infer_meta",
    "reduce_out_dims",
    "reshape_infer_meta",
    "reshape_out_dims",
    "softmax_infer_meta",
    "split_axis",
    "split_infer_meta",
    "split_sections",
    "sum_infer_meta",
    "sum_out_dtype",
    "transpose_infer_meta",
    "unchanged_infer_meta",
    "unchanged_int_to_float_infer_meta",
]




# -- element-wise, same shape ----------------------------------------------------------------

def unchanged_infer_meta(x, out) -> None:
    """UnchangedInferMeta: the output has the input's dims, dtype and layout."""
    out.share_meta(x)


def cast_infer_meta(x, dtype: DataType, out) -> None:
    """CastInferMeta: x's dims and layout, the requested dtype."""
    out.set_dims(x.dims)
    out.set_dtype(dtype)
    out.set_layout(x.layout)
    out.share_lod(x)


def create_like_infer_meta(x, dtype: DataType, out) -> None:
    """CreateLikeInferMeta (full_like): x's dims and layout; dtype UNDEFINED means x's dtype."""
    out.set_dims(x.dims)
    out.set_dtype(x.dtype if dtype == DataType.UNDEFINED else dtype)
    out.set_layout(x.layout)
    out.share_lod(x)


def unchanged_int_to_float_infer_meta(x, out) -> None:
    """UnchangedInferMeta for the kernels Paddle defines WITH_INT_IN_FLOAT_OUT (log ...): an int
    x gives float32.  **Deviation**: Paddle's InferMeta says int and the kernel then writes
    float32; the run-time dtype is inferred here, so compile time agrees with run time."""
    out.share_meta(x)
    if x.dtype in (DataType.INT8, DataType.UINT8, DataType.INT16, DataType.INT32,
                   DataType.INT64):
        out.set_dtype(DataType.FLOAT32)


def logical_not_infer_meta(x, out) -> None:
    """LogicalNotInfermeta: x's dims and layout, bool."""
    out.share_meta(x)
    out.set_dtype(DataType.BOOL)


def increment_infer_meta(x, value: float, out) -> None:
    """IncrementInferMeta: x must hold exactly one element; the output is x's meta."""
    if UNKNOWN not in x.dims and prod(x.dims) != 1:
        raise InvalidArgument(
            "The number of elements in Input(X) should be 1.Now the number is "
            f"{prod(x.dims)}."
        )
    out.share_meta(x)


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


def reshape_infer_meta(x, shape, out, *, config: MetaConfig | None = None) -> None:
    """ReshapeInferMeta: see :func:`reshape_out_dims`; an empty shape gives a 0-D tensor."""
    data = int_array_data(shape)
    if is_compile_time_tensor_attr(shape, config):
        out.set_dims(data)  # Paddle: a ShapeTensor's values are taken as they are
    else:
        out.set_dims(reshape_out_dims(x.dims, data))
    out.set_dtype(x.dtype)
    out.set_layout(x.layout)
    # Paddle shares the LoD when dim 0 stays, and then its reshape kernel resets Out's LoD to
    # X's in every case (ResetLoD): the output always keeps X's sequences
    out.share_lod(x)


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


def _reduce_dims(x, axis, keep_dim: bool, reduce_all: bool, config) -> tuple[int, ...]:
    rank = len(x.dims)
    if is_compile_time_tensor_attr(axis, config):
        # Paddle's ReduceInferDimForIntArrayAxis: the axes are unknown, only ranks are
        n_axis = len(int_array_data(axis))
        if reduce_all:
            return (1,) * rank if keep_dim else ()
        if keep_dim:
            return (UNKNOWN,) * rank
        return (UNKNOWN,) if n_axis > rank else (UNKNOWN,) * (rank - n_axis)
    return reduce_out_dims(x.dims, reduce_axes(x.dims, axis, reduce_all), keep_dim)


def reduce_int_array_axis_infer_meta(x, axis, keepdim: bool, out, *,
                                     config: MetaConfig | None = None) -> None:
    """ReduceIntArrayAxisInferMeta (mean): reduced dims, x's dtype and layout."""
    reduce_all = len(int_array_data(axis)) == 0
    out.set_dims(_reduce_dims(x, axis, keepdim, reduce_all, config))
    out.set_dtype(x.dtype)
    out.set_layout(x.layout)


def sum_out_dtype(x_dtype: DataType, dtype: DataType) -> DataType:
    """SumRawInferMeta's dtype rule: the requested dtype, else bool and int32 sum to int64."""
    if dtype != DataType.UNDEFINED:
        return dtype
    if x_dtype in (DataType.BOOL, DataType.INT32):
        return DataType.INT64
    return x_dtype


def sum_infer_meta(x, axis, dtype: DataType, keepdim: bool, out, *,
                   config: MetaConfig | None = None) -> None:
    """SumInferMeta: reduced dims; dtype per :func:`sum_out_dtype`; x's layout."""
    reduce_all = len(int_array_data(axis)) == 0
    out.set_dims(_reduce_dims(x, axis, keepdim, reduce_all, config))
    out.set_dtype(sum_out_dtype(x.dtype, dtype))
    out.set_layout(x.layout)


# -- softmax -----------------------------------------------------------------------------------

def softmax_infer_meta(x, axis: int, out) -> None:
    """SoftmaxInferMeta: axis in [-R, R) for rank R > 0, in [-1, 0] for a 0-D input."""
    rank = len(x.dims)
    if rank > 0 and not -rank <= axis < rank:
        raise InvalidArgument(
            "Attr(axis) value should be in range [-R, R-1], R is the rank of Input(X). The axis "
            f"is expected to be in range of [{-rank}, {rank}), but got {axis}."
        )
    if rank == 0 and axis not in (-1, 0):
        raise InvalidArgument(
            f"Attr(axis) value should be in range [-1, 0] when input is 0D Tensor, but got {axis}."
        )
    out.share_meta(x)


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


def split_infer_meta(x, sections, axis, out: list, *, config: MetaConfig | None = None) -> None:
    """SplitInferMeta: one output per section, x's dims with the section size on ``axis``."""
    n = len(int_array_data(sections))
    if len(out) != n:
        raise InvalidArgument(
            f"split expects {n} output metas (one per section), got {len(out)}."
        )
    x_dims = tuple(x.dims)
    if is_compile_time_tensor_attr(sections, config) or is_compile_time_tensor_attr(axis, config):
        dims_list = [(UNKNOWN,) * len(x_dims)] * n
    else:
        ax = split_axis(x_dims, axis)
        secs = split_sections(x_dims, sections, ax)
        dims_list = [(*x_dims[:ax], s, *x_dims[ax + 1:]) for s in secs]
    for meta, dims in zip(out, dims_list, strict=False):
        meta.set_dims(dims)
        meta.set_dtype(x.dtype)
        meta.set_layout(x.layout)
    _split_share_lod(x, axis, out, config)


def _split_share_lod(x, axis, out: list, config) -> None:
    """Only pass LoD when not splitting along the first dim (Paddle's split InferMeta)."""
    if config is not None and not config.is_runtime:
        return
    if split_axis(tuple(x.dims), axis) != 0:
        for meta in out:
            meta.share_lod(x)


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


def transpose_infer_meta(x, perm, out) -> None:
    """TransposeInferMeta: out.dims[i] = x.dims[perm[i]]."""
    x_dims = tuple(x.dims)
    p = normalize_perm(len(x_dims), perm)
    out.set_dims(tuple(x_dims[i] for i in p))
    out.set_dtype(x.dtype)
    out.set_layout(x.layout)


def reshape_with_xshape_infer_meta(x, shape, out, xshape, *,
                                   config: MetaConfig | None = None) -> None:
    """ReshapeWithXShapeInferMeta: out as :func:`reshape_infer_meta`; xshape [0, *x.dims]
    carries the input's dims for the grad op and no data."""
    reshape_infer_meta(x, shape, out, config=config)
    xshape.set_dims((0, *tuple(x.dims)))
    xshape.set_dtype(x.dtype)
    xshape.set_layout(x.layout)


def split_with_num_infer_meta(x, num: int, axis, out: list, *,
                              config: MetaConfig | None = None) -> None:
    """SplitWithNumInferMeta: ``num`` equal pieces along ``axis`` (the dim must divide)."""
    ax = split_axis(x.dims, axis)
    size = x.dims[ax]
    if num <= 0:
        raise InvalidArgument(f"The num of split should be larger than 0, but got {num}.")
    if size != UNKNOWN and size % num:
        raise InvalidArgument(
            f"The input's size along the split dimension must be evenly divisible by Attr(num),"
            f" but received Attr(num) = {num} and Input(X).shape[{ax}] = {size}."
        )
    piece = UNKNOWN if size == UNKNOWN else size // num
    for o in out:
        dims = list(x.dims)
        dims[ax] = piece
        o.set_dims(tuple(dims))
        o.set_dtype(x.dtype)
        o.set_layout(x.layout)
    _split_share_lod(x, axis, out, config)


def sum_raw_infer_meta(x, axis, keepdim: bool, reduce_all: bool, dtype: DataType, out, *,
                       config: MetaConfig | None = None) -> None:
    """SumRawInferMeta: as :func:`sum_infer_meta` with an explicit ``reduce_all``."""
    reduce_all = reduce_all or len(int_array_data(axis)) == 0
    out.set_dims(_reduce_dims(x, axis, keepdim, reduce_all, config))
    out.set_dtype(sum_out_dtype(x.dtype, dtype))
    out.set_layout(x.layout)


__all__ += ["reshape_with_xshape_infer_meta", "split_with_num_infer_meta",
            "sum_raw_infer_meta"]


def reduce_infer_meta_base(x, axis, keep_dim: bool, reduce_all: bool, out, *,
                           config: MetaConfig | None = None) -> None:
    """ReduceInferMetaBase (mean_raw and the other `_raw` reductions): x's dtype."""
    reduce_all = reduce_all or len(int_array_data(axis)) == 0
    out.set_dims(_reduce_dims(x, axis, keep_dim, reduce_all, config))
    out.set_dtype(x.dtype)
    out.set_layout(x.layout)


def reduce_bool_infer_meta(x, axis, keep_dim: bool, out, *,
                           config: MetaConfig | None = None) -> None:
    """ReduceInferMeta of all / any: reduced dims, bool (the kernels write bool whatever x's
    dtype; Paddle's InferMeta keeps x's dtype at compile time, **deviation**)."""
    reduce_int_array_axis_infer_meta(x, axis, keep_dim, out, config=config)
    out.set_dtype(DataType.BOOL)


def reduce_bool_infer_meta_base(x, axis, keep_dim: bool, reduce_all: bool, out, *,
                                config: MetaConfig | None = None) -> None:
    """ReduceInferMetaBase of all_raw / any_raw: reduced dims, bool."""
    reduce_infer_meta_base(x, axis, keep_dim, reduce_all, out, config=config)
    out.set_dtype(DataType.BOOL)


__all__ += ["reduce_bool_infer_meta", "reduce_bool_infer_meta_base", "reduce_infer_meta_base"]


# -- search and scan ----------------------------------------------------------------------------

def _check_axis(axis: int, rank: int, op: str) -> int:
    """``axis`` in [-rank, rank) (a 0-D tensor takes 0 or -1), normalized."""
    if rank == 0:
        if axis not in (0, -1):
            raise InvalidArgument(f"The axis of {op} must be 0 or -1 for a 0-D tensor, but "
                                  f"received {axis}.")
        return 0
    if not -rank <= axis < rank:
        raise InvalidArgument(f"The axis of {op} must be in range [{-rank}, {rank}), but "
                              f"received {axis}.")
    return axis + rank if axis < 0 else axis


def arg_min_max_infer_meta(x, axis, keepdims: bool, flatten: bool, dtype: DataType, out, *,
                           config: MetaConfig | None = None) -> None:
    """ArgMinMaxInferMeta: ``axis`` removed (kept as 1 with ``keepdims``); with ``flatten``
    a 0-D result (``keepdims``: rank ones); int32 or int64 (``dtype`` undefined: int64)."""
    if dtype not in (DataType.UNDEFINED, DataType.INT32, DataType.INT64):
        raise InvalidArgument("The attribute of dtype in argmin/argmax must be [int32] or "
                              f"[int64], but received [{dtype}]")
    out.set_dtype(DataType.INT32 if dtype is DataType.INT32 else DataType.INT64)
    dims = tuple(x.dims)
    if flatten:
        out.set_dims((1,) * len(dims) if keepdims else ())
        return
    if is_compile_time_tensor_attr(axis, config):
        out.set_dims((UNKNOWN,) * (len(dims) - (0 if keepdims else 1)) if dims else ())
        return
    ax = _check_axis(int(scalar_value(axis)), len(dims), "argmin/argmax")
    if not dims:
        out.set_dims(())
        return
    out.set_dims(dims[:ax] + ((1,) if keepdims else ()) + dims[ax + 1:])


def topk_infer_meta(x, k, axis: int, largest: bool, sorted: bool, out, indices, *,
                     config: MetaConfig | None = None) -> None:
    """TopKInferMeta: x's dims with ``k`` along ``axis`` (unknown at compile time when a tensor
    gives k); values keep x's dtype, indices are int64."""
    dims = list(x.dims)
    ax = _check_axis(axis, len(dims), "topk")
    if is_compile_time_tensor_attr(k, config):
        kk = UNKNOWN
    else:
        kk = int(scalar_value(k))
        if kk < 1:
            raise InvalidArgument("the attribute of k in the topk must >= 1 or be a Tensor, "
                                  f"but received {kk} .")
        if dims and dims[ax] != UNKNOWN and dims[ax] < kk:
            raise InvalidArgument(f"the input of topk must have >= k ({kk}) elements along "
                                  f"axis {ax}, but received {dims[ax]}.")
    if dims:
        dims[ax] = kk
    for meta, dtype in ((out, x.dtype), (indices, DataType.INT64)):
        meta.set_dims(tuple(dims))
        meta.set_dtype(dtype)
        meta.set_layout(x.layout)
        meta.share_lod(x)


def argsort_infer_meta(x, axis: int, descending: bool, out, indices) -> None:
    """ArgsortInferMeta: both outputs have x's dims; indices are int64."""
    _check_axis(axis, len(x.dims), "argsort")
    out.share_meta(x)
    indices.share_meta(x)
    indices.set_dtype(DataType.INT64)


def cum_scalar_axis_infer_meta(x, axis, flatten: bool, exclusive: bool, reverse: bool,
                               out, *, config: MetaConfig | None = None) -> None:
    """CumScalarAxisInferMeta: [numel] with ``flatten``, else x's dims; x's dtype."""
    out.share_meta(x)
    if flatten:
        out.set_dims((prod(x.dims) if UNKNOWN not in x.dims else UNKNOWN,))
    elif not is_compile_time_tensor_attr(axis, config):
        _check_axis(int(scalar_value(axis)), len(x.dims), "cumsum")


__all__ += ["arg_min_max_infer_meta", "argsort_infer_meta", "cum_scalar_axis_infer_meta",
            "topk_infer_meta"]


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


def _xshape(x, xshape) -> None:
    xshape.set_dims((0, *tuple(x.dims)))
    xshape.set_dtype(x.dtype)
    xshape.set_layout(x.layout)


def squeeze_infer_meta(x, axes, out, *, config: MetaConfig | None = None) -> None:
    """SqueezeInferMeta: :func:`squeeze_out_dims`; at compile time with tensor axes, rank minus
    the number of axes, all unknown (Paddle's answer, whatever the sizes of x)."""
    if is_compile_time_tensor_attr(axes, config):
        rank = len(x.dims) - len(int_array_data(axes))
        out.set_dims((UNKNOWN,) * (0 if not x.dims and rank == -1 else max(rank, 0)))
    else:
        out.set_dims(squeeze_out_dims(x.dims, int_array_data(axes)))
    out.set_dtype(x.dtype)
    out.set_layout(x.layout)
    share_lod_if_same_dim0(out, x)


def squeeze_with_xshape_infer_meta(x, axes, out, xshape, *,
                                   config: MetaConfig | None = None) -> None:
    """SqueezeWithXShapeInferMeta: out as :func:`squeeze_infer_meta`; xshape [0, *x.dims]."""
    squeeze_infer_meta(x, axes, out, config=config)
    _xshape(x, xshape)


def unsqueeze_infer_meta(x, axes, out, *, config: MetaConfig | None = None) -> None:
    """UnsqueezeInferMeta: :func:`unsqueeze_out_dims` (compile-time tensor axes: unknown)."""
    if is_compile_time_tensor_attr(axes, config):
        n = len(int_array_data(axes)) if int_array_data(axes) else 1
        out.set_dims((UNKNOWN,) * (len(x.dims) + n))
    else:
        out.set_dims(unsqueeze_out_dims(x.dims, int_array_data(axes)))
    out.set_dtype(x.dtype)
    out.set_layout(x.layout)
    share_lod_if_same_dim0(out, x)


def unsqueeze_with_xshape_infer_meta(x, axes, out, xshape, *,
                                     config: MetaConfig | None = None) -> None:
    """UnsqueezeWithXShapeInferMeta: out as :func:`unsqueeze_infer_meta`; xshape [0, *x.dims]."""
    unsqueeze_infer_meta(x, axes, out, config=config)
    _xshape(x, xshape)


def unstack_infer_meta(x, axis: int, num: int, outs: list) -> None:
    """UnStackInferMeta: x's dims without ``axis``, one output per slice (x.dims[axis] of them,
    which must equal ``num`` when it is set)."""
    dims = tuple(x.dims)
    rank = len(dims)
    if not -rank <= axis < rank:
        raise InvalidArgument(f"The axis of unstack must be in range [{-rank}, {rank}), but "
                              f"received {axis}.")
    axis = axis + rank if axis < 0 else axis
    if dims[axis] != UNKNOWN and len(outs) != dims[axis]:
        raise InvalidArgument(f"Number of Outputs(Y) is wrong. Got {len(outs)} , but it must "
                              f"equal to attribute num which is {dims[axis]}.")
    for o in outs:
        o.set_dims(dims[:axis] + dims[axis + 1:])
        o.set_dtype(x.dtype)
        o.set_layout(x.layout)


__all__ += ["squeeze_infer_meta", "squeeze_out_dims", "squeeze_with_xshape_infer_meta",
            "unsqueeze_infer_meta", "unsqueeze_out_dims", "unsqueeze_with_xshape_infer_meta",
            "unstack_infer_meta"]


# -- slice / strided_slice ---------------------------------------------------------------------

def _norm_axis(axis: int, rank: int, op: str) -> int:
    if not -rank <= axis < rank:
        raise InvalidArgument(f"The axis value should be less than the rank of input, but "
                              f"received axes = {axis}, rank of input is {rank} ({op}).")
    return axis + rank if axis < 0 else axis


def slice_bounds(dims, axes, starts, ends) -> dict[int, tuple[int, int]]:
    """CheckAndUpdateSliceAttrs (step 1): axis -> (start, end), negative values counted from
    the end, clamped to [0, size]; end < start is an error.  Unknown sizes are left out."""
    out = {}
    for i, axis in enumerate(axes):
        axis = _norm_axis(axis, len(dims), "slice")
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
        axis = _norm_axis(axis, len(dims), "strided_slice")
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


def _sliced_dims(dims, bounds, axes, infer_flags, config) -> list[int]:
    runtime = config is None or config.is_runtime
    out = list(dims)
    for i, axis in enumerate(axes):
        axis = axis + len(dims) if axis < 0 else axis
        if not runtime and i < len(infer_flags) and infer_flags[i] == -1:
            out[axis] = UNKNOWN
        elif axis in bounds:
            out[axis] = len(range(*slice(*bounds[axis]).indices(dims[axis])))
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


def slice_raw_infer_meta(input, axes, starts, ends, infer_flags, decrease_axis, out, *,
                         config: MetaConfig | None = None) -> None:
    """SliceRawInferMeta: [start, end) along ``axes`` (unknown at compile time when a tensor
    gives the bounds or infer_flags says -1), ``decrease_axis`` removed."""
    dims = tuple(input.dims)
    runtime = config is None or config.is_runtime
    if is_compile_time_tensor_attr(starts, config) or is_compile_time_tensor_attr(ends, config):
        out_dims = list(dims)
        for a in axes:
            out_dims[_norm_axis(a, len(dims), "slice")] = UNKNOWN
    else:
        bounds = slice_bounds(dims, axes, int_array_data(starts), int_array_data(ends))
        out_dims = _sliced_dims(dims, bounds, axes, infer_flags, config)
    out.set_dims(decreased_dims(out_dims, decrease_axis, runtime))
    out.set_dtype(input.dtype)
    out.set_layout(input.layout)
    if axes and _norm_axis(axes[0], len(dims), "slice") != 0:
        out.share_lod(input)  # Paddle: the LoD stays unless the first sliced axis is dim 0


def strided_slice_raw_infer_meta(x, axes, starts, ends, strides, infer_flags, decrease_axis,
                                 out, *, config: MetaConfig | None = None) -> None:
    """StridedSliceRawInferMeta: strided bounds along ``axes``, ``decrease_axis`` removed."""
    dims = tuple(x.dims)
    runtime = config is None or config.is_runtime
    if any(is_compile_time_tensor_attr(v, config) for v in (starts, ends, strides)):
        out_dims = list(dims)
        for a in axes:
            out_dims[_norm_axis(a, len(dims), "strided_slice")] = UNKNOWN
    else:
        bounds = strided_slice_bounds(dims, axes, int_array_data(starts), int_array_data(ends),
                                      int_array_data(strides), infer_flags, decrease_axis)
        out_dims = _sliced_dims(dims, bounds, axes, infer_flags, config)
    out.set_dims(decreased_dims(out_dims, decrease_axis, runtime))
    out.set_dtype(x.dtype)
    out.set_layout(x.layout)


def strided_slice_infer_meta(x, axes, starts, ends, strides, out, *,
                             config: MetaConfig | None = None) -> None:
    """StridedSliceInferMeta: strided_slice_raw without infer_flags and decrease_axis."""
    strided_slice_raw_infer_meta(x, axes, starts, ends, strides, [], [], out, config=config)


__all__ += ["decreased_dims", "slice_bounds", "slice_raw_infer_meta", "strided_slice_bounds",
            "strided_slice_infer_meta", "strided_slice_raw_infer_meta"]



# -- isnan / p_norm / tril_triu --------------------------------------------------------------

def isfinite_infer_meta(x, out) -> None:
    """IsfiniteInferMeta (isnan, isinf, isfinite): x's dims, bool; no LoD (Paddle sets dims and
    dtype only)."""
    out.set_dims(x.dims)
    out.set_dtype(DataType.BOOL)


def pnorm_infer_meta(x, porder: float, axis: int, epsilon: float, keepdim: bool,
                      asvector: bool, out) -> None:
    """PNormInferMeta: ``axis`` reduced (every axis with ``asvector``); x's dtype."""
    dims = tuple(x.dims)
    rank = len(dims)
    if rank and not -rank <= axis < rank:
        raise InvalidArgument(f"Attr(axis) value should be in range [-R, R-1], R is the rank "
                              f"of Input(X). But received axis: {axis}, R: {rank}. ")
    if asvector:
        out_dims = (1,) * rank if keepdim else ()
    elif rank:
        ax = axis % rank
        out_dims = tuple(1 if i == ax else d for i, d in enumerate(dims) if keepdim or i != ax)
    else:
        out_dims = ()
    out.set_dims(out_dims)
    out.set_dtype(x.dtype)
    out.set_layout(x.layout)


def tril_triu_infer_meta(x, diagonal: int, lower: bool, out) -> None:
    """TrilTriuInferMeta: x must be at least 2-D; the output is x's meta."""
    if len(x.dims) < 2:
        raise InvalidArgument(f"Input(X)'s rank must be at least 2 in TrilTriuOp, but "
                              f"received {len(x.dims)}.")
    out.share_meta(x)


__all__ += ["isfinite_infer_meta", "pnorm_infer_meta", "tril_triu_infer_meta"]


def unique_raw_infer_meta(x, return_index: bool, return_inverse: bool, return_counts: bool,
                          axis, dtype: DataType, is_sorted: bool, out, indices, index,
                          counts) -> None:
    """UniqueRawInferMeta: the unique values [-1] (x's dims with -1 along ``axis``), the index
    outputs of ``dtype`` (int64 unless int32): inverse [numel] or [dims[axis]], first indices
    and counts [-1]."""
    idx = DataType.INT32 if dtype is DataType.INT32 else DataType.INT64
    dims = tuple(x.dims)
    if axis:
        ax = _check_axis(int(axis[0]), len(dims), "unique")
        out.set_dims((*dims[:ax], UNKNOWN, *dims[ax + 1:]))
        inverse = (dims[ax],)
    else:
        out.set_dims((UNKNOWN,))
        inverse = (prod(dims) if UNKNOWN not in dims else UNKNOWN,)
    out.set_dtype(x.dtype)
    out.set_layout(x.layout)
    for m, d in ((indices, (UNKNOWN,)), (index, inverse), (counts, (UNKNOWN,))):
        if m is None:
            continue
        m.set_dims(d)
        m.set_dtype(idx)
        m.set_layout(x.layout)


def unique_infer_meta(x, return_index: bool, return_inverse: bool, return_counts: bool, axis,
                      dtype: DataType, out, indices, index, counts) -> None:
    """UniqueInferMeta: :func:`unique_raw_infer_meta` with sorted values."""
    unique_raw_infer_meta(x, return_index, return_inverse, return_counts, axis, dtype, True,
                          out, indices, index, counts)


__all__ += ["unique_infer_meta", "unique_raw_infer_meta"]
