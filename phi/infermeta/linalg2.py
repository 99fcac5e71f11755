"""InferMeta of the linear algebra family of helper `linalg2` (Paddle's
paddle/phi/infermeta/{unary,binary,multiary}.cc): inverse, cholesky, solve, triangular_solve,
cholesky_solve, slogdet, matrix_power, qr, svd, eigh, eigvalsh, eig, eigvals, lu, lu_unpack,
matrix_rank(_tol), lstsq, multi_dot, einsum.

The dims helpers are shared with the kernels (phi/kernels/linalg2.py); -1 dims are sizes unknown
at compile time.
"""

from __future__ import annotations

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.infermeta._utils import UNKNOWN, fmt_dims, set_meta

__all__ = [
    "batch_broadcast", "cholesky_infer_meta", "cholesky_solve_infer_meta", "eig_infer_meta",
    "eigh_infer_meta", "eigvals_infer_meta", "eigvalsh_infer_meta", "einsum_infer_meta",
    "inverse_dims", "inverse_infer_meta", "lstsq_infer_meta", "lu_infer_meta",
    "lu_unpack_infer_meta",
    "matrix_power_infer_meta", "matrix_rank_infer_meta", "matrix_rank_tol_infer_meta",
    "multi_dot_infer_meta", "multi_dot_out_dims", "qr_infer_meta", "qr_out_dims",
    "real_dtype", "complex_dtype", "slogdet_infer_meta", "solve_infer_meta",
    "solve_out_dims", "square_dims", "svd_infer_meta", "triangular_solve_infer_meta",
]

_REAL = {DataType.COMPLEX64: DataType.FLOAT32, DataType.COMPLEX128: DataType.FLOAT64}
_CPLX = {DataType.FLOAT32: DataType.COMPLEX64, DataType.FLOAT64: DataType.COMPLEX128}


def real_dtype(dtype: DataType) -> DataType:
    return _REAL.get(dtype, dtype)


def complex_dtype(dtype: DataType) -> DataType:
    return _CPLX.get(dtype, dtype)




def _matrix(dims, op: str, slot: str = "X") -> tuple[int, ...]:
    dims = tuple(dims)
    if len(dims) < 2:
        raise InvalidArgument(f"{op}: Input({slot}) must be a (batch of) matrix of rank >= 2, "
                              f"but its dims are {fmt_dims(dims)}.")
    return dims


def square_dims(dims, op: str, slot: str = "X") -> tuple[int, ...]:
    """Dims of a batch of square matrices, else InvalidArgument."""
    dims = _matrix(dims, op, slot)
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


def inverse_infer_meta(x, out) -> None:
    """InverseInferMeta: square matrices, same dims."""
    set_meta(out, inverse_dims(x.dims), x.dtype, x.layout)


def cholesky_infer_meta(x, upper: bool, out) -> None:
    """CholeskyInferMeta: square matrices, same dims."""
    set_meta(out, square_dims(x.dims, "cholesky"), x.dtype, x.layout)


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


def solve_infer_meta(x, y, out) -> None:
    """SolveInferMeta: batch dims broadcast; a vector Y gives a vector result."""
    set_meta(out, solve_out_dims(x.dims, y.dims)[0], x.dtype, x.layout)


def triangular_solve_infer_meta(x, y, upper: bool, transpose: bool, unitriangular: bool,
                                out) -> None:
    """TriangularSolveInferMeta: X [*, n, n], Y [*, n, k] -> broadcast batch + [n, k]."""
    xd = square_dims(x.dims, "triangular_solve")
    yd = _matrix(y.dims, "triangular_solve", "Y")
    if UNKNOWN not in (xd[-1], yd[-2]) and xd[-1] != yd[-2]:
        raise InvalidArgument(f"triangular_solve: the rows of Input(Y) ({yd[-2]}) must equal "
                              f"the order of Input(X) ({xd[-1]}).")
    set_meta(out, (*batch_broadcast(xd[:-2], yd[:-2], "triangular_solve"), *yd[-2:]), y.dtype,
         y.layout)


def cholesky_solve_infer_meta(x, y, upper: bool, out) -> None:
    """CholeskySolveInferMeta: X (right-hand sides) [*, n, k], Y (the factor) [*, n, n]."""
    yd = square_dims(y.dims, "cholesky_solve", "Y")
    xd = _matrix(x.dims, "cholesky_solve", "X")
    if UNKNOWN not in (xd[-2], yd[-1]) and xd[-2] != yd[-1]:
        raise InvalidArgument(f"cholesky_solve: the rows of Input(X) ({xd[-2]}) must equal "
                              f"the order of Input(Y) ({yd[-1]}).")
    set_meta(out, (*batch_broadcast(xd[:-2], yd[:-2], "cholesky_solve"), *xd[-2:]), x.dtype,
         x.layout)


