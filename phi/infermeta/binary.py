"""InferMeta functions of two tensor inputs (Paddle's paddle/phi/infermeta/binary.cc):
elementwise, matmul, compare, gather, convolution, the two-input linear algebra, losses and
detection ops ...  Dims of -1 are sizes unknown at compile time.
"""

from __future__ import annotations

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.infermeta.funcs import (
    COMPLEX_OF,
    MetaConfig,
    UNKNOWN,
    attr_axis,
    bad_argument,
    batch_broadcast,
    broadcast_dims,
    check_conv_groups,
    check_index_dtype,
    check_nms_inputs,
    check_positive,
    check_same_dims,
    checked_axis,
    complex_dtype,
    conv_out_size,
    conv_transpose_geometry,
    cross_axis,
    dims_match,
    dims_product,
    expand_out_dims,
    fmt_dims,
    frame_out_dims,
    int_array_data,
    is_channel_last,
    is_compile_time_tensor_attr,
    matrix_dims,
    meta_like,
    resolve_conv_padding,
    scalar_value,
    set_meta,
    solve_out_dims,
    spatial_dims,
    square_dims,
    transpose_channel_last,
)

__all__ = [
    "all_value_compare_infer_meta", "atan2_infer_meta", "bce_loss_infer_meta",
    "bincount_infer_meta", "bmm_infer_meta", "cembedding_infer_meta", "cholesky_solve_infer_meta",
    "compare_all_infer_meta", "compare_infer_meta", "compare_raw_infer_meta", "complex_infer_meta",
    "conv3d_infer_meta", "conv_infer_meta", "conv_transpose_infer_meta",
    "cross_entropy_with_softmax_infer_meta", "cross_infer_meta", "depthwise_conv_infer_meta",
    "dist_infer_meta", "distribute_fpn_proposals_infer_meta", "dot_infer_meta",
    "dropout_infer_meta", "dropout_nd_infer_meta", "elementwise_infer_meta",
    "elementwise_raw_dims", "elementwise_raw_infer_meta", "embedding_infer_meta",
    "expand_as_infer_meta", "fill_diagonal_tensor_infer_meta", "gather_infer_meta",
    "gather_nd_infer_meta", "gather_tree_meta", "grid_sample_infer_meta", "huber_loss_infer_meta",
    "index_add_infer_meta", "index_sample_infer_meta", "index_select_infer_meta",
    "kldiv_infer_meta", "kron_infer_meta", "log_loss_infer_meta", "logical_binary_infer_meta",
    "lstsq_infer_meta", "lu_unpack_infer_meta", "margin_cross_entropy_infer_meta",
    "masked_select_infer_meta", "matmul_infer_meta", "matmul_out_dims",
    "matmul_with_flatten_infer_meta", "matrix_nms_infer_meta", "matrix_rank_tol_infer_meta",
    "mv_infer_meta", "pow2_decay_with_linear_warmup_infer_meta", "prelu_infer_meta",
    "prior_box_infer_meta", "repeat_interleave_with_tensor_index_infer_meta",
    "searchsorted_infer_meta", "segment_pool_infer_meta", "sequence_mask_infer_meta",
    "shuffle_batch_infer_meta", "solve_infer_meta", "stft_infer_meta",
    "take_along_axis_infer_meta", "triangular_solve_infer_meta", "unpool_infer_meta",
    "value_compare_infer_meta", "yolo_box_infer_meta",
]


def elementwise_infer_meta(x, y, out) -> None:
    """ElementwiseInferMeta: broadcast dims (:func:`broadcast_dims`), x's dtype and layout."""
    out.set_dims(broadcast_dims(x.dims, y.dims))
    out.set_dtype(x.dtype)
    out.set_layout(x.layout)
    out.share_lod(x)


def _batch_dim(a: int, b: int, x_dims, y_dims) -> int:
    if a == b or b == 1:
        return a
    if a == 1:
        return b
    if a == UNKNOWN:
        return b if b > 1 else UNKNOWN
    if b == UNKNOWN:
        return a if a > 1 else UNKNOWN
    raise InvalidArgument(
        f"The batch dimensions of x (shape {fmt_dims(x_dims)}) and y (shape {fmt_dims(y_dims)}) "
        f"cannot be broadcast together: {a} vs {b}."
    )


def matmul_out_dims(x_dims, y_dims, transpose_x: bool, transpose_y: bool) -> tuple[int, ...]:
    """Dims of matmul(x, y): 1-D operands promoted and squeezed back, batch dims broadcast.

    Paddle's MatmulInferMeta takes the batch dims of the longer operand unbroadcast (for x
    [2, 1, 3, 4] and y [3, 4, 5] it says [2, 1, 3, 5] at compile time, see the corpus case
    matmul_v2_bcast_batch) and the kernel resizes its output to [2, 3, 3, 5]; the run-time shape
    is what must be inferred here, so the batch dims are broadcast.  The contracted sizes are
    checked here rather than in the kernel.
    """
    x_dims = tuple(x_dims)
    y_dims = tuple(y_dims)
    if len(x_dims) == 2 and len(y_dims) == 2 and not transpose_x and not transpose_y:
        # the common case (a dense layer), kept short: it is inferred on every eager call
        (m, kx), (ky, n) = x_dims, y_dims
        if kx == ky or kx < 0 or ky < 0:
            return (m, n)
    if len(x_dims) == 0:
        raise InvalidArgument(
            "The Input(x) dims size must be greater than 0, but reviced dims size is 0. "
        )
    if len(y_dims) == 0:
        raise InvalidArgument(
            "The Input(y) dims size must be greater than 0, but reviced dims size is 0. "
        )
    x_vec = len(x_dims) == 1
    y_vec = len(y_dims) == 1
    xd = (1, *x_dims) if x_vec else x_dims
    yd = (*y_dims, 1) if y_vec else y_dims
    # a 1-D operand is never transposed (its flag is ignored, as in Paddle)
    tx = transpose_x and not x_vec
    ty = transpose_y and not y_vec
    m, kx = (xd[-1], xd[-2]) if tx else (xd[-2], xd[-1])
    ky, n = (yd[-1], yd[-2]) if ty else (yd[-2], yd[-1])
    if kx >= 0 and ky >= 0 and kx != ky:
        raise InvalidArgument(
            f"The contracted dimension of x ({kx}; x.dims = {fmt_dims(x_dims)}, transpose_x = "
            f"{transpose_x}) must equal that of y ({ky}; y.dims = {fmt_dims(y_dims)}, "
            f"transpose_y = {transpose_y})."
        )
    xb, yb = xd[:-2], yd[:-2]
    rank = max(len(xb), len(yb))
    xb = (1,) * (rank - len(xb)) + xb
    yb = (1,) * (rank - len(yb)) + yb
    out = [_batch_dim(a, b, x_dims, y_dims) for a, b in zip(xb, yb, strict=False)]
    if not x_vec:
        out.append(m)
    if not y_vec:
        out.append(n)
    return tuple(out)


def matmul_infer_meta(x, y, transpose_x: bool, transpose_y: bool, out) -> None:
    """MatmulInferMeta: :func:`matmul_out_dims`; x's dtype (int8 gives int32), x's layout."""
    out.set_dims(matmul_out_dims(x.dims, y.dims, transpose_x, transpose_y))
    # Paddle: int8 matmul accumulates into int32 (no CPU int8 kernel is registered in 2.6.2)
    out.set_dtype(DataType.INT32 if x.dtype == DataType.INT8 else x.dtype)
    out.set_layout(x.layout)


