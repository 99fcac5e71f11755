"""InferMeta of helper `binary2`'s ops (Paddle's paddle/phi/infermeta/{unary,binary,ternary,
multiary}.cc): atan2, dot, mv, bmm, addmm, kron, cross, lerp, allclose / isclose, equal_all,
cum ops, trace, multiplex, dist, searchsorted, bincount, histogram.  Dims of -1 are unknown at
compile time."""

from __future__ import annotations

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.infermeta._utils import UNKNOWN, fmt_dims

__all__ = ["atan2_infer_meta"]


def _same(a: int, b: int) -> bool:
    return a == b or UNKNOWN in (a, b)


def atan2_infer_meta(x, y, out) -> None:
    """Atan2InferMeta: x and y of the same rank and dims; integers give float64."""
    if len(x.dims) != len(y.dims):
        raise InvalidArgument(
            f"atan2: the rank ({len(x.dims)}) of X1 shall be same as rank ({len(y.dims)}) of X2.")
    for i, (a, b) in enumerate(zip(x.dims, y.dims, strict=True)):
        if not _same(a, b):
            raise InvalidArgument(
                f"atan2: X1 {fmt_dims(x.dims)} and X2 {fmt_dims(y.dims)} must have the same "
                f"dims, but dim {i} is {a} and {b}.")
    out.share_meta(x)
    if x.dtype in (DataType.INT32, DataType.INT64):
        out.set_dtype(DataType.FLOAT64)


def _bad(op: str, what: str) -> InvalidArgument:
    return InvalidArgument(f"{op}: {what}")


def dot_infer_meta(x, y, out) -> None:
    """DotInferMeta: 1-D or 2-D x and y of equal dims; out drops the last dim."""
    if len(x.dims) not in (1, 2):
        raise _bad("dot", f"Input(X) must be 1-D or 2-D, but received dims {fmt_dims(x.dims)}.")
    if len(x.dims) != len(y.dims) or not all(_same(a, b) for a, b in zip(x.dims, y.dims,
                                                                           strict=False)):
        raise _bad("dot", f"Input(X) {fmt_dims(x.dims)} and Input(Y) {fmt_dims(y.dims)} must "
                          "have the same dims.")
    out.set_dims(tuple(x.dims[:-1]))
    out.set_dtype(x.dtype)
    out.set_layout(x.layout)


def mv_infer_meta(x, vec, out) -> None:
    """MvInferMeta: x [m, n], vec [n] -> [m]."""
    if len(x.dims) != 2 or len(vec.dims) != 1:
        raise _bad("mv", f"Input(X) must be 2-D and Input(Vec) 1-D, but received "
                         f"{fmt_dims(x.dims)} and {fmt_dims(vec.dims)}.")
    if not _same(x.dims[1], vec.dims[0]):
        raise _bad("mv", f"X's second dim {x.dims[1]} must equal Vec's size {vec.dims[0]}.")
    out.set_dims((x.dims[0],))
    out.set_dtype(x.dtype)
    out.set_layout(x.layout)


def bmm_infer_meta(x, y, out) -> None:
    """BmmInferMeta: [b, m, k] x [b, k, n] -> [b, m, n]."""
    if len(x.dims) != 3 or len(y.dims) != 3:
        raise _bad("bmm", f"Input(X) and Input(Y) must be 3-D, but received "
                          f"{fmt_dims(x.dims)} and {fmt_dims(y.dims)}.")
    if not _same(x.dims[0], y.dims[0]):
        raise _bad("bmm", f"the batch sizes of X {fmt_dims(x.dims)} and Y {fmt_dims(y.dims)} "
                          "must be equal.")
    if not _same(x.dims[2], y.dims[1]):
        raise _bad("bmm", f"X's width {x.dims[2]} must equal Y's height {y.dims[1]}.")
    out.set_dims((x.dims[0], x.dims[1], y.dims[2]))
    out.set_dtype(x.dtype)
    out.set_layout(x.layout)
    out.share_lod(x)


def addmm_infer_meta(input, x, y, beta, alpha, out) -> None:
    """AddmmInferMeta: x [m, k] @ y [k, n] -> [m, n]; input 1-D or 2-D, broadcast to it."""
    if len(x.dims) != 2 or len(y.dims) != 2:
        raise _bad("addmm", f"Input(X) and Input(Y) must be 2-D, but received "
                            f"{fmt_dims(x.dims)} and {fmt_dims(y.dims)}.")
    if len(input.dims) not in (1, 2):
        raise _bad("addmm", f"Input(Input) must be 1-D or 2-D, but received "
                            f"{fmt_dims(input.dims)}.")
    if not _same(x.dims[1], y.dims[0]):
        raise _bad("addmm", f"X's width {x.dims[1]} must equal Y's height {y.dims[0]}.")
    out.set_dims((x.dims[0], y.dims[1]))
    out.set_dtype(input.dtype)
    out.set_layout(input.layout)


