"""InferMeta functions of two tensor inputs (Paddle's paddle/phi/infermeta/binary.cc)."""

from __future__ import annotations

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.infermeta._utils import (
    UNKNOWN,
    check_index_dtype,
    fmt_dims,
    is_compile_time_tensor_attr,
    scalar_value,
)

__all__ = ["broadcast_dims", "elementwise_infer_meta", "matmul_infer_meta", "matmul_out_dims"]


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


__all__ += ["elementwise_raw_dims", "elementwise_raw_infer_meta",
            "matmul_with_flatten_infer_meta"]


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


__all__ += ["compare_infer_meta", "compare_raw_infer_meta", "logical_binary_infer_meta"]


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


__all__ += ["embedding_infer_meta", "gather_infer_meta", "gather_nd_infer_meta",
            "index_select_infer_meta"]