def elementwise_raw_dims(x_dims, y_dims, axis: int) -> tuple[int, ...]:
    """Legacy elementwise broadcasting with ``axis``: the lower-rank operand is aligned to the
    other starting at ``axis`` (-1: trailing alignment), as Paddle's GetBroadcastDimsArrays."""
    x_dims, y_dims = tuple(x_dims), tuple(y_dims)
    if axis == -1 or len(x_dims) == len(y_dims):
        return broadcast_dims(x_dims, y_dims)
    big, small = (x_dims, y_dims) if len(x_dims) > len(y_dims) else (y_dims, x_dims)
    if not 0 <= axis <= len(big) - len(small):
        raise InvalidArgument(
            f"Axis should be in range [0, {len(big) - len(small)}] to align X {fmt_dims(x_dims)} "
            f"and Y {fmt_dims(y_dims)}, but received axis = {axis}."
        )
    aligned = (1,) * axis + small + (1,) * (len(big) - len(small) - axis)
    return broadcast_dims(big, aligned) if big is x_dims else broadcast_dims(aligned, big)


def elementwise_raw_infer_meta(x, y, axis: int, out) -> None:
    """ElementwiseRawInferMeta: :func:`elementwise_raw_dims`, x's dtype and layout."""
    out.set_dims(elementwise_raw_dims(x.dims, y.dims, axis))
    out.set_dtype(x.dtype)
    out.set_layout(x.layout)
    out.share_lod(x)


def _flat2(dims, num_col_dims: int, what: str) -> tuple[int, int]:
    if not 0 < num_col_dims <= len(dims):
        raise InvalidArgument(
            f"The input tensor {what}'s dimensions should be larger than {what}_num_col_dims, "
            f"but received {what}'s dims {fmt_dims(dims)} and {what}_num_col_dims "
            f"{num_col_dims}."
        )
    rows = cols = 1
    for d in dims[:num_col_dims]:
        rows = UNKNOWN if UNKNOWN in (rows, d) else rows * d
    for d in dims[num_col_dims:]:
        cols = UNKNOWN if UNKNOWN in (cols, d) else cols * d
    return rows, cols


def matmul_with_flatten_infer_meta(x, y, x_num_col_dims: int, y_num_col_dims: int, out) -> None:
    """MatmulWithFlattenInferMeta (legacy mul): x and y seen as 2-D matrices."""
    _, x_cols = _flat2(x.dims, x_num_col_dims, "x")
    y_rows, _ = _flat2(y.dims, y_num_col_dims, "y")
    if UNKNOWN not in (x_cols, y_rows) and x_cols != y_rows:
        raise InvalidArgument(
            f"The first matrix width should be same as second matrix height, but received "
            f"first matrix width {x_cols} (x {fmt_dims(x.dims)}, x_num_col_dims "
            f"{x_num_col_dims}) and second matrix height {y_rows} (y {fmt_dims(y.dims)}, "
            f"y_num_col_dims {y_num_col_dims})."
        )
    out.set_dims(tuple(x.dims[:x_num_col_dims]) + tuple(y.dims[y_num_col_dims:]))
    out.set_dtype(x.dtype)
    out.set_layout(x.layout)
    out.share_lod(x)


# -- compare and logical ops: bool outputs ------------------------------------------------------

def compare_raw_infer_meta(x, y, axis: int, out) -> None:
    """CompareRawInferMeta: trailing broadcast of x and y, bool.  Paddle 2.6.2 ignores ``axis``
    here (a local variable shadows it), so an ``axis`` that disagrees with trailing alignment
    fails with the broadcast error, as it does in Paddle."""
    out.set_dims(broadcast_dims(x.dims, y.dims))
    out.set_dtype(DataType.BOOL)
    out.set_layout(x.layout)
    out.share_lod(x)


def compare_infer_meta(x, y, out) -> None:
    """CompareInferMeta: CompareRawInferMeta with axis -1."""
    compare_raw_infer_meta(x, y, -1, out)


def logical_binary_infer_meta(x, y, out) -> None:
    """LogicalBinaryInferMeta: ElementwiseInferMeta's dims, bool."""
    elementwise_infer_meta(x, y, out)
    out.set_dtype(DataType.BOOL)


# -- indexing -----------------------------------------------------------------------------------

def gather_infer_meta(x, index, axis, out, *, config=None) -> None:
    """GatherInferMeta: index is 0-D, 1-D or [N, 1]; x's dims with the axis size replaced by N
    (a 0-D index removes the axis).  At compile time with a tensor axis Paddle assumes axis 0."""
    i_dims, x_dims = tuple(index.dims), list(x.dims)
    check_index_dtype("gather", "Index", index)
    if not x_dims:
        raise InvalidArgument("gather: Input(X) must be at least 1-D, but received a 0-D "
                              "tensor.")
    if len(i_dims) == 2:
        if i_dims[1] not in (1, UNKNOWN):
            raise InvalidArgument("The last dim of index should be 1 when it is 2D, but we get "
                                  f"{i_dims[1]}")
    elif len(i_dims) > 1:
        raise InvalidArgument("The index should be 0D or 1D, when it is not 2D, but we get "
                              f"{len(i_dims)}")
    rank = len(x_dims)
    from_tensor = is_compile_time_tensor_attr(axis, config)
    ax = 0 if from_tensor else int(scalar_value(axis))
    if not -rank <= ax < max(rank, 1):
        raise InvalidArgument(f"The axis of gather must be in range [{-rank}, {rank}), but "
                              f"received {ax}.")
    ax = ax + rank if ax < 0 else ax
    if not i_dims:
        del x_dims[ax]
    else:
        x_dims[ax] = i_dims[0]
    out.set_dims(tuple(x_dims))
    out.set_dtype(x.dtype)
    out.set_layout(x.layout)
    out.share_lod(x)


def gather_nd_infer_meta(x, index, out) -> None:
    """GatherNdInferMeta: index.dims[:-1] + x.dims[index.dims[-1]:]."""
    x_dims, i_dims = tuple(x.dims), tuple(index.dims)
    check_index_dtype("gather_nd", "Index", index)
    depth = i_dims[-1] if i_dims else 0
    if depth != UNKNOWN and depth > len(x_dims):
        raise InvalidArgument(
            "Input(Index).shape[-1] should be no greater than Input(X).rank, but received "
            f"Input(Index).shape[-1] = {depth}, Input(X).rank = {len(x_dims)}")
    tail = x_dims[depth:] if depth != UNKNOWN else ()
    out.set_dims(i_dims[:-1] + tail)
    out.set_dtype(x.dtype)
    out.set_layout(x.layout)
    out.share_lod(x)