def kron_infer_meta(x, y, out) -> None:
    """KronInferMeta: ranks aligned at the end; each dim the product."""
    rank = max(len(x.dims), len(y.dims))
    xd = (1,) * (rank - len(x.dims)) + tuple(x.dims)
    yd = (1,) * (rank - len(y.dims)) + tuple(y.dims)
    out.set_dims(tuple(UNKNOWN if UNKNOWN in (a, b) else a * b for a, b in zip(xd, yd,
                                                                                strict=True)))
    out.set_dtype(x.dtype)
    out.set_layout(x.layout)


def cross_axis(dims, dim: int) -> int:
    """The axis cross works on: ``dim`` (9, kDefaultDim: the first axis of size 3)."""
    rank = len(dims)
    if dim == 9:
        for i, d in enumerate(dims):
            if d == 3:
                return i
        raise _bad("cross", f"no dim of Input(X) {fmt_dims(dims)} has size 3.")
    if not -rank <= dim < rank:
        raise _bad("cross", f"Attr(dim) {dim} is out of range [{-rank}, {rank}).")
    dim %= rank
    if dims[dim] not in (3, UNKNOWN):
        raise _bad("cross", f"dim {dim} of Input(X) {fmt_dims(dims)} must be 3.")
    return dim


def cross_infer_meta(x, y, axis: int, out) -> None:
    """CrossInferMeta: x and y of equal dims, the chosen axis of size 3."""
    if len(x.dims) != len(y.dims) or not all(_same(a, b) for a, b in zip(x.dims, y.dims,
                                                                           strict=False)):
        raise _bad("cross", f"Input(X) {fmt_dims(x.dims)} and Input(Y) {fmt_dims(y.dims)} "
                            "must have the same dims.")
    if axis != 9:
        cross_axis(x.dims, axis)
    out.share_meta(x)


def lerp_infer_meta(x, y, weight, out) -> None:
    """LerpInferMeta: the broadcast of x, y and weight."""
    from phi.infermeta.binary import broadcast_dims

    out.set_dims(broadcast_dims(broadcast_dims(x.dims, y.dims), weight.dims))
    out.set_dtype(x.dtype)
    out.set_layout(x.layout)


def trace_infer_meta(x, offset: int, axis1: int, axis2: int, out) -> None:
    """TraceInferMeta: x of rank >= 2 without axis1 and axis2 (distinct after wrapping)."""
    rank = len(x.dims)
    if rank < 2:
        raise _bad("trace", f"Input(Input) must be at least 2-D, but received "
                            f"{fmt_dims(x.dims)}.")
    for name, a in (("axis1", axis1), ("axis2", axis2)):
        if not -rank <= a < rank:
            raise _bad("trace", f"Attr({name}) {a} is out of range [{-rank}, {rank}).")
    a1, a2 = axis1 % rank, axis2 % rank
    if a1 == a2:
        raise _bad("trace", f"axis1 and axis2 cannot be the same axis, but received axis1 = "
                            f"{axis1}, axis2 = {axis2}.")
    out.set_dims(tuple(d for i, d in enumerate(x.dims) if i not in (a1, a2)))
    out.set_dtype(x.dtype)
    out.set_layout(x.layout)


def dist_infer_meta(x, y, p: float, out) -> None:
    """DistInferMeta: a 0-D result; x and y must broadcast."""
    from phi.infermeta.binary import broadcast_dims

    broadcast_dims(x.dims, y.dims)
    out.set_dims(())
    out.set_dtype(x.dtype)
    out.set_layout(x.layout)


def multiplex_infer_meta(ins, ids, out) -> None:
    """MultiplexInferMeta: candidates of equal dims; Ids [rows, 1]."""
    if not ins:
        raise _bad("multiplex", "Input(X) holds no tensor.")
    if len(ids.dims) != 2 or ids.dims[1] not in (1, UNKNOWN):
        raise _bad("multiplex", f"Input(Ids) must be [rows, 1], but received "
                                f"{fmt_dims(ids.dims)}.")
    first = ins[0].dims
    for t in ins[1:]:
        if tuple(t.dims) != tuple(first):
            raise _bad("multiplex", f"all candidate tensors must have the same dims, but "
                                    f"received {fmt_dims(first)} and {fmt_dims(t.dims)}.")
    if len(first) < 2:
        raise _bad("multiplex", f"the candidate tensors must be at least 2-D, but received "
                                f"{fmt_dims(first)}.")
    out.set_dims(tuple(first))
    out.set_dtype(ins[0].dtype)
    out.set_layout(ins[0].layout)


