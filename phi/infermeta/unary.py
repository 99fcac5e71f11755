"""InferMeta functions of one tensor input (Paddle's paddle/phi/infermeta/unary.cc).

Each function reads ``dims``/``dtype``/``layout`` of its input meta and fills the output meta.
Dims of -1 are sizes unknown at compile time (fluid InferShape on VarDescs); they propagate as
Paddle's compile-time branches propagate them.  The pure shape helpers they share with the
kernels (``reshape_out_dims``, ``reduce_axes``, ``split_sections`` ...) are in ``funcs``.
"""

from __future__ import annotations

from phi.common.data_type import DataType
from phi.common.layout import DataLayout
from phi.core.errors import InvalidArgument
from phi.infermeta.funcs import (
    COMPLEX_OF,
    MetaConfig,
    UNKNOWN,
    affine_grid_out_dims,
    attr_axis,
    bad_argument,
    check_kth,
    check_positive,
    checked_axis,
    complex_dtype,
    crop_out_dims,
    decreased_dims,
    diag_len,
    diagonal_out_dims,
    expand_out_dims,
    fft_axes,
    flatten_out_dims,
    flip_axes,
    fmt_dims,
    fold_geometry,
    frame_out_dims,
    int_array_data,
    int_list,
    inverse_dims,
    is_channel_last,
    is_compile_time_tensor_attr,
    matrix_dims,
    max_pool_with_index_geometry,
    maxout_axis,
    median_out_dims,
    meta_like,
    norm_axis,
    normalize_perm,
    outputs_like,
    overlap_add_out_dims,
    pad3d_pairs,
    pool_output_size,
    prod,
    qr_out_dims,
    reduce_axes,
    reduce_out_dims,
    reshape_out_dims,
    resolve_pool_padding,
    scalar_value,
    set_meta,
    share_lod_if_same_dim0,
    slice_axis,
    slice_bounds,
    spatial_dims,
    split_axis,
    split_sections,
    square_dims,
    squeeze_out_dims,
    strided_slice_bounds,
    sum_out_dtype,
    tile_out_dims,
    transfer_layout_axes,
    unfold_geometry,
    unsqueeze_out_dims,
)