def index_select_infer_meta(x, index, dim: int, out) -> None:
    """IndexSelectInferMeta: x's dims with ``dim``'s size replaced by index's numel."""
    x_dims, i_dims = list(x.dims), tuple(index.dims)
    check_index_dtype("index_select", "Index", index)
    rank = len(x_dims)
    if not -rank <= dim < rank:
        raise InvalidArgument(
            f"the dim of index_select should be in range [{-rank}, {rank}), but received "
            f"{dim}.")
    if len(i_dims) > 1 and not (len(i_dims) == 2 and i_dims[1] == 1):
        raise InvalidArgument("The 'shape' of Input(Index) must be 1-D tensor. But received: "
                              f"the 'shape' of Input(Index) is {fmt_dims(i_dims)}, the "
                              f"dimension of Input(Index) is [{len(i_dims)}].")
    n = 1
    for d in i_dims:
        n = UNKNOWN if UNKNOWN in (n, d) else n * d
    x_dims[dim + rank if dim < 0 else dim] = n
    out.set_dims(tuple(x_dims))
    out.set_dtype(x.dtype)
    out.set_layout(x.layout)
    out.share_lod(x)


def embedding_infer_meta(x, weight, padding_idx: int, out) -> None:
    """EmbeddingInferMeta: ids' dims + [weight width]; weight's dtype."""
    w_dims = tuple(weight.dims)
    check_index_dtype("embedding", "Ids", x)
    if len(w_dims) != 2:
        raise InvalidArgument("The Weight of embedding must be a 2-D tensor, but received "
                              f"shape {fmt_dims(w_dims)}.")
    out.set_dims((*tuple(x.dims), w_dims[1]))
    out.set_dtype(weight.dtype)
    out.set_layout(weight.layout)
    out.share_lod(x)  # the ids' sequences


# -- convolution, pooling, normalization -------------------------------------------------------

# -- conv ----------------------------------------------------------------------------------------

def conv_infer_meta(input, filter, strides, paddings, padding_algorithm: str, dilations,
                    groups: int, data_format: str, out, *,
                    config: MetaConfig | None = None) -> None:
    """ConvInferMeta: [N, filter[0], out sizes...] (channel last: [N, sizes..., filter[0]])."""
    runtime = config is None or config.is_runtime
    in_dims = list(input.dims)
    f_dims = list(filter.dims)
    strides = [int(s) for s in strides]
    check_positive(dilations, "dilation", "Conv")
    if len(in_dims) not in (4, 5):
        raise InvalidArgument(
            "The input of Op(Conv) should be a 4-D or 5-D Tensor. But received: input's "
            f"dimension is {len(in_dims)}, input's shape is {fmt_dims(in_dims)}."
        )
    if len(in_dims) != len(f_dims):
        raise InvalidArgument(
            "The input's dimension and filter's dimension of Op(Conv) should be equal. But "
            f"received: the input's shape is {fmt_dims(in_dims)}, the input's dimension is "
            f"{len(in_dims)}; the filter's shape is {fmt_dims(f_dims)}, the filter's dimension "
            f"is {len(f_dims)}."
        )
    check_positive(strides, "stride", "Conv")
    if len(in_dims) != len(strides) + 2:
        raise InvalidArgument(
            "The difference of input's dimension and Attr(strides)'s length must be euqal to 2 "
            f"for Op(Conv). But received: input's dimension is {len(in_dims)}, input's shape is "
            f"{fmt_dims(in_dims)}; Attr(stride)'s length is {len(strides)}, Attr(stride) is "
            f"{fmt_dims(strides)}."
        )
    if len(dilations) != len(strides):
        raise InvalidArgument(
            f"Op(Conv): Attr(dilations) {fmt_dims(dilations)} must have one value per spatial "
            f"dimension ({len(strides)})."
        )
    channel_last = is_channel_last(data_format)
    check_conv_groups(in_dims, f_dims, groups, data_format)
    if runtime and f_dims[0] <= 0:
        raise InvalidArgument("the size of filter at axis 0 should be greater than 0")
    data_dims = spatial_dims(in_dims, channel_last)
    ksize = f_dims[2:]
    pads, dils = resolve_conv_padding(paddings, dilations, padding_algorithm, data_dims,
                                      strides, ksize)
    sizes = []
    for i, size in enumerate(data_dims):
        if not runtime and (size <= 0 or ksize[i] <= 0):
            sizes.append(UNKNOWN)
        else:
            sizes.append(conv_out_size(size, ksize[i], dils[i], pads[2 * i], pads[2 * i + 1],
                                       strides[i]))
    dims = [in_dims[0], *sizes, f_dims[0]] if channel_last else [in_dims[0], f_dims[0], *sizes]
    out.set_dims(dims)
    out.set_dtype(input.dtype)
    out.set_layout(input.layout)


def depthwise_conv_infer_meta(input, filter, strides, paddings, padding_algorithm: str,
                              groups: int, dilations, data_format: str, out, *,
                              config: MetaConfig | None = None) -> None:
    """DepthwiseConvInferMeta: ConvInferMeta with depthwise_conv2d's order (groups first)."""
    conv_infer_meta(input, filter, strides, paddings, padding_algorithm, dilations, groups,
                    data_format, out, config=config)


# -- dropout, log_softmax ------------------------------------------------------------------------

def dropout_infer_meta(x, seed_tensor, p, is_test: bool, mode: str, seed: int,
                       fix_seed: bool, out, mask=None) -> None:
    """DropoutInferMeta: out like x; mask x's dims in uint8; a seed tensor must be [1]."""
    if seed_tensor is not None and tuple(seed_tensor.dims) != (1,):
        raise InvalidArgument(
            "The dimension of seed tensor must be [1], but received "
            f"{fmt_dims(seed_tensor.dims)}."
        )
    out.set_dims(x.dims)
    out.set_dtype(x.dtype)
    out.set_layout(x.layout)
    out.share_lod(x)
    if mask is not None:
        mask.set_dims(x.dims)
        mask.set_dtype(DataType.UINT8)
        mask.set_layout(x.layout)


def prelu_infer_meta(x, alpha, data_format: str, mode: str, out) -> None:
    """PReluInferMeta: Alpha's size fits ``mode`` ('all': one value, 'channel': C values,
    'element': one per element of a sample); the output is x's meta."""
    x_dims, a_dims = tuple(x.dims), tuple(alpha.dims)
    a_size = dims_product(a_dims)
    if mode == "all":
        if a_size not in (1, UNKNOWN):
            raise InvalidArgument("For mode 'all', size of weight Alpha must be one. But "
                                  f"recevied alpha's size: {a_size}.")
    elif mode == "channel":
        if len(x_dims) < 2:
            raise InvalidArgument("For mode 'channel', rank of input X must be equal or larger "
                                  f"than 2. But recevied X's rank: {len(x_dims)}")
        if data_format not in ("NCHW", "NHWC"):
            raise InvalidArgument("For mode 'channel', data_format must be one of NCHW and "
                                  f"NHWC. But recevied data_format: {data_format}")
        channels = x_dims[1] if data_format == "NCHW" else x_dims[-1]
        if UNKNOWN not in (a_size, channels) and a_size != channels:
            raise InvalidArgument(
                "For mode 'channel', size of weight Alpha must be equal to the number of "
                f"channels of input(x). But recevied alpha's size: {a_size}, x_dim[1]: "
                f"{channels}")
    elif mode == "element":
        if len(x_dims) < 1 or len(a_dims) != len(x_dims):
            raise InvalidArgument(
                "For mode 'element', rank of weight Alpha must be equal to the rank of "
                f"input(x). But recevied alpha's rank: {len(a_dims)}, x's rank: {len(x_dims)}.")
        xs, as_ = dims_product(x_dims[1:]), dims_product(a_dims[1:])
        if UNKNOWN not in (xs, as_) and xs != as_:
            raise InvalidArgument(
                "For mode 'element', the size of weight Alpha must be equal to the size of "
                f"input(x). But recevied alpha's size: {as_}, x's size: {xs}.")
    else:
        raise InvalidArgument("Attr(mode) of prelu must be one of 'all', 'channel', or "
                              f"'element'. But recevied mode: '{mode}'.")
    out.share_meta(x)