__all__ += ["addmm_infer_meta", "bmm_infer_meta", "cross_axis", "cross_infer_meta",
            "dist_infer_meta", "dot_infer_meta", "kron_infer_meta", "lerp_infer_meta",
            "multiplex_infer_meta", "mv_infer_meta", "trace_infer_meta"]


# -- comparisons, scans, counting ---------------------------------------------------------------

def _same_dims(op: str, x, y) -> None:
    if len(x.dims) != len(y.dims):
        raise _bad(op, f"Input(Input) and Input(Other) must have the same dimension size, but "
                       f"received {fmt_dims(x.dims)} and {fmt_dims(y.dims)}.")
    for a, b in zip(x.dims, y.dims, strict=True):
        if not _same(a, b):
            raise _bad(op, f"the dims of Input(Input) {fmt_dims(x.dims)} and Input(Other) "
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
        raise _bad("equal_all", f"The size of dim_y should not be greater than dim_x's, but "
                                f"received {fmt_dims(x.dims)} and {fmt_dims(y.dims)}.")
    out.set_dims(())
    out.set_dtype(DataType.BOOL)
    out.set_layout(x.layout)


def _check_cum_axis(op: str, axis: int, rank: int) -> None:
    lo, hi = (-1, 1) if rank == 0 else (-rank, rank)
    if not lo <= axis < hi:
        raise _bad(op, f"axis {axis} is out of range [{lo}, {hi}).")


def cumprod_infer_meta(x, dim: int, out) -> None:
    """UnchangedInferMetaCheckAxis (cumprod): x's meta; ``dim`` within the rank."""
    _check_cum_axis("cumprod", dim, len(x.dims))
    out.share_meta(x)


def cum_with_indices_infer_meta(x, axis: int, dtype, out, indices) -> None:
    """CumWithIndicesInferMeta (cummax / cummin): x's meta and indices of ``dtype`` (int32 /
    int64)."""
    if dtype not in (DataType.INT32, DataType.INT64):
        raise _bad("cummax", f"dtype of indices must be int32 or int64, but received {dtype}.")
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


def searchsorted_infer_meta(sorted_sequence, value, out_int32: bool, right: bool, out) -> None:
    """SearchsortedInferMeta: values' dims; a multi-dim sequence shares values' leading dims."""
    s, v = tuple(sorted_sequence.dims), tuple(value.dims)
    if len(s) != 1 and (len(s) != len(v) or not all(_same(a, b) for a, b in zip(s[:-1], v[:-1],
                                                                                strict=False))):
        raise _bad("searchsorted", f"the dims of SortedSequence {fmt_dims(s)} and Values "
                                   f"{fmt_dims(v)} must agree except the last one when "
                                   "SortedSequence is not 1-D.")
    out.set_dims(v)
    out.set_dtype(DataType.INT32 if out_int32 else DataType.INT64)
    out.set_layout(value.layout)


def bincount_infer_meta(x, weights, minlength, out) -> None:
    """BincountInferMeta: 1-D int x; [-1] of weights' dtype (int64 counts without weights)."""
    if len(x.dims) != 1:
        raise _bad("bincount", f"The 'shape' of Input(X) must be 1-D tensor, but received "
                               f"{fmt_dims(x.dims)}.")
    if weights is not None and tuple(weights.dims) != tuple(x.dims) and \
            UNKNOWN not in tuple(weights.dims) + tuple(x.dims):
        raise _bad("bincount", f"The 'shape' of Input(Weights) {fmt_dims(weights.dims)} must "
                               f"be equal to the 'shape' of Input(X) {fmt_dims(x.dims)}.")
    out.set_dims((UNKNOWN,))
    out.set_dtype(weights.dtype if weights is not None else DataType.INT64)
    out.set_layout(x.layout)


def histogram_infer_meta(x, bins: int, min: int, max: int, out) -> None:
    """HistogramInferMeta: [bins] int64; bins >= 1 and max >= min."""
    if bins < 1:
        raise _bad("histogram", f"The bins should be greater than or equal to 1, but "
                                f"received {bins}.")
    if max < min:
        raise _bad("histogram", f"max must be larger or equal to min, but received max = {max},"
                                f" min = {min}.")
    out.set_dims((bins,))
    out.set_dtype(DataType.INT64)
    out.set_layout(x.layout)


__all__ += ["all_value_compare_infer_meta", "bincount_infer_meta", "compare_all_infer_meta",
            "cum_infer_meta", "cum_with_indices_infer_meta", "cumprod_infer_meta",
            "histogram_infer_meta", "searchsorted_infer_meta", "value_compare_infer_meta"]