def slogdet_infer_meta(x, out) -> None:
    """slogdet: [2, *batch]: the signs, then log|det|."""
    set_meta(out, (2, *square_dims(x.dims, "slogdeterminant", "Input")[:-2]), x.dtype, x.layout)


def matrix_power_infer_meta(x, n: int, out) -> None:
    """MatrixPowerInferMeta: square matrices, same dims."""
    set_meta(out, square_dims(x.dims, "matrix_power"), x.dtype, x.layout)


def qr_out_dims(dims, mode: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """QrInferMeta: (Q dims, R dims); mode "r" computes no Q (dims [0])."""
    if mode not in ("reduced", "complete", "r"):
        raise InvalidArgument(f"qr: Attr(mode) must be 'reduced', 'complete' or 'r', but "
                              f"received '{mode}'.")
    dims = _matrix(dims, "qr")
    m, n = dims[-2:]
    k = UNKNOWN if UNKNOWN in (m, n) else min(m, n)
    batch = dims[:-2]
    if mode == "complete":
        return (*batch, m, m), (*batch, m, n)
    q = (0,) if mode == "r" else (*batch, m, k)
    return q, (*batch, k, n)


def qr_infer_meta(x, mode: str, q, r) -> None:
    """QrInferMeta."""
    qd, rd = qr_out_dims(x.dims, mode)
    set_meta(q, qd, x.dtype, x.layout)
    set_meta(r, rd, x.dtype, x.layout)


def svd_infer_meta(x, full_matrices: bool, u, s, vh) -> None:
    """SvdInferMeta: U [*, m, k|m], S [*, k], VH [*, k|n, n], k = min(m, n)."""
    dims = _matrix(x.dims, "svd")
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
    dims = _matrix(x.dims, "lu")
    m, n = dims[-2:]
    k = UNKNOWN if UNKNOWN in (m, n) else min(m, n)
    set_meta(out, dims, x.dtype, x.layout)
    set_meta(pivots, (*dims[:-2], k), DataType.INT32, x.layout)
    set_meta(infos, dims[:-2] or (1,), DataType.INT32, x.layout)


def lu_unpack_infer_meta(x, pivots, unpack_ludata: bool, unpack_pivots: bool, pmat, l_out,
                         u) -> None:
    """LUUnpackInferMeta: Pmat [*, m, m], L [*, m, k], U [*, k, n]."""
    dims = _matrix(x.dims, "lu_unpack")
    m, n = dims[-2:]
    k = UNKNOWN if UNKNOWN in (m, n) else min(m, n)
    b = dims[:-2]
    set_meta(l_out, (*b, m, k) if unpack_ludata else (0,), x.dtype, x.layout)
    set_meta(u, (*b, k, n) if unpack_ludata else (0,), x.dtype, x.layout)
    set_meta(pmat, (*b, m, m) if unpack_pivots else (0,), x.dtype, x.layout)


def matrix_rank_infer_meta(x, tol: float, use_default_tol: bool, hermitian: bool,
                           out) -> None:
    """MatrixRankInferMeta: int32 ranks of the batch [*]."""
    dims = square_dims(x.dims, "matrix_rank") if hermitian else _matrix(x.dims, "matrix_rank")
    set_meta(out, dims[:-2], DataType.INT32, x.layout)


def matrix_rank_tol_infer_meta(x, atol_tensor, use_default_tol: bool, hermitian: bool,
                               out) -> None:
    """MatrixRankTolInferMeta: int32 ranks, the batch broadcast with TolTensor's dims."""
    dims = square_dims(x.dims, "matrix_rank") if hermitian else _matrix(x.dims, "matrix_rank")
    batch = batch_broadcast(dims[:-2], atol_tensor.dims, "matrix_rank")
    set_meta(out, batch, DataType.INT32, x.layout)


def lstsq_infer_meta(x, y, rcond, driver: str, solution, residuals, rank,
                     singular_values) -> None:
    """LstsqInferMeta: Solution [*, n, k], Residuals [*, k] (filled only when m > n), Rank
    [*] int32, SingularValues [*, min(m, n)]."""
    if driver not in ("gels", "gelsy", "gelsd", "gelss"):
        raise InvalidArgument(f"lstsq: Attr(driver) must be one of gels, gelsy, gelsd, gelss, "
                              f"but received '{driver}'.")
    xd, yd = _matrix(x.dims, "lstsq"), _matrix(y.dims, "lstsq", "Y")
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


def multi_dot_infer_meta(x: list, out) -> None:
    """MultiDotInferMeta."""
    set_meta(out, multi_dot_out_dims([m.dims for m in x]), x[0].dtype, x[0].layout)


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