def conv_transpose_infer_meta(x, filter, strides, paddings, output_padding, output_size,
                              padding_algorithm: str, groups: int, dilations,
                              data_format: str, out, *, config: MetaConfig | None = None) -> None:
    """ConvTransposeInferMeta (4-D and 5-D): [N, C_out, *out] (channels last for NHWC /
    NDHWC), C_out = filter.dims[1] * groups; the input channels must equal filter.dims[0]."""
    dims, f_dims = tuple(x.dims), tuple(filter.dims)
    if len(dims) not in (4, 5) or len(f_dims) != len(dims):
        raise InvalidArgument(f"Input and Filter of Op(conv_transpose) must be 4-D or 5-D of "
                              f"the same rank, but received {fmt_dims(dims)} and "
                              f"{fmt_dims(f_dims)}.")
    nd = len(dims) - 2
    if len(strides) != nd or len(dilations) != nd:
        raise InvalidArgument(f"Op(conv_transpose): Attr(strides) {fmt_dims(strides)} and "
                              f"Attr(dilations) {fmt_dims(dilations)} must hold {nd} values.")
    check_positive(strides, "stride", "conv_transpose")
    check_positive(dilations, "dilation", "conv_transpose")
    channel_last = transpose_channel_last(data_format)
    nchw = (dims[0], dims[-1], *dims[1:-1]) if channel_last else dims
    if UNKNOWN not in (nchw[1], f_dims[0]) and nchw[1] != f_dims[0]:
        raise InvalidArgument(
            f"The number of input channels should be equal to filter channels for "
            f"Op(conv_transpose). But received: the input's channels is [{nchw[1]}], the "
            f"shape of input is {fmt_dims(dims)}, the filter's channels is [{f_dims[0]}], "
            f"the shape of filter is {fmt_dims(f_dims)}.")
    if groups < 1 or (nchw[1] != UNKNOWN and nchw[1] % groups):
        raise InvalidArgument(f"The groups of Op(conv_transpose) must be positive and divide "
                              f"the input channels {nchw[1]}, got {groups}.")
    from_tensor = is_compile_time_tensor_attr(output_size, config)
    sizes = () if from_tensor else int_array_data(output_size)
    _, _, spatial = conv_transpose_geometry(nchw, f_dims, strides, paddings, output_padding,
                                            sizes, padding_algorithm, dilations)
    if from_tensor and int_array_data(output_size):
        # Paddle takes the sizes as given (-1s: unknown) and checks their range at run time
        spatial = (UNKNOWN,) * len(spatial)
    c_out = f_dims[1] * groups if f_dims[1] != UNKNOWN else UNKNOWN
    out.set_dims((nchw[0], *spatial, c_out) if channel_last else (nchw[0], c_out, *spatial))
    out.set_dtype(x.dtype)
    out.set_layout(x.layout)


# -- broadcast ---------------------------------------------------------------------------------

def expand_as_infer_meta(x, y, target_shape, out) -> None:
    """ExpandAsInferMeta: ``target_shape`` (Y's dims when Y is given), checked as expand."""
    target = tuple(y.dims) if y is not None else tuple(target_shape)
    out.set_dims(expand_out_dims(x.dims, target, "expand_as_v2"))
    out.set_dtype(x.dtype)
    out.set_layout(x.layout)


# -- manipulation and creation -----------------------------------------------------------------

# -- diag / diag_embed / diagonal / eye / fill_diagonal_tensor ---------------------------------

def fill_diagonal_tensor_infer_meta(x, y, offset: int, dim1: int, dim2: int, out) -> None:
    """FillDiagonalTensorInferMeta: x's meta (y is checked by the kernel)."""
    out.share_meta(x)


# -- indexing ----------------------------------------------------------------------------------

def index_add_infer_meta(x, index, add_value, axis: int, out) -> None:
    """IndexAddInferMeta: x's meta; a 1-D int index and an axis inside x's rank."""
    check_index_dtype("index_add", "Index", index)
    checked_axis(axis, len(x.dims), "index_add")
    if len(index.dims) != 1:
        raise InvalidArgument(f"index_add: Input(Index) must be 1-D, but received "
                              f"{fmt_dims(index.dims)}.")
    out.share_meta(x)


def index_sample_infer_meta(x, index, out) -> None:
    """IndexSampleInferMeta: 2-D x and index with the same batch; index's dims, x's dtype."""
    check_index_dtype("index_sample", "Index", index)
    xd, idd = tuple(x.dims), tuple(index.dims)
    if len(xd) != 2 or len(idd) != 2:
        raise InvalidArgument(f"index_sample: Inputs(X) and (Index) must be 2-D, but received "
                              f"X {fmt_dims(xd)} and Index {fmt_dims(idd)}.")
    if UNKNOWN not in (xd[0], idd[0]) and xd[0] != idd[0]:
        raise InvalidArgument(f"index_sample: Inputs(X)'s value of dimension 0 must match "
                              f"Inputs(Index)'s, but received {xd[0]} and {idd[0]}.")
    set_meta(out, idd, x.dtype, x.layout)


def masked_select_infer_meta(x, mask, out) -> None:
    """MaskedSelectInferMeta: a 1-D tensor of unknown size, x's dtype."""
    if mask.dtype not in (None, DataType.UNDEFINED, DataType.BOOL):
        raise InvalidArgument(f"masked_select: Input(Mask) must be a bool tensor, but received "
                              f"{mask.dtype}.")
    set_meta(out, (UNKNOWN,), x.dtype, x.layout)


def take_along_axis_infer_meta(x, index, axis: int, out) -> None:
    """TakeAlongAxisInferMeta: index's dims, x's dtype; equal ranks."""
    check_index_dtype("take_along_axis", "Index", index)
    if len(index.dims) != len(x.dims):
        raise InvalidArgument(f"take_along_axis: the rank of Index ({len(index.dims)}) must "
                              f"equal the rank of Input ({len(x.dims)}).")
    checked_axis(axis, len(x.dims), "take_along_axis")
    set_meta(out, index.dims, x.dtype, x.layout)


def repeat_interleave_with_tensor_index_infer_meta(x, repeats, dim: int, out) -> None:
    """RepeatInterleaveWithTensorIndexInferMeta: x's dims with ``dim``'s size unknown."""
    check_index_dtype("repeat_interleave", "RepeatsTensor", repeats)
    dims = list(x.dims)
    ax = checked_axis(dim, len(dims), "repeat_interleave")
    if len(repeats.dims) != 1:
        raise InvalidArgument("repeat_interleave: Input(RepeatsTensor) must be 1-D, but "
                              f"received {fmt_dims(repeats.dims)}.")
    if dims:
        dims[ax] = UNKNOWN
    set_meta(out, dims, x.dtype, x.layout)


