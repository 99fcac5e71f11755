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
]


def _prod(dims) -> int:
    n = 1
    for d in dims:
        n *= d
    return n


# -- element-wise, same shape ----------------------------------------------------------------

def unchanged_infer_meta(x, out) -> None:
    """UnchangedInferMeta: the output has the input's dims, dtype and layout."""
    out.share_meta(x)


def cast_infer_meta(x, dtype: DataType, out) -> None:
    """CastInferMeta: x's dims and layout, the requested dtype."""
    out.set_dims(x.dims)
    out.set_dtype(dtype)
    out.set_layout(x.layout)


def create_like_infer_meta(x, dtype: DataType, out) -> None:
    """CreateLikeInferMeta (full_like): x's dims and layout; dtype UNDEFINED means x's dtype."""
    out.set_dims(x.dims)
    out.set_dtype(x.dtype if dtype == DataType.UNDEFINED else dtype)
    out.set_layout(x.layout)


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
    in_size = _prod(x_dims)
    capacity = _prod(d for k, d in enumerate(out) if k != unk_idx)
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


__all__ += ["reduce_infer_meta_base"]