__all__ = [
    "add_position_encoding_infer_meta", "affine_grid_infer_meta", "arg_min_max_infer_meta",
    "argsort_infer_meta", "as_complex_infer_meta", "as_real_infer_meta", "as_strided_infer_meta",
    "cast_infer_meta", "channel_shuffle_infer_meta", "check_numerics_infer_meta",
    "cholesky_infer_meta", "class_center_sample_infer_meta", "clip_by_norm_infer_meta",
    "create_like_infer_meta", "crop_infer_meta", "cum_infer_meta", "cum_scalar_axis_infer_meta",
    "cum_with_indices_infer_meta", "cumprod_infer_meta", "diag_embed_infer_meta",
    "diag_infer_meta", "diagonal_infer_meta", "dirichlet_infer_meta", "eig_infer_meta",
    "eigh_infer_meta", "eigvals_infer_meta", "eigvalsh_infer_meta", "einsum_infer_meta",
    "expand_infer_meta", "fft_c2c_infer_meta", "fft_c2r_infer_meta", "fft_r2c_infer_meta",
    "flatten_infer_meta", "flatten_with_xshape_infer_meta", "flip_infer_meta", "fold_infer_meta",
    "frame_infer_meta", "full_batch_size_like_infer_meta", "gumbel_softmax_infer_meta",
    "histogram_infer_meta", "identity_loss_infer_meta", "increment_infer_meta",
    "inverse_infer_meta", "is_empty_infer_meta", "isfinite_infer_meta", "kthvalue_infer_meta",
    "logical_not_infer_meta", "lu_infer_meta", "matrix_power_infer_meta", "matrix_rank_infer_meta",
    "max_out_infer_meta", "max_pool_with_index_infer_meta", "mean_all_infer_meta",
    "mode_infer_meta", "multinomial_infer_meta", "nanmedian_infer_meta", "nms_infer_meta",
    "non_zero_infer_meta", "norm_infer_meta", "numel_infer_meta", "one_hot_raw_infer_meta",
    "overlap_add_infer_meta", "pad3d_infer_meta", "pad_infer_meta", "pixel_shuffle_infer_meta",
    "pixel_unshuffle_infer_meta", "pnorm_infer_meta", "pool2d_infer_meta", "pool_infer_meta",
    "qr_infer_meta", "real_and_imag_infer_meta", "real_dtype", "reduce_bool_infer_meta",
    "reduce_bool_infer_meta_base", "reduce_infer_meta_base", "reduce_int_array_axis_infer_meta",
    "repeat_interleave_infer_meta", "reshape_infer_meta", "reshape_with_xshape_infer_meta",
    "reverse_infer_meta", "roll_infer_meta", "rrelu_infer_meta", "sequence_pool_infer_meta",
    "set_value_infer_meta", "shape_infer_meta", "shard_index_infer_meta", "slice_raw_infer_meta",
    "slogdet_infer_meta", "softmax_infer_meta", "split_infer_meta", "split_with_num_infer_meta",
    "squared_l2_norm_infer_meta", "squeeze_infer_meta", "squeeze_with_xshape_infer_meta",
    "strided_slice_infer_meta", "strided_slice_raw_infer_meta", "strided_unchanged_infer_meta",
    "sum_infer_meta", "sum_raw_infer_meta", "svd_infer_meta", "temporal_shift_infer_meta",
    "tensor_unfold_infer_meta", "tile_infer_meta", "topk_infer_meta", "trace_infer_meta",
    "transfer_layout_infer_meta", "transpose_infer_meta", "tril_triu_infer_meta",
    "unbind_infer_meta", "unchanged_infer_meta", "unchanged_infer_meta_check_axis",
    "unchanged_int_to_float_infer_meta", "unfold_infer_meta", "unique_consecutive_infer_meta",
    "unique_infer_meta", "unique_raw_infer_meta", "unsqueeze_infer_meta",
    "unsqueeze_with_xshape_infer_meta", "unstack_infer_meta", "view_dtype_infer_meta",
    "view_shape_infer_meta", "weight_quantize_infer_meta",
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


# -- squeeze / unsqueeze / unstack ---------------------------------------------------------------

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


# -- slice / strided_slice ---------------------------------------------------------------------

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


def slice_raw_infer_meta(input, axes, starts, ends, infer_flags, decrease_axis, out, *,
                         config: MetaConfig | None = None) -> None:
    """SliceRawInferMeta: [start, end) along ``axes`` (unknown at compile time when a tensor
    gives the bounds or infer_flags says -1), ``decrease_axis`` removed."""
    dims = tuple(input.dims)
    runtime = config is None or config.is_runtime
    if is_compile_time_tensor_attr(starts, config) or is_compile_time_tensor_attr(ends, config):
        out_dims = list(dims)
        for a in axes:
            out_dims[slice_axis(a, len(dims), "slice")] = UNKNOWN
    else:
        bounds = slice_bounds(dims, axes, int_array_data(starts), int_array_data(ends))
        out_dims = _sliced_dims(dims, bounds, axes, infer_flags, config)
    out.set_dims(decreased_dims(out_dims, decrease_axis, runtime))
    out.set_dtype(input.dtype)
    out.set_layout(input.layout)
    if axes and slice_axis(axes[0], len(dims), "slice") != 0:
        out.share_lod(input)  # Paddle: the LoD stays unless the first sliced axis is dim 0


def strided_slice_raw_infer_meta(x, axes, starts, ends, strides, infer_flags, decrease_axis,
                                 out, *, config: MetaConfig | None = None) -> None:
    """StridedSliceRawInferMeta: strided bounds along ``axes``, ``decrease_axis`` removed."""
    dims = tuple(x.dims)
    runtime = config is None or config.is_runtime
    if any(is_compile_time_tensor_attr(v, config) for v in (starts, ends, strides)):
        out_dims = list(dims)
        for a in axes:
            out_dims[slice_axis(a, len(dims), "strided_slice")] = UNKNOWN
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


# -- convolution, pooling, normalization -------------------------------------------------------

# -- pool ----------------------------------------------------------------------------------------

def pool2d_infer_meta(x, kernel_size, strides, paddings, ceil_mode: bool, exclusive: bool,
                      data_format: str, pooling_type: str, global_pooling: bool,
                      adaptive: bool, padding_algorithm: str, out, *,
                      config: MetaConfig | None = None) -> None:
    """Pool2DInferMeta / PoolInferMeta: [N, C, out sizes] (NHWC: [N, sizes, C]).

    Adaptive pooling outputs ``kernel_size``; global pooling uses the whole plane.  A
    ``kernel_size`` fed by a tensor at compile time leaves the spatial sizes -1.
    """
    runtime = config is None or config.is_runtime
    x_dims = list(x.dims)
    channel_last = is_channel_last(data_format)
    ksize = [int(k) for k in int_array_data(kernel_size)]
    if is_compile_time_tensor_attr(kernel_size, config):
        dims = list(x_dims)
        dims[-2] = UNKNOWN
        dims[-3 if channel_last else -1] = UNKNOWN
        out.set_dims(dims)
        out.set_dtype(x.dtype)
        out.set_layout(x.layout)
        return
    if len(x_dims) not in (4, 5):
        raise InvalidArgument(
            "the input of Op(pool) should be 4-D or 5-D Tensor. But received: "
            f"{len(x_dims)}-D Tensor and it's shape is {fmt_dims(x_dims)}."
        )
    if len(x_dims) - len(ksize) != 2:
        raise InvalidArgument(
            "the dimension of input minus the size of Attr(kernel_size_) must be euqal to 2 in "
            f"Op(pool). But received: the dimension of input minus the size of "
            f"Attr(kernel_size_) is {len(x_dims) - len(ksize)}, the input's dimension is "
            f"{len(x_dims)}, the shape of input is {fmt_dims(x_dims)}, the Attr(kernel_size_)'s"
            f" size is {len(ksize)}, the Attr(kernel_size_) is {fmt_dims(ksize)}."
        )
    if len(ksize) != len(strides):
        raise InvalidArgument(
            "the size of Attr(kernel_size_) and Attr(strides) in Op(pool) must be equal. But "
            f"received: Attr(kernel_size_)'s size is {len(ksize)}, Attr(strides)'s size is "
            f"{len(strides)}, Attr(kernel_size_) is {fmt_dims(ksize)}, Attr(strides)is "
            f"{fmt_dims(strides)}."
        )
    if pooling_type not in ("max", "avg"):  # Paddle leaves the output unwritten instead
        raise InvalidArgument(
            f"Op(pool): Attr(pooling_type) must be \"max\" or \"avg\", but received "
            f"\"{pooling_type}\"."
        )
    data_dims = spatial_dims(x_dims, channel_last)
    strides = [int(s) for s in strides]
    if not adaptive:
        check_positive(strides, "stride", "pool")
    pads = resolve_pool_padding(paddings, global_pooling, adaptive, padding_algorithm,
                                data_dims, strides, ksize)
    if global_pooling:
        ksize = list(data_dims)
    if adaptive:
        if any(k <= 0 for k in ksize):  # Paddle would return an empty tensor
            raise InvalidArgument(
                f"Op(pool): the adaptive output size {fmt_dims(ksize)} must be positive."
            )
        sizes = list(ksize)
    else:
        sizes = []
        for i, size in enumerate(data_dims):
            if not runtime and size < 0:
                sizes.append(size)
            else:
                sizes.append(pool_output_size(size, ksize[i], pads[2 * i], pads[2 * i + 1],
                                              strides[i], ceil_mode))
    dims = [x_dims[0], *sizes, x_dims[-1]] if channel_last else [x_dims[0], x_dims[1], *sizes]
    out.set_dims(dims)
    out.set_dtype(x.dtype)
    out.set_layout(x.layout)
    out.share_lod(x)


# -- flatten -------------------------------------------------------------------------------------

def flatten_infer_meta(x, start_axis: int, stop_axis: int, out) -> None:
    """FlattenInferMeta: see :func:`flatten_out_dims`; x's dtype and layout."""
    out.set_dims(flatten_out_dims(x.dims, start_axis, stop_axis))
    out.set_dtype(x.dtype)
    out.set_layout(x.layout)
    share_lod_if_same_dim0(out, x)


def flatten_with_xshape_infer_meta(x, start_axis: int, stop_axis: int, out, xshape) -> None:
    """FlattenWithXShapeInferMeta: out as :func:`flatten_infer_meta`; xshape [0, *x.dims]."""
    flatten_infer_meta(x, start_axis, stop_axis, out)
    xshape.set_dims((0, *tuple(x.dims)))
    xshape.set_dtype(x.dtype)
    xshape.set_layout(x.layout)


# -- dropout, log_softmax ------------------------------------------------------------------------

def unchanged_infer_meta_check_axis(x, axis: int, out) -> None:
    """UnchangedInferMetaCheckAxis (log_softmax): axis in [-R, R), or [-1, 0] for 0-D."""
    rank = len(x.dims)
    if rank > 0 and not -rank <= axis < rank:
        raise InvalidArgument(
            "Attr(axis) value should be in range [-R, R-1], R is the rank of Input(X). But "
            f"received axis: {axis}, R: {rank}."
        )
    if rank == 0 and axis not in (-1, 0):
        raise InvalidArgument(
            f"Attr(axis) value should be in range [-1, 0] when input is 0D Tensor, but got "
            f"{axis}."
        )
    out.share_meta(x)


# -- broadcast ---------------------------------------------------------------------------------

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


# -- manipulation and creation -----------------------------------------------------------------

# -- broadcast_tensors / meshgrid / unbind -----------------------------------------------------

def unbind_infer_meta(x, axis: int, outs: list) -> None:
    """UnbindInferMeta: x's dims without ``axis``, one output per slice."""
    dims = tuple(x.dims)
    a = norm_axis(axis, len(dims), "unbind")
    for o in outs:
        meta_like(x, o, dims[:a] + dims[a + 1:])


# -- crop --------------------------------------------------------------------------------------

def crop_infer_meta(x, shape, offsets, out, *, config: MetaConfig | None = None) -> None:
    """CropInferMeta: :func:`crop_out_dims` (all unknown while a tensor gives the shape)."""
    rank = len(x.dims)
    if is_compile_time_tensor_attr(shape, config):
        dims = (UNKNOWN,) * rank
    else:
        offs = (UNKNOWN,) * rank if is_compile_time_tensor_attr(offsets, config) else \
            int_array_data(offsets)
        dims = crop_out_dims(x.dims, int_array_data(shape), offs)
    meta_like(x, out, dims)
    out.share_lod(x)  # whatever the new dim 0 (Paddle-made case lodmeta_crop_tensor_dim0)


# -- diag / diag_embed / diagonal / eye / fill_diagonal_tensor ---------------------------------

def diag_infer_meta(x, offset: int, padding_value: float, out) -> None:
    """DiagInferMeta: a 0-D / 1-D x gives a square matrix of side n + |offset|; a matrix gives
    its ``offset`` diagonal."""
    dims = tuple(x.dims)
    if len(dims) <= 1:
        n = dims[0] if dims else 1
        side = UNKNOWN if n == UNKNOWN else n + abs(offset)
        meta_like(x, out, (side, side))
    elif len(dims) == 2:
        n = diag_len(dims[0], dims[1], offset)
        meta_like(x, out, (n,))
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
    meta_like(input, out, out_dims)


def diagonal_infer_meta(input, offset: int, axis1: int, axis2: int, out) -> None:
    """DiagonalInferMeta: :func:`diagonal_out_dims`."""
    meta_like(input, out, diagonal_out_dims(tuple(input.dims), offset, axis1, axis2))


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


# -- flip / reverse / roll / pad ---------------------------------------------------------------

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
    meta_like(x, out, [UNKNOWN if d == UNKNOWN else d + paddings[2 * i] + paddings[2 * i + 1]
                       for i, d in enumerate(dims)])
    share_lod_if_same_dim0(out, x)


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
    meta_like(input, out, (*dims, size))


def as_strided_infer_meta(input, dims, stride, offset: int, out) -> None:
    """AsStridedInferMeta: ``dims``."""
    meta_like(input, out, tuple(dims))


def view_shape_infer_meta(input, dims, out) -> None:
    """ViewShapeInferMeta: ``dims`` with one -1 inferred."""
    meta_like(input, out, reshape_out_dims(input.dims, dims))


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
    meta_like(x, out, (n, c2, h2, w2) if data_format == "NCHW" else (n, h2, w2, c2))


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

def is_empty_infer_meta(x, out) -> None:
    """IsEmptyInferMeta: a 0-D bool."""
    out.set_dims(())
    out.set_dtype(DataType.BOOL)


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


# -- indexing ----------------------------------------------------------------------------------

def repeat_interleave_infer_meta(x, repeats: int, dim: int, out) -> None:
    """RepeatInterleaveInferMeta: x's dims with ``dim``'s size times ``repeats``."""
    dims = list(x.dims)
    ax = checked_axis(dim, len(dims), "repeat_interleave")
    if dims and dims[ax] != UNKNOWN:
        dims[ax] *= repeats
    set_meta(out, dims, x.dtype, x.layout)


def set_value_infer_meta(x, out) -> None:
    """SetValueInferMeta: x's meta (rank < 7)."""
    if len(x.dims) >= 7:
        raise InvalidArgument(f"The rank of input should be less than 7, but received "
                              f"{len(x.dims)}.")
    out.share_meta(x)


def shard_index_infer_meta(x, index_num: int, nshards: int, shard_id: int, ignore_value: int,
                           out) -> None:
    """ShardIndexInferMeta: x's meta; x of rank >= 2 with a last dim of 1."""
    dims = tuple(x.dims)
    if len(dims) < 2 or dims[-1] not in (1, UNKNOWN):
        raise InvalidArgument(f"Rank of Input(X) should be at least 2, and the last dimension "
                              f"should be 1, but received {fmt_dims(dims)}.")
    out.share_meta(x)


def non_zero_infer_meta(condition, out) -> None:
    """NonZeroInferMeta: int64 [-1, rank]; condition at least 1-D."""
    rank = len(condition.dims)
    if rank < 1:
        raise InvalidArgument("Input(Condition) should have number of dimension at least 1")
    set_meta(out, (UNKNOWN, rank), DataType.INT64, condition.layout)


def unique_consecutive_infer_meta(x, return_inverse: bool, return_counts: bool, axis,
                                  dtype: DataType, out, index, counts) -> None:
    """UniqueConsecutiveInferMeta: unique values [-1] (x's dims with -1 along ``axis``), the
    inverse [numel] or [dims[axis]] and the counts [-1] of ``dtype``."""
    dims = tuple(x.dims)
    if axis:
        ax = checked_axis(int(axis[0]), len(dims), "unique_consecutive")
        out_dims = (*dims[:ax], UNKNOWN, *dims[ax + 1:])
        inverse = (dims[ax],)
    else:
        out_dims = (UNKNOWN,)
        n = 1
        for d in dims:
            n = UNKNOWN if UNKNOWN in (n, d) else n * d
        inverse = (n,)
    set_meta(out, out_dims, x.dtype, x.layout)
    set_meta(index, inverse, dtype, x.layout)
    set_meta(counts, (UNKNOWN,), dtype, x.layout)


# -- complex numbers ---------------------------------------------------------------------------

def real_and_imag_infer_meta(x, out) -> None:
    """RealAndImagInferMeta: x's dims and layout; a complex x gives its real type (a real x
    keeps its dtype: angle's real kernels); no LoD (Paddle sets dims, dtype and layout only)."""
    out.set_dims(x.dims)
    out.set_dtype(_REAL.get(x.dtype, x.dtype))
    out.set_layout(x.layout)


def as_complex_infer_meta(x, out) -> None:
    """AsComplexInferMeta: x's dims without the last, which must be 2; complex of x's type."""
    dims = tuple(x.dims)
    if not dims or dims[-1] not in (2, UNKNOWN):
        raise InvalidArgument(
            f"as_complex: the last dimension of Input(X) must be 2, but received the shape "
            f"{fmt_dims(dims)}."
        )
    out.set_dims(dims[:-1])
    out.set_dtype(COMPLEX_OF.get(x.dtype, x.dtype))
    out.set_layout(x.layout)


def as_real_infer_meta(x, out) -> None:
    """AsRealInferMeta: x's dims with a last dimension 2 appended; the real type of x."""
    out.set_dims((*tuple(x.dims), 2))
    out.set_dtype(_REAL.get(x.dtype, x.dtype))
    out.set_layout(x.layout)


# -- linear algebra, comparisons, cumulative ops, histograms -----------------------------------

def trace_infer_meta(x, offset: int, axis1: int, axis2: int, out) -> None:
    """TraceInferMeta: x of rank >= 2 without axis1 and axis2 (distinct after wrapping)."""
    rank = len(x.dims)
    if rank < 2:
        raise bad_argument("trace", f"Input(Input) must be at least 2-D, but received "
                                    f"{fmt_dims(x.dims)}.")
    for name, a in (("axis1", axis1), ("axis2", axis2)):
        if not -rank <= a < rank:
            raise bad_argument("trace", f"Attr({name}) {a} is out of range [{-rank}, {rank}).")
    a1, a2 = axis1 % rank, axis2 % rank
    if a1 == a2:
        raise bad_argument(
            "trace", f"axis1 and axis2 cannot be the same axis, but received axis1 = "
                     f"{axis1}, axis2 = {axis2}.")
    out.set_dims(tuple(d for i, d in enumerate(x.dims) if i not in (a1, a2)))
    out.set_dtype(x.dtype)
    out.set_layout(x.layout)


# -- comparisons, scans, counting ---------------------------------------------------------------

def _check_cum_axis(op: str, axis: int, rank: int) -> None:
    lo, hi = (-1, 1) if rank == 0 else (-rank, rank)
    if not lo <= axis < hi:
        raise bad_argument(op, f"axis {axis} is out of range [{lo}, {hi}).")


def cumprod_infer_meta(x, dim: int, out) -> None:
    """UnchangedInferMetaCheckAxis (cumprod): x's meta; ``dim`` within the rank."""
    _check_cum_axis("cumprod", dim, len(x.dims))
    out.share_meta(x)


def cum_with_indices_infer_meta(x, axis: int, dtype, out, indices) -> None:
    """CumWithIndicesInferMeta (cummax / cummin): x's meta and indices of ``dtype`` (int32 /
    int64)."""
    if dtype not in (DataType.INT32, DataType.INT64):
        raise bad_argument(
            "cummax", f"dtype of indices must be int32 or int64, but received {dtype}.")
    _check_cum_axis("cummax", axis, len(x.dims))
    out.share_meta(x)
    indices.set_dims(tuple(x.dims))
    indices.set_dtype(dtype)
    indices.set_layout(x.layout)


def cum_infer_meta(x, axis: int, flatten: bool, exclusive: bool, reverse: bool, out) -> None:
    """CumInferMeta (logcumsumexp): [numel] with ``flatten``, else x's dims."""
    out.share_meta(x)
    if flatten:
        n = 1
        for d in x.dims:
            n = UNKNOWN if UNKNOWN in (n, d) else n * d
        out.set_dims((n,))
    else:
        _check_cum_axis("logcumsumexp", axis, len(x.dims))


def histogram_infer_meta(x, bins: int, min: int, max: int, out) -> None:
    """HistogramInferMeta: [bins] int64; bins >= 1 and max >= min."""
    if bins < 1:
        raise bad_argument("histogram", f"The bins should be greater than or equal to 1, but "
                                        f"received {bins}.")
    if max < min:
        raise bad_argument(
            "histogram", f"max must be larger or equal to min, but received max = {max},"
                         f" min = {min}.")
    out.set_dims((bins,))
    out.set_dtype(DataType.INT64)
    out.set_layout(x.layout)


# -- linear algebra ----------------------------------------------------------------------------

_REAL = {DataType.COMPLEX64: DataType.FLOAT32, DataType.COMPLEX128: DataType.FLOAT64}


def real_dtype(dtype: DataType) -> DataType:
    return _REAL.get(dtype, dtype)


def inverse_infer_meta(x, out) -> None:
    """InverseInferMeta: square matrices, same dims."""
    set_meta(out, inverse_dims(x.dims), x.dtype, x.layout)


def cholesky_infer_meta(x, upper: bool, out) -> None:
    """CholeskyInferMeta: square matrices, same dims."""
    set_meta(out, square_dims(x.dims, "cholesky"), x.dtype, x.layout)


def slogdet_infer_meta(x, out) -> None:
    """slogdet: [2, *batch]: the signs, then log|det|."""
    set_meta(out, (2, *square_dims(x.dims, "slogdeterminant", "Input")[:-2]), x.dtype, x.layout)


def matrix_power_infer_meta(x, n: int, out) -> None:
    """MatrixPowerInferMeta: square matrices, same dims."""
    set_meta(out, square_dims(x.dims, "matrix_power"), x.dtype, x.layout)


def qr_infer_meta(x, mode: str, q, r) -> None:
    """QrInferMeta."""
    qd, rd = qr_out_dims(x.dims, mode)
    set_meta(q, qd, x.dtype, x.layout)
    set_meta(r, rd, x.dtype, x.layout)


def svd_infer_meta(x, full_matrices: bool, u, s, vh) -> None:
    """SvdInferMeta: U [*, m, k|m], S [*, k], VH [*, k|n, n], k = min(m, n)."""
    dims = matrix_dims(x.dims, "svd")
    m, n = dims[-2:]
    k = UNKNOWN if UNKNOWN in (m, n) else min(m, n)
    b = dims[:-2]
    set_meta(u, (*b, m, m if full_matrices else k), x.dtype, x.layout)
    set_meta(s, (*b, k), real_dtype(x.dtype), x.layout)
    set_meta(vh, (*b, n if full_matrices else k, n), x.dtype, x.layout)


def _uplo(uplo: str, op: str) -> None:
    if uplo not in ("L", "U"):
        raise InvalidArgument(f"{op}: Attr(UPLO) must be 'L' or 'U', but received '{uplo}'.")


def eigh_infer_meta(x, uplo: str, out_w, out_v) -> None:
    """EighInferMeta: real eigenvalues [*, n], eigenvectors like x."""
    _uplo(uplo, "eigh")
    dims = square_dims(x.dims, "eigh")
    set_meta(out_w, dims[:-1], real_dtype(x.dtype), x.layout)
    set_meta(out_v, dims, x.dtype, x.layout)


def eigvalsh_infer_meta(x, uplo: str, is_test: bool, out_w, out_v) -> None:
    """EigvalshInferMeta: eigenvalues [*, n]; the eigenvectors (for the gradient) like x, or
    [0] when is_test."""
    _uplo(uplo, "eigvalsh")
    dims = square_dims(x.dims, "eigvalsh")
    set_meta(out_w, dims[:-1], real_dtype(x.dtype), x.layout)
    set_meta(out_v, (0,) if is_test else dims, x.dtype, x.layout)


def eig_infer_meta(x, out_w, out_v) -> None:
    """EigInferMeta: complex eigenvalues [*, n] and eigenvectors [*, n, n]."""
    dims = square_dims(x.dims, "eig")
    set_meta(out_w, dims[:-1], complex_dtype(x.dtype), x.layout)
    set_meta(out_v, dims, complex_dtype(x.dtype), x.layout)


def eigvals_infer_meta(x, out) -> None:
    """EigvalsInferMeta: complex eigenvalues [*, n]."""
    set_meta(out, square_dims(x.dims, "eigvals")[:-1], complex_dtype(x.dtype), x.layout)


def lu_infer_meta(x, pivot: bool, out, pivots, infos) -> None:
    """LUInferMeta: Out like x, Pivots [*, min(m, n)] int32, Infos [*] int32."""
    dims = matrix_dims(x.dims, "lu")
    m, n = dims[-2:]
    k = UNKNOWN if UNKNOWN in (m, n) else min(m, n)
    set_meta(out, dims, x.dtype, x.layout)
    set_meta(pivots, (*dims[:-2], k), DataType.INT32, x.layout)
    set_meta(infos, dims[:-2] or (1,), DataType.INT32, x.layout)


def matrix_rank_infer_meta(x, tol: float, use_default_tol: bool, hermitian: bool,
                           out) -> None:
    """MatrixRankInferMeta: int32 ranks of the batch [*]."""
    dims = square_dims(x.dims, "matrix_rank") if hermitian else matrix_dims(x.dims, "matrix_rank")
    set_meta(out, dims[:-2], DataType.INT32, x.layout)


def einsum_infer_meta(x: list, equation: str, out, inner_cache: list | None = None,
                      xshape: list | None = None) -> None:
    """EinsumInferMeta: the dims numpy's einsum gives on the known dims (-1 kept as 1 there and
    reported as -1)."""
    import numpy as np

    ops = []
    for m in x:
        ops.append(np.empty(tuple(1 if d == UNKNOWN else d for d in m.dims), np.int8))
    try:
        dims = np.einsum(equation, *ops).shape
    except ValueError as e:
        raise InvalidArgument(f"einsum: equation '{equation}' does not fit the operands "
                              f"{', '.join(fmt_dims(m.dims) for m in x)}: {e}") from None
    set_meta(out, dims, x[0].dtype, x[0].layout)
    for o, m in zip(xshape or (), x, strict=False):
        set_meta(o, m.dims, m.dtype, m.layout)
    for o, m in zip(inner_cache or (), x, strict=False):
        set_meta(o, m.dims, m.dtype, m.layout)


# -- reductions, statistics, losses ------------------------------------------------------------

# -- reductions and norms -------------------------------------------------------------------------

def norm_infer_meta(x, axis: int, epsilon: float, is_test: bool, out, norm) -> None:
    """NormInferMeta: Out as x; Norm as x with ``axis`` of size 1."""
    a = attr_axis(axis, len(x.dims), "norm")
    set_meta(out, x.dims, x.dtype, x.layout)  # Paddle's NormInferMeta passes no LoD
    dims = list(x.dims)
    if dims:
        dims[a] = 1
    set_meta(norm, dims, x.dtype, x.layout)


def squared_l2_norm_infer_meta(x, out) -> None:
    """SquaredL2NormInferMeta: [1]."""
    set_meta(out, (1,), x.dtype, x.layout)


def mean_all_infer_meta(x, out) -> None:
    """MeanAllInferMeta: 0-D of x's dtype."""
    set_meta(out, (), x.dtype, x.layout)


def nanmedian_infer_meta(x, axis, keepdim: bool, out, median_index) -> None:
    """NanmedianInferMeta: Out per :func:`median_out_dims`; MedianIndex int64 [numel * 2]."""
    set_meta(out, median_out_dims(x.dims, axis, keepdim), x.dtype, x.layout)
    numel = UNKNOWN
    if UNKNOWN not in x.dims:
        numel = 1
        for d in x.dims:
            numel *= d
        numel *= 2
    set_meta(median_index, (numel,), DataType.INT64)


def _axis_reduced(x, axis: int, keepdim: bool, op: str) -> tuple[int, ...]:
    if not x.dims:
        return ()
    a = attr_axis(axis, len(x.dims), op)
    return tuple(1 if i == a else d for i, d in enumerate(x.dims) if keepdim or i != a)


def mode_infer_meta(x, axis: int, keepdim: bool, out, indices) -> None:
    """ModeInferMeta: ``axis`` reduced; Indices int64."""
    dims = _axis_reduced(x, axis, keepdim, "mode")
    set_meta(out, dims, x.dtype, x.layout)
    set_meta(indices, dims, DataType.INT64)


def kthvalue_infer_meta(x, k: int, axis: int, keepdim: bool, out, indices) -> None:
    """KthvalueInferMeta: ``axis`` reduced; Indices int64."""
    check_kth(x.dims, k, axis)
    dims = _axis_reduced(x, axis, keepdim, "kthvalue")
    set_meta(out, dims, x.dtype, x.layout)
    set_meta(indices, dims, DataType.INT64)


# -- losses ----------------------------------------------------------------------------------------

def identity_loss_infer_meta(x, reduction: int, out) -> None:
    """IdentityLossInferMeta: 0 (sum) and 1 (mean) give 0-D, 2 (none) x's dims."""
    if reduction not in (0, 1, 2):
        raise InvalidArgument("identity_loss: attribute reduction should be 0 (sum), 1 (mean) or "
                              f"2 (none), but received {reduction}.")
    set_meta(out, x.dims if reduction == 2 else (), x.dtype, x.layout)


# -- FFT and framing ---------------------------------------------------------------------------

def fft_c2c_infer_meta(x, axes, normalization: str, forward: bool, out) -> None:
    """FFTC2CInferMeta: same dims and dtype."""
    fft_axes(axes, len(x.dims), normalization, "fft_c2c")
    out.set_dims(tuple(x.dims))
    out.set_dtype(x.dtype)
    out.set_layout(x.layout)


def fft_r2c_infer_meta(x, axes, normalization: str, forward: bool, onesided: bool,
                       out) -> None:
    """FFTR2CInferMeta: complex out; onesided halves the last axis (n // 2 + 1)."""
    ax = fft_axes(axes, len(x.dims), normalization, "fft_r2c")
    dims = list(x.dims)
    if onesided and dims[ax[-1]] != UNKNOWN:
        dims[ax[-1]] = dims[ax[-1]] // 2 + 1
    out.set_dims(tuple(dims))
    out.set_dtype(complex_dtype(x.dtype))
    out.set_layout(x.layout)


def fft_c2r_infer_meta(x, axes, normalization: str, forward: bool, last_dim_size: int,
                       out) -> None:
    """FFTC2RInferMeta: real out; the last axis has last_dim_size (0: 2 * (n - 1))."""
    ax = fft_axes(axes, len(x.dims), normalization, "fft_c2r")
    dims = list(x.dims)
    last = dims[ax[-1]]
    if last_dim_size > 0:
        dims[ax[-1]] = last_dim_size
    elif last != UNKNOWN:
        dims[ax[-1]] = 2 * (last - 1)
    if dims[ax[-1]] not in (UNKNOWN,) and dims[ax[-1]] <= 0:
        raise InvalidArgument(f"fft_c2r: the output size of the last axis ({dims[ax[-1]]}) "
                              "must be positive.")
    out.set_dims(tuple(dims))
    out.set_dtype(real_dtype(x.dtype))
    out.set_layout(x.layout)


def frame_infer_meta(x, frame_length: int, hop_length: int, axis: int, out) -> None:
    """FrameInferMeta."""
    out.set_dims(frame_out_dims(x.dims, frame_length, hop_length, axis))
    out.set_dtype(x.dtype)
    out.set_layout(x.layout)


def overlap_add_infer_meta(x, hop_length: int, axis: int, out) -> None:
    """OverlapAddInferMeta."""
    out.set_dims(overlap_add_out_dims(x.dims, hop_length, axis))
    out.set_dtype(x.dtype)
    out.set_layout(x.layout)


# -- sliding windows ---------------------------------------------------------------------------

def max_pool_with_index_infer_meta(x, kernel_size, strides, paddings, global_pooling: bool,
                                   adaptive: bool, out, mask) -> None:
    """MaxPoolWithIndexInferMeta: out [N, C, *sizes] of x's dtype, mask the same dims in
    int32."""
    dims = tuple(x.dims)
    if len(dims) not in (4, 5):
        raise InvalidArgument(f"Pooling intput should be 4-D or 5-D tensor but received "
                              f"{len(dims)}D-Tensor")
    _, _, sizes = max_pool_with_index_geometry(dims[2:], kernel_size, strides, paddings,
                                               global_pooling, adaptive)
    out.set_dims((*dims[:2], *sizes))
    out.set_dtype(x.dtype)
    out.set_layout(x.layout)
    mask.set_dims((*dims[:2], *sizes))
    mask.set_dtype(DataType.INT32)
    mask.set_layout(x.layout)


def pool_infer_meta(x, kernel_size, strides, paddings, ceil_mode: bool, exclusive: bool,
                    data_format: str, pooling_type: str, global_pooling: bool, adaptive: bool,
                    padding_algorithm: str, out, *, config: MetaConfig | None = None) -> None:
    """PoolInferMeta (pool3d): Pool2DInferMeta's rules with a plain int list for ksize."""
    pool2d_infer_meta(x, kernel_size, strides, paddings, ceil_mode, exclusive, data_format,
                      pooling_type, global_pooling, adaptive, padding_algorithm, out,
                      config=config)


def unfold_infer_meta(x, kernel_sizes, strides, paddings, dilations, out) -> None:
    """UnfoldInferMeta: [N, C * kh * kw, blocks_h * blocks_w] of x's dtype."""
    dims = tuple(x.dims)
    if len(dims) != 4:
        raise InvalidArgument(f"Input should be 4-D tensor of format [N, C, H, W], but get "
                              f"{len(dims)}")
    _, blocks = unfold_geometry(dims[2:], kernel_sizes, strides, paddings, dilations)
    k = int(kernel_sizes[0]) * int(kernel_sizes[1])
    length = UNKNOWN if UNKNOWN in blocks else blocks[0] * blocks[1]
    out.set_dims((dims[0], UNKNOWN if dims[1] == UNKNOWN else dims[1] * k, length))
    out.set_dtype(x.dtype)
    out.set_layout(x.layout)


def fold_infer_meta(x, output_sizes, kernel_sizes, strides, paddings, dilations, out) -> None:
    """FoldInferMeta: [N, C / (kh * kw), *output_sizes] of x's dtype."""
    dims = tuple(x.dims)
    if len(dims) != 3:
        raise InvalidArgument(f"Input should be 3-D tensor of format [N, C, L], but get "
                              f"{len(dims)}")
    fold_geometry(dims, output_sizes, kernel_sizes, strides, paddings, dilations)
    k = int(kernel_sizes[0]) * int(kernel_sizes[1])
    out.set_dims((dims[0], UNKNOWN if dims[1] == UNKNOWN else dims[1] // k,
                  *int_list(output_sizes)))
    out.set_dtype(x.dtype)
    out.set_layout(x.layout)


def max_out_infer_meta(x, groups: int, axis: int, out) -> None:
    """MaxOutInferMeta: x's dims with the channel axis divided by ``groups``."""
    dims = list(x.dims)
    axis = maxout_axis(dims, groups, axis)
    if dims[axis] != UNKNOWN:
        dims[axis] //= groups
    out.set_dims(tuple(dims))
    out.set_dtype(x.dtype)
    out.set_layout(x.layout)


# -- vision ------------------------------------------------------------------------------------

def pixel_shuffle_infer_meta(x, upscale_factor: int, data_format: str, out) -> None:
    """PixelShuffleInferMeta: 4-D x whose channels divide by r*r; [N, C/r^2, H*r, W*r]."""
    dims = tuple(x.dims)
    if len(dims) != 4:
        raise InvalidArgument(f"Input should be a 4-D tensor of format [N, C, H, W] or "
                              f"[N, H, W, C], but got {len(dims)}.")
    if data_format not in ("NCHW", "NHWC"):
        raise InvalidArgument(f"data_format must be one of NCHW and NHWC. But recevied "
                              f"data_format: {data_format}")
    r = upscale_factor
    channel_last = data_format == "NHWC"
    n, c, h, w = (dims[0], dims[3], dims[1], dims[2]) if channel_last else dims
    if c != UNKNOWN and c % (r * r):
        raise InvalidArgument(f"The square of upscale_factor[{r}] should divide the number "
                              f"of channel[{c}]")

    def grow(d: int) -> int:
        return UNKNOWN if d == UNKNOWN else d * r

    c = UNKNOWN if c == UNKNOWN else c // (r * r)
    out.set_dims((n, grow(h), grow(w), c) if channel_last else (n, c, grow(h), grow(w)))
    out.set_dtype(x.dtype)
    out.set_layout(x.layout)


def pad3d_infer_meta(x, paddings, mode: str, pad_value: float, data_format: str, out, *,
                     config: MetaConfig | None = None) -> None:
    """Pad3dInferMeta: 5-D x grown by the paddings (unknown D, H, W when a tensor gives them
    at compile time)."""
    dims = tuple(x.dims)
    if len(dims) != 5:
        raise InvalidArgument(f"The size of Input(X)'s dimension should be equal to 5, but "
                              f"received {len(dims)} ({fmt_dims(dims)}).")
    if is_compile_time_tensor_attr(paddings, config):
        axes = (1, 2, 3) if data_format == "NDHWC" else (2, 3, 4)
        out_dims = tuple(UNKNOWN if i in axes else d for i, d in enumerate(dims))
    else:
        pairs = pad3d_pairs(dims, int_array_data(paddings), mode, data_format)
        out_dims = tuple(d if d == UNKNOWN else d + a + b for d, (a, b) in zip(dims, pairs,
                                                                              strict=True))
    out.set_dims(out_dims)
    out.set_dtype(x.dtype)
    out.set_layout(x.layout)


def affine_grid_infer_meta(input, output_shape, align_corners: bool, output,
                           config=None) -> None:
    """AffineGridInferMeta (an OutputShape tensor at compile time: the spatial dims are -1)."""
    if is_compile_time_tensor_attr(output_shape, config):
        n = len(tuple(input.dims)) and input.dims[1]
        rank = 4 if n == 2 else 5
        dims = (input.dims[0], *([UNKNOWN] * (rank - 2)), rank - 2)
    else:
        dims = affine_grid_out_dims(input.dims, int_array_data(output_shape))
    meta_like(input, output, dims)


def add_position_encoding_infer_meta(x, alpha: float, beta: float, out) -> None:
    """AddPositionEncodingInferMeta: same dims; X is [B, T, D] (or LoD [T, D]), D even."""
    dims = tuple(x.dims)
    if len(dims) not in (2, 3) or (dims[-1] != UNKNOWN and dims[-1] % 2):
        raise InvalidArgument(f"add_position_encoding: Input(X) must be [batch, seq, dim] (or "
                              f"a LoD [seq, dim]) with an even dim, got {fmt_dims(dims)}.")
    meta_like(x, out, dims)


# -- random ------------------------------------------------------------------------------------

def multinomial_infer_meta(x, num_samples, replacement: bool, out, *,
                           config: MetaConfig | None = None) -> None:
    """MultinomialInferMeta: x 1-D or 2-D; [num_samples] per row, int64 (-1 at compile time
    when a tensor gives num_samples)."""
    dims = tuple(x.dims)
    if len(dims) not in (1, 2):
        raise InvalidArgument(f"The number of dimensions of the input probability distribution "
                              f"should be > 0 and <= 2, but got {len(dims)}.")
    if is_compile_time_tensor_attr(num_samples, config):
        set_meta(out, (*dims[:-1], UNKNOWN), DataType.INT64)
        return
    n = int(getattr(num_samples, "value", num_samples))
    if n <= 0:
        raise InvalidArgument(f"The number of samples should be > 0, but got {n}.")
    set_meta(out, (*dims[:-1], n), DataType.INT64)


def class_center_sample_infer_meta(label, num_classes: int, num_samples: int, ring_id: int,
                                   rank: int, nranks: int, fix_seed: bool, seed: int,
                                   remapped_label, sampled_local_class_center) -> None:
    """ClassCenterSampleInferMeta: label 1-D; the sampled count is decided by the kernel."""
    if len(label.dims) != 1:
        raise InvalidArgument(f"Rank of Input(Label) should be equal to 1, but the value given "
                              f"is {len(label.dims)}.")
    set_meta(remapped_label, label.dims, label.dtype)
    set_meta(sampled_local_class_center, (-1,), label.dtype)


# -- optimizers --------------------------------------------------------------------------------

clip_by_norm_infer_meta = outputs_like(2, {0: 0}, "clip_by_norm_infer_meta")


# -- numerics checks, float status, schedules, random activations ------------------------------

def check_numerics_infer_meta(tensor, op_type: str, var_name: str, check_nan_inf_level: int,
                              stack_height_limit: int, output_dir: str, stats, values) -> None:
    """CheckNumericsInferMeta: stats int64 [3] (NaN, Inf, zero counts), values float32 [3]
    (max, min, mean)."""
    stats.set_dims((3,))
    stats.set_dtype(DataType.INT64)
    values.set_dims((3,))
    values.set_dtype(DataType.FLOAT32)


def rrelu_infer_meta(x, lower: float, upper: float, is_test: bool, out, noise) -> None:
    """RReluInferMeta: 0 <= lower <= upper <= 1; out and noise take x's meta."""
    for name, value in (("lower", lower), ("upper", upper)):
        if not 0.0 <= value <= 1.0:
            raise InvalidArgument(f"rrelu: the {name} value should be in [0, 1], but received "
                                  f"{name} = {value}.")
    if upper < lower:
        raise InvalidArgument(f"rrelu: the upper value should be greater than or equal to the "
                              f"lower value, but received lower = {lower}, upper = {upper}.")
    out.share_meta(x)
    noise.share_meta(x)


def dirichlet_infer_meta(alpha, out) -> None:
    """DirichletInferMeta: alpha (rank >= 1) gives out of its dims and dtype."""
    if len(tuple(alpha.dims)) < 1:
        raise InvalidArgument("dirichlet: the rank of Input(Alpha) must be at least 1, but "
                              "received a 0-D tensor.")
    out.share_meta(alpha)


def gumbel_softmax_infer_meta(x, temperature: float, hard: bool, axis: int, out) -> None:
    """GumbelSoftmaxInferMeta: UnchangedInferMetaCheckAxis (axis in [-rank, rank))."""
    unchanged_infer_meta_check_axis(x, axis, out)


# -- sequences ---------------------------------------------------------------------------------

def sequence_pool_infer_meta(x, is_test: bool, pooltype: str, pad_value: float, out,
                             max_index=None) -> None:
    """One row per sequence (known at run time): [-1, X's other dims]; MaxIndex int32."""
    dims = (-1, *tuple(x.dims)[1:])
    set_meta(out, dims, x.dtype)
    if max_index is not None:
        set_meta(max_index, dims, DataType.INT32)


# -- detection ---------------------------------------------------------------------------------

def nms_infer_meta(boxes, threshold, out) -> None:
    """[-1] int64 indices."""
    if len(boxes.dims) != 2 or boxes.dims[1] not in (4, -1):
        raise InvalidArgument(f"nms: Boxes must be [N, 4], got dims {list(boxes.dims)}.")
    set_meta(out, (-1,), DataType.INT64)


# -- fused and quantization ops ----------------------------------------------------------------

def weight_quantize_infer_meta(x, algo: str, arch: int, out, scale) -> None:
    """WeightQuantizeInferMeta: x [k, n] with k % 64 == 0 and n % 16 == 0 -> out int8 [n, k]
    ([n / 2, k] for weight_only_int4), scale [n] in x's dtype."""
    if arch not in (70, 75, 80, 86):
        raise InvalidArgument("weight_quantize: currently, arch only support 70, 75, 80, 86, "
                              f"got {arch}.")
    if len(x.dims) != 2:
        raise InvalidArgument(f"weight_quantize: the x tensor of quant op must be 2D, but got "
                              f"dims {fmt_dims(x.dims)}.")
    k, n = x.dims
    if k != -1 and k % 64:
        raise InvalidArgument(f"weight_quantize: the first dimension of input must be "
                              f"divisible by 64, but got[{k}]")
    if n != -1 and n % 16:
        raise InvalidArgument(f"weight_quantize: the second dimension of input must be "
                              f"divisible by 16, but got[{n}]")
    rows = (n // 2 if n != -1 else -1) if algo == "weight_only_int4" else n
    set_meta(out, (rows, k), DataType.INT8, x.layout)
    set_meta(scale, (n,), x.dtype, x.layout)