def gather_tree_meta(ids, parents, out) -> None:
    """GatherTreeMeta: ids' meta; ids and parents of equal dims."""
    if tuple(ids.dims) != tuple(parents.dims):
        raise InvalidArgument(f"The shape of Input(Parents) must be same with the shape of "
                              f"Input(Ids), but received {fmt_dims(parents.dims)} and "
                              f"{fmt_dims(ids.dims)}.")
    out.share_meta(ids)


def segment_pool_infer_meta(x, segment_ids, pooltype: str, out, summed_ids) -> None:
    """SegmentPoolInferMeta: [-1, x.dims[1:]...] and summed ids [-1, 1], x's dtype."""
    check_index_dtype("segment_pool", "SegmentIds", segment_ids)
    dims = tuple(x.dims)
    if not dims:
        raise InvalidArgument("segment_pool: Input(X) must be at least 1-D.")
    set_meta(out, (UNKNOWN, *dims[1:]), x.dtype, x.layout)
    set_meta(summed_ids, (UNKNOWN, 1), x.dtype, x.layout)


# -- complex numbers ---------------------------------------------------------------------------

def complex_infer_meta(x, y, out) -> None:
    """ComplexInferMeta: the broadcast dims of x and y, complex of x's type."""
    out.set_dims(broadcast_dims(x.dims, y.dims))
    out.set_dtype(COMPLEX_OF.get(x.dtype, x.dtype))
    out.set_layout(x.layout)


# -- linear algebra, comparisons, cumulative ops, histograms -----------------------------------

def atan2_infer_meta(x, y, out) -> None:
    """Atan2InferMeta: x and y of the same rank and dims; integers give float64."""
    if len(x.dims) != len(y.dims):
        raise InvalidArgument(
            f"atan2: the rank ({len(x.dims)}) of X1 shall be same as rank ({len(y.dims)}) of X2.")
    for i, (a, b) in enumerate(zip(x.dims, y.dims, strict=True)):
        if not dims_match(a, b):
            raise InvalidArgument(
                f"atan2: X1 {fmt_dims(x.dims)} and X2 {fmt_dims(y.dims)} must have the same "
                f"dims, but dim {i} is {a} and {b}.")
    out.share_meta(x)
    if x.dtype in (DataType.INT32, DataType.INT64):
        out.set_dtype(DataType.FLOAT64)


def dot_infer_meta(x, y, out) -> None:
    """DotInferMeta: 1-D or 2-D x and y of equal dims; out drops the last dim."""
    if len(x.dims) not in (1, 2):
        raise bad_argument(
            "dot", f"Input(X) must be 1-D or 2-D, but received dims {fmt_dims(x.dims)}.")
    if len(x.dims) != len(y.dims) or not all(dims_match(a, b) for a, b in zip(x.dims, y.dims,
                                                                                strict=False)):
        raise bad_argument(
            "dot", f"Input(X) {fmt_dims(x.dims)} and Input(Y) {fmt_dims(y.dims)} must "
                   "have the same dims.")
    out.set_dims(tuple(x.dims[:-1]))
    out.set_dtype(x.dtype)
    out.set_layout(x.layout)


def mv_infer_meta(x, vec, out) -> None:
    """MvInferMeta: x [m, n], vec [n] -> [m]."""
    if len(x.dims) != 2 or len(vec.dims) != 1:
        raise bad_argument("mv", f"Input(X) must be 2-D and Input(Vec) 1-D, but received "
                                 f"{fmt_dims(x.dims)} and {fmt_dims(vec.dims)}.")
    if not dims_match(x.dims[1], vec.dims[0]):
        raise bad_argument("mv", f"X's second dim {x.dims[1]} must equal Vec's size {vec.dims[0]}.")
    out.set_dims((x.dims[0],))
    out.set_dtype(x.dtype)
    out.set_layout(x.layout)


def bmm_infer_meta(x, y, out) -> None:
    """BmmInferMeta: [b, m, k] x [b, k, n] -> [b, m, n]."""
    if len(x.dims) != 3 or len(y.dims) != 3:
        raise bad_argument("bmm", f"Input(X) and Input(Y) must be 3-D, but received "
                                  f"{fmt_dims(x.dims)} and {fmt_dims(y.dims)}.")
    if not dims_match(x.dims[0], y.dims[0]):
        raise bad_argument(
            "bmm", f"the batch sizes of X {fmt_dims(x.dims)} and Y {fmt_dims(y.dims)} "
                   "must be equal.")
    if not dims_match(x.dims[2], y.dims[1]):
        raise bad_argument("bmm", f"X's width {x.dims[2]} must equal Y's height {y.dims[1]}.")
    out.set_dims((x.dims[0], x.dims[1], y.dims[2]))
    out.set_dtype(x.dtype)
    out.set_layout(x.layout)
    out.share_lod(x)


def kron_infer_meta(x, y, out) -> None:
    """KronInferMeta: ranks aligned at the end; each dim the product."""
    rank = max(len(x.dims), len(y.dims))
    xd = (1,) * (rank - len(x.dims)) + tuple(x.dims)
    yd = (1,) * (rank - len(y.dims)) + tuple(y.dims)
    out.set_dims(tuple(UNKNOWN if UNKNOWN in (a, b) else a * b for a, b in zip(xd, yd,
                                                                                strict=True)))
    out.set_dtype(x.dtype)
    out.set_layout(x.layout)


def cross_infer_meta(x, y, axis: int, out) -> None:
    """CrossInferMeta: x and y of equal dims, the chosen axis of size 3."""
    if len(x.dims) != len(y.dims) or not all(dims_match(a, b) for a, b in zip(x.dims, y.dims,
                                                                                strict=False)):
        raise bad_argument("cross", f"Input(X) {fmt_dims(x.dims)} and Input(Y) {fmt_dims(y.dims)} "
                                    "must have the same dims.")
    if axis != 9:
        cross_axis(x.dims, axis)
    out.share_meta(x)


def dist_infer_meta(x, y, p: float, out) -> None:
    """DistInferMeta: a 0-D result; x and y must broadcast."""
    broadcast_dims(x.dims, y.dims)
    out.set_dims(())
    out.set_dtype(x.dtype)
    out.set_layout(x.layout)


# -- comparisons, scans, counting ---------------------------------------------------------------

def _same_dims(op: str, x, y) -> None:
    if len(x.dims) != len(y.dims):
        raise bad_argument(
            op, f"Input(Input) and Input(Other) must have the same dimension size, but "
                f"received {fmt_dims(x.dims)} and {fmt_dims(y.dims)}.")
    for a, b in zip(x.dims, y.dims, strict=True):
        if not dims_match(a, b):
            raise bad_argument(op, f"the dims of Input(Input) {fmt_dims(x.dims)} and Input(Other) "
                                   f"{fmt_dims(y.dims)} must be equal.")


def value_compare_infer_meta(x, y, out) -> None:
    """ValueCompareInferMeta (isclose): equal dims; bool of x's dims."""
    _same_dims("isclose", x, y)
    out.set_dims(tuple(x.dims))
    out.set_dtype(DataType.BOOL)
    out.set_layout(x.layout)


def all_value_compare_infer_meta(x, y, out) -> None:
    """AllValueCompareInferMeta (allclose): equal dims; a 0-D bool."""
    _same_dims("allclose", x, y)
    out.set_dims(())
    out.set_dtype(DataType.BOOL)
    out.set_layout(x.layout)


def compare_all_infer_meta(x, y, out) -> None:
    """CompareAllInferMeta (equal_all): y's rank not above x's; a 0-D bool."""
    if len(x.dims) < len(y.dims):
        raise bad_argument(
            "equal_all", f"The size of dim_y should not be greater than dim_x's, but "
                         f"received {fmt_dims(x.dims)} and {fmt_dims(y.dims)}.")
    out.set_dims(())
    out.set_dtype(DataType.BOOL)
    out.set_layout(x.layout)


def searchsorted_infer_meta(sorted_sequence, value, out_int32: bool, right: bool, out) -> None:
    """SearchsortedInferMeta: values' dims; a multi-dim sequence shares values' leading dims."""
    s, v = tuple(sorted_sequence.dims), tuple(value.dims)
    if len(s) != 1 and (len(s) != len(v) or not all(dims_match(a, b) for a, b in zip(s[:-1], v[:-1],
                                                                                     strict=False))):
        raise bad_argument("searchsorted", f"the dims of SortedSequence {fmt_dims(s)} and Values "
                                           f"{fmt_dims(v)} must agree except the last one when "
                                           "SortedSequence is not 1-D.")
    out.set_dims(v)
    out.set_dtype(DataType.INT32 if out_int32 else DataType.INT64)
    out.set_layout(value.layout)


def bincount_infer_meta(x, weights, minlength, out) -> None:
    """BincountInferMeta: 1-D int x; [-1] of weights' dtype (int64 counts without weights)."""
    if len(x.dims) != 1:
        raise bad_argument("bincount", f"The 'shape' of Input(X) must be 1-D tensor, but received "
                                       f"{fmt_dims(x.dims)}.")
    if weights is not None and tuple(weights.dims) != tuple(x.dims) and \
            UNKNOWN not in tuple(weights.dims) + tuple(x.dims):
        raise bad_argument(
            "bincount", f"The 'shape' of Input(Weights) {fmt_dims(weights.dims)} must "
                        f"be equal to the 'shape' of Input(X) {fmt_dims(x.dims)}.")
    out.set_dims((UNKNOWN,))
    out.set_dtype(weights.dtype if weights is not None else DataType.INT64)
    out.set_layout(x.layout)


# -- linear algebra ----------------------------------------------------------------------------

def solve_infer_meta(x, y, out) -> None:
    """SolveInferMeta: batch dims broadcast; a vector Y gives a vector result."""
    set_meta(out, solve_out_dims(x.dims, y.dims)[0], x.dtype, x.layout)


def triangular_solve_infer_meta(x, y, upper: bool, transpose: bool, unitriangular: bool,
                                out) -> None:
    """TriangularSolveInferMeta: X [*, n, n], Y [*, n, k] -> broadcast batch + [n, k]."""
    xd = square_dims(x.dims, "triangular_solve")
    yd = matrix_dims(y.dims, "triangular_solve", "Y")
    if UNKNOWN not in (xd[-1], yd[-2]) and xd[-1] != yd[-2]:
        raise InvalidArgument(f"triangular_solve: the rows of Input(Y) ({yd[-2]}) must equal "
                              f"the order of Input(X) ({xd[-1]}).")
    set_meta(out, (*batch_broadcast(xd[:-2], yd[:-2], "triangular_solve"), *yd[-2:]), y.dtype,
         y.layout)


def cholesky_solve_infer_meta(x, y, upper: bool, out) -> None:
    """CholeskySolveInferMeta: X (right-hand sides) [*, n, k], Y (the factor) [*, n, n]."""
    yd = square_dims(y.dims, "cholesky_solve", "Y")
    xd = matrix_dims(x.dims, "cholesky_solve", "X")
    if UNKNOWN not in (xd[-2], yd[-1]) and xd[-2] != yd[-1]:
        raise InvalidArgument(f"cholesky_solve: the rows of Input(X) ({xd[-2]}) must equal "
                              f"the order of Input(Y) ({yd[-1]}).")
    set_meta(out, (*batch_broadcast(xd[:-2], yd[:-2], "cholesky_solve"), *xd[-2:]), x.dtype,
         x.layout)


def lu_unpack_infer_meta(x, pivots, unpack_ludata: bool, unpack_pivots: bool, pmat, l_out,
                         u) -> None:
    """LUUnpackInferMeta: Pmat [*, m, m], L [*, m, k], U [*, k, n]."""
    dims = matrix_dims(x.dims, "lu_unpack")
    m, n = dims[-2:]
    k = UNKNOWN if UNKNOWN in (m, n) else min(m, n)
    b = dims[:-2]
    set_meta(l_out, (*b, m, k) if unpack_ludata else (0,), x.dtype, x.layout)
    set_meta(u, (*b, k, n) if unpack_ludata else (0,), x.dtype, x.layout)
    set_meta(pmat, (*b, m, m) if unpack_pivots else (0,), x.dtype, x.layout)


def matrix_rank_tol_infer_meta(x, atol_tensor, use_default_tol: bool, hermitian: bool,
                               out) -> None:
    """MatrixRankTolInferMeta: int32 ranks, the batch broadcast with TolTensor's dims."""
    dims = square_dims(x.dims, "matrix_rank") if hermitian else matrix_dims(x.dims, "matrix_rank")
    batch = batch_broadcast(dims[:-2], atol_tensor.dims, "matrix_rank")
    set_meta(out, batch, DataType.INT32, x.layout)


def lstsq_infer_meta(x, y, rcond, driver: str, solution, residuals, rank,
                     singular_values) -> None:
    """LstsqInferMeta: Solution [*, n, k], Residuals [*, k] (filled only when m > n), Rank
    [*] int32, SingularValues [*, min(m, n)]."""
    if driver not in ("gels", "gelsy", "gelsd", "gelss"):
        raise InvalidArgument(f"lstsq: Attr(driver) must be one of gels, gelsy, gelsd, gelss, "
                              f"but received '{driver}'.")
    xd, yd = matrix_dims(x.dims, "lstsq"), matrix_dims(y.dims, "lstsq", "Y")
    if UNKNOWN not in (xd[-2], yd[-2]) and xd[-2] != yd[-2]:
        raise InvalidArgument(f"lstsq: the rows of Input(X) ({xd[-2]}) and Input(Y) "
                              f"({yd[-2]}) must be equal.")
    m, n, k = xd[-2], xd[-1], yd[-1]
    b = xd[:-2]
    set_meta(solution, (*b, n, k), x.dtype, x.layout)
    set_meta(residuals, (*b, k) if m > n and driver != "gelsy" else (0,), x.dtype, x.layout)
    set_meta(rank, b, DataType.INT32, x.layout)
    set_meta(singular_values, (*b, UNKNOWN if UNKNOWN in (m, n) else min(m, n)), x.dtype,
         x.layout)


# -- reductions, statistics, losses ------------------------------------------------------------

# -- losses ----------------------------------------------------------------------------------------

def bce_loss_infer_meta(input, label, out) -> None:
    """BCELossInferMeta: X and Label of one shape; Out as X."""
    check_same_dims("bce_loss", "X", "Label", input.dims, label.dims)
    out.share_meta(input)


def huber_loss_infer_meta(input, label, delta: float, out, residual) -> None:
    """HuberLossInferMeta: X and Y of one shape; Out and Residual as X."""
    check_same_dims("huber_loss", "X", "Y", input.dims, label.dims)
    out.share_meta(input)
    set_meta(residual, input.dims, input.dtype, input.layout)


def kldiv_infer_meta(x, label, reduction: str, out) -> None:
    """KLDivInferMeta: X and Target of one shape; Out as X for "none", else 0-D."""
    if reduction not in ("none", "batchmean", "mean", "sum"):
        raise InvalidArgument("kldiv_loss: attribute reduction can only be one of none, "
                              f"batchmean, mean, sum, but received {reduction!r}.")
    check_same_dims("kldiv_loss", "X", "Target", x.dims, label.dims)
    set_meta(out, x.dims if reduction == "none" else (), x.dtype, x.layout)


def log_loss_infer_meta(input, label, epsilon: float, out) -> None:
    """LogLossInferMeta: Predicted and Labels [N, 1]; Loss [N, 1]."""
    check_same_dims("log_loss", "Predicted", "Labels", input.dims, label.dims)
    if len(input.dims) != 2 or input.dims[1] not in (1, UNKNOWN):
        raise InvalidArgument("log_loss: Input(Predicted) must be of shape [N, 1], but received "
                              f"{fmt_dims(input.dims)}.")
    out.share_meta(input)


def cross_entropy_with_softmax_infer_meta(logits, label, soft_label: bool, use_softmax: bool,
                                          numeric_stable_mode: bool, ignore_index: int,
                                          axis: int, softmax, loss) -> None:
    """CrossEntropyWithSoftmaxInferMeta: Softmax as Logits; Loss as Logits with ``axis`` of
    size 1; Label as Logits (soft) or with ``axis`` of size 1 (hard)."""
    rank = len(logits.dims)
    a = attr_axis(axis, rank, "softmax_with_cross_entropy")
    if rank and a != rank - 1 and not numeric_stable_mode:
        raise InvalidArgument("softmax_with_cross_entropy: Attr(axis) can only be -1 when not in "
                              f"numeric_stable_mode, but received axis {axis} of rank {rank}.")
    if len(label.dims) != rank:
        raise InvalidArgument("softmax_with_cross_entropy: Input(Logits) and Input(Label) "
                              f"should have the same rank, but received {fmt_dims(logits.dims)} "
                              f"and {fmt_dims(label.dims)}.")
    want = list(logits.dims)
    if not soft_label and rank:
        want[a] = 1
    if rank and any(w != d and UNKNOWN not in (w, d)
                    for w, d in zip(want, label.dims, strict=True)):
        raise InvalidArgument(f"softmax_with_cross_entropy: Input(Label) should be "
                              f"{fmt_dims(want)} (soft_label={soft_label}), but received "
                              f"{fmt_dims(label.dims)}.")
    softmax.share_meta(logits)
    dims = list(logits.dims)
    if rank:
        dims[a] = 1
    set_meta(loss, dims, logits.dtype, logits.layout)
    loss.share_lod(logits)


def margin_cross_entropy_infer_meta(logits, label, return_softmax: bool, ring_id: int,
                                    rank: int, nranks: int, margin1: float, margin2: float,
                                    margin3: float, scale: float, softmax, loss) -> None:
    """MarginCrossEntropyInferMeta: Softmax as Logits; Loss [N, 1]."""
    softmax.share_meta(logits)
    set_meta(loss, (*logits.dims[:-1], 1), logits.dtype, logits.layout)


# -- FFT and framing ---------------------------------------------------------------------------

def stft_infer_meta(x, window, n_fft: int, hop_length: int, normalized: bool, onesided: bool,
                    out) -> None:
    """StftOp::InferShape: X [B, T], Window [n_fft] -> complex [B, n_fft(/2+1), n_frames]."""
    dims = tuple(x.dims)
    if len(dims) != 2:
        raise InvalidArgument(f"stft: Input(X) must be [batch, seq_length], got "
                              f"{fmt_dims(dims)}.")
    if tuple(window.dims) not in ((n_fft,), (UNKNOWN,)):
        raise InvalidArgument(f"stft: Input(Window) must be [{n_fft}] (n_fft), got "
                              f"{fmt_dims(window.dims)}.")
    fdims = frame_out_dims(dims, n_fft, hop_length, -1)
    out.set_dims((dims[0], n_fft // 2 + 1 if onesided else n_fft, fdims[-1]))
    out.set_dtype(complex_dtype(x.dtype))
    out.set_layout(x.layout)


# -- sliding windows ---------------------------------------------------------------------------

def conv3d_infer_meta(input, filter, strides, paddings, padding_algorithm: str, groups: int,
                      dilations, data_format: str, out, *,
                      config: MetaConfig | None = None) -> None:
    """Conv3dInferMeta: ConvInferMeta with conv3d's attribute order (groups first)."""
    conv_infer_meta(input, filter, strides, paddings, padding_algorithm, dilations, groups,
                    data_format, out, config=config)


def unpool_infer_meta(x, indices, ksize, strides, paddings, output_size, data_format: str,
                      out, *, config: MetaConfig | None = None) -> None:
    """UnpoolInferMeta / Unpool3dInferMeta: [N, C, *output_size] of x's dtype; x 4-D (5-D for
    unpool3d, by len(ksize)) and Indices of x's dims."""
    runtime = config is None or config.is_runtime
    dims, i_dims = tuple(x.dims), tuple(indices.dims)
    nd = len(ksize)
    op = "unpool" if nd == 2 else "unpool3d"
    if len(dims) != nd + 2:
        raise InvalidArgument(f"Op({op}): Input(X) must be {nd + 2}-dimensional, but received "
                              f"{fmt_dims(dims)}.")
    if UNKNOWN not in i_dims and i_dims != dims:
        raise InvalidArgument(f"Op({op}): the dimensions of Input(X) {fmt_dims(dims)} must "
                              f"equal the dimensions of Input(Indices) {fmt_dims(i_dims)}.")
    sizes = list(int_array_data(output_size))
    if is_compile_time_tensor_attr(output_size, config):
        sizes = [UNKNOWN] * nd
    if len(sizes) != nd:
        raise InvalidArgument(f"Op({op}): Attr(output_size) must hold {nd} values, but "
                              f"received {fmt_dims(sizes)}.")
    shape = [dims[0], dims[1]]
    for i in range(nd):
        shape.append(UNKNOWN if not runtime and dims[i + 2] <= 0 else sizes[i])
    out.set_dims(tuple(shape))
    out.set_dtype(x.dtype)
    out.set_layout(x.layout)


# -- vision ------------------------------------------------------------------------------------

def grid_sample_infer_meta(x, grid, mode: str, padding_mode: str, align_corners: bool,
                           out) -> None:
    """GridSampleBaseInferMeta: X [N, C, (D,) H, W], Grid [N, (D',) H', W', 2|3] ->
    [N, C, (D',) H', W']."""
    xd, gd = tuple(x.dims), tuple(grid.dims)
    if len(xd) not in (4, 5) or len(gd) != len(xd) or gd[-1] not in (len(xd) - 2, UNKNOWN):
        raise InvalidArgument(f"grid_sampler: Input(X) must be 4-D or 5-D and Input(Grid) of "
                              f"the same rank ending in {len(xd) - 2}, got {fmt_dims(xd)} and "
                              f"{fmt_dims(gd)}.")
    if mode not in ("bilinear", "nearest"):
        raise InvalidArgument(f"grid_sampler: Attr(mode) must be bilinear or nearest, got "
                              f"'{mode}'.")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise InvalidArgument(f"grid_sampler: Attr(padding_mode) must be zeros, border or "
                              f"reflection, got '{padding_mode}'.")
    meta_like(x, out, (xd[0], xd[1], *gd[1:-1]))


# -- random ------------------------------------------------------------------------------------

def dropout_nd_infer_meta(x, seed_tensor, p, is_test: bool, mode: str, seed: int,
                          fix_seed: bool, axis, out, mask=None) -> None:
    """DropoutNdInferMeta: out like x; mask uint8 with x's dims on ``axis``, 1 elsewhere."""
    out.share_meta(x)
    if mask is not None:
        ndim = len(x.dims)
        axes = {a + ndim if a < 0 else a for a in axis}
        set_meta(mask, tuple(d if i in axes else 1 for i, d in enumerate(x.dims)),
                 DataType.UINT8)


# -- numerics checks, float status, schedules, random activations ------------------------------

def _one_element(op: str, slot: str, dims) -> None:
    dims = tuple(dims)
    if UNKNOWN in dims:
        return
    n = 1
    for d in dims:
        n *= d
    if n != 1:
        raise InvalidArgument(f"{op}: the number of elements of Input({slot}) should be 1, but "
                              f"received the shape {fmt_dims(dims)}.")


def pow2_decay_with_linear_warmup_infer_meta(lr, step, warmup_steps: int, total_steps: int,
                                             base_lr: float, end_lr: float, lr_out,
                                             step_out) -> None:
    """Pow2DecayWithLinearWarmupInferMeta: LearningRate and Step hold one element, Step is
    int64; the outputs take their inputs' meta."""
    op = "pow2_decay_with_linear_warmup"
    _one_element(op, "LearningRate", lr.dims)
    _one_element(op, "Step", step.dims)
    if step.dtype is not DataType.INT64:
        raise InvalidArgument(f"{op}: the data type of Input(Step) must be int64, but received "
                              f"{step.dtype.name.lower()}.")
    lr_out.share_meta(lr)
    step_out.share_meta(step)


# -- collective communication ------------------------------------------------------------------

def cembedding_infer_meta(weight, x, start_index: int, out) -> None:
    """CEmbeddingInferMeta: ids' dims + [the table's width], the table's dtype."""
    if len(weight.dims) != 2:
        raise InvalidArgument(f"c_embedding: the table W must be 2-D, got dims "
                              f"{list(weight.dims)}.")
    out.set_dims((*x.dims, weight.dims[1]))
    out.set_dtype(weight.dtype)
    out.set_layout(weight.layout)


# -- sequences ---------------------------------------------------------------------------------

def sequence_mask_infer_meta(x, max_len_tensor, maxlen: int, out_dtype: int, y) -> None:
    """x's dims plus maxlen (-1 when a tensor or the data decides it), dtype out_dtype."""
    if (max_len_tensor is None and maxlen == 0) or maxlen < -1:
        raise InvalidArgument(f"sequence_mask: Attr(maxlen) must be -1 or positive, got "
                              f"{maxlen}.")
    last = maxlen if (max_len_tensor is None and maxlen > 0) else -1
    set_meta(y, (*x.dims, last), DataType.from_proto(int(out_dtype)))


def shuffle_batch_infer_meta(x, seed, startup_seed: int, out, shuffle_idx, seed_out) -> None:
    """ShuffleBatchInferMeta: Out like X, ShuffleIdx [-1] int64, SeedOut [1] int64."""
    out.share_meta(x)
    set_meta(shuffle_idx, (-1,), DataType.INT64)
    set_meta(seed_out, (1,), DataType.INT64)


# -- detection ---------------------------------------------------------------------------------

def matrix_nms_infer_meta(bboxes, scores, score_threshold, nms_top_k, keep_top_k,
                          post_threshold, use_gaussian, gaussian_sigma, background_label,
                          normalized, out, index, roisnum) -> None:
    """Out [-1, 6], Index [-1, 1] int32, RoisNum [-1] int32."""
    check_nms_inputs("matrix_nms", bboxes, scores)
    set_meta(out, (-1, 6), bboxes.dtype)
    set_meta(index, (-1, 1), DataType.INT32)
    set_meta(roisnum, (-1,), DataType.INT32)


def distribute_fpn_proposals_infer_meta(fpn_rois, rois_num, min_level, max_level, refer_level,
                                        refer_scale, pixel_offset, multi_fpn_rois: list,
                                        multi_level_rois_num: list, restore_index) -> None:
    """One [-1, 4] output per level, int32 counts per level, RestoreIndex [-1, 1] int32."""
    if len(fpn_rois.dims) != 2:
        raise InvalidArgument(f"distribute_fpn_proposals: FpnRois must be 2-D, got "
                              f"{list(fpn_rois.dims)}.")
    if max_level < min_level:
        raise InvalidArgument(f"distribute_fpn_proposals: max_level ({max_level}) must not be "
                              f"below min_level ({min_level}).")
    for m in multi_fpn_rois or ():
        set_meta(m, (-1, 4), fpn_rois.dtype)
    for m in multi_level_rois_num or ():
        set_meta(m, (-1,), DataType.INT32)
    set_meta(restore_index, (-1, 1), DataType.INT32)


def prior_box_infer_meta(input, image, min_sizes, max_sizes, aspect_ratios, variances, flip,
                         clip, step_w, step_h, offset, min_max_aspect_ratios_order, out,
                         var) -> None:
    """[H, W, num_priors, 4] for both outputs."""
    from phi.kernels.prior_box import expand_aspect_ratios

    if len(input.dims) != 4:
        raise InvalidArgument(f"prior_box: Input must be 4-D, got dims {list(input.dims)}.")
    if len(variances) != 4:
        raise InvalidArgument(f"prior_box: variances must hold 4 values, got {len(variances)}.")
    n = len(expand_aspect_ratios(aspect_ratios, flip)) * len(min_sizes) + len(max_sizes)
    dims = (input.dims[2], input.dims[3], n, 4)
    set_meta(out, dims, input.dtype)
    set_meta(var, dims, input.dtype)


def yolo_box_infer_meta(x, img_size, anchors, class_num, conf_thresh, downsample_ratio,
                        clip_bbox, scale_x_y, iou_aware, iou_aware_factor, boxes,
                        scores) -> None:
    """[N, anchors * H * W, 4] and [N, anchors * H * W, class_num]."""
    if len(x.dims) != 4:
        raise InvalidArgument(f"yolo_box: Input(X) must be 4-D, got dims {list(x.dims)}.")
    if class_num <= 0:
        raise InvalidArgument(f"yolo_box: class_num must be positive, got {class_num}.")
    n, _, h, w = x.dims
    a = len(anchors) // 2
    box_num = -1 if -1 in (h, w) else a * h * w
    set_meta(boxes, (n, box_num, 4), x.dtype)
    set_meta(scores, (n, box_num, class_num), x.dtype)
