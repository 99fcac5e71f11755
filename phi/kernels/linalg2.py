"""Linear algebra kernels of helper `linalg2` (Paddle's paddle/phi/kernels/{inverse,cholesky,
solve,triangular_solve,cholesky_solve,slogdeterminant,matrix_power,qr,svd,eigh,eigvalsh,eig,
eigvals,lu,lu_unpack,matrix_rank,matrix_rank_tol,lstsq,multi_dot,einsum}_kernel*), computed with
numpy.linalg (LAPACK, as Paddle's CPU kernels).

Batched inputs are [*, m, n]; batch dims of two operands broadcast.  Singular input where Paddle
raises (inverse, solve, cholesky, matrix_power with n < 0) raises InvalidArgument.  Dims
arithmetic is shared with InferMeta (phi/infermeta/funcs.py).
"""

from __future__ import annotations

import numpy as np

from phi.common.data_type import DataType
from phi.common.scalar import Scalar
from phi.core.errors import InvalidArgument, Unimplemented
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.infermeta.funcs import (
    batch_broadcast,
    inverse_dims,
    multi_dot_out_dims,
    qr_out_dims,
    solve_out_dims,
    square_dims,
)

__all__ = [
    "cholesky", "cholesky_solve", "eig", "eigh", "eigvals", "eigvalsh", "einsum", "inverse",
    "lstsq", "lu", "lu_unpack", "matrix_power", "matrix_rank", "matrix_rank_tol", "multi_dot",
    "qr", "slogdet", "solve", "svd", "triangular_solve",
]

# Paddle 2.6.2 CPU registrations (corpus cpu_ops.json)
REAL = ["float32", "float64"]
REAL_COMPLEX = ["float32", "float64", "complex64", "complex128"]

_CPLX = {np.dtype(np.float32): np.complex64, np.dtype(np.float64): np.complex128}


def _matmul_batch(ctx, a, b, op):
    """a, b broadcast to common batch dims (a: [*, n, n], b: [*, n, k])."""
    xp = ctx.xp
    batch = batch_broadcast(a.shape[:-2], b.shape[:-2], op)
    return (xp.broadcast_to(a, (*batch, *a.shape[-2:])),
            xp.broadcast_to(b, (*batch, *b.shape[-2:])))


def _solve(ctx, a, b, op, what="Input is not invertible"):
    xp = ctx.xp
    if a.size == 0 or b.size == 0:
        return xp.zeros(b.shape, b.dtype)
    try:
        return xp.linalg.solve(a, b).astype(b.dtype, copy=False)
    except np.linalg.LinAlgError:
        raise InvalidArgument(f"{op}: {what} (a pivot of its LU factorization is 0).") from None


def _tri_solve(ctx, a, b, upper: bool, unit: bool = False):
    """op(a) X = b by substitution (a triangular, zero pivots give inf / nan as BLAS trsm)."""
    xp = ctx.xp
    n = a.shape[-1]
    x = xp.zeros(b.shape, b.dtype)
    order = range(n - 1, -1, -1) if upper else range(n)
    with np.errstate(divide="ignore", invalid="ignore"):
        for i in order:
            rest = b[..., i, :] - xp.einsum("...j,...jk->...k", a[..., i, :], x)
            x[..., i, :] = rest if unit else rest / a[..., i, i][..., None]
    return x


@register_kernel("inverse", ("CPU", "GPU"), dtypes=REAL)
def inverse(ctx, x: Tensor) -> Tensor:
    """The inverse of every matrix; a singular one raises as Paddle's ComputeInverseEigen."""
    inverse_dims(x.shape)
    try:
        return ctx.xp.linalg.inv(x).astype(x.dtype, copy=False)
    except np.linalg.LinAlgError:
        raise InvalidArgument("inverse: Input is not invertible (a pivot of its LU "
                              "factorization is 0).") from None


@register_kernel("cholesky", ("CPU", "GPU"), dtypes=REAL)
def cholesky(ctx, x: Tensor, upper: bool) -> Tensor:
    """L with x = L L^T from x's lower triangle; ``upper``: U = L^T."""
    xp = ctx.xp
    square_dims(x.shape, "cholesky")
    if x.size == 0:
        return xp.zeros(x.shape, x.dtype)
    try:
        low = xp.linalg.cholesky(x)
    except np.linalg.LinAlgError:
        raise InvalidArgument("cholesky: the Cholesky decomposition was not successful: the "
                              "input is not positive-definite.") from None
    return xp.ascontiguousarray(xp.swapaxes(low, -1, -2) if upper else low).astype(x.dtype)


@register_kernel("solve", ("CPU", "GPU"), dtypes=REAL)
def solve(ctx, x: Tensor, y: Tensor) -> Tensor:
    """X^-1 Y; Y of rank(X) - 1 is a (batch of) vector; batch dims broadcast."""
    dims, vector = solve_out_dims(x.shape, y.shape)
    b = y[..., None] if vector else y
    a, b = _matmul_batch(ctx, x, b, "solve")
    out = _solve(ctx, a, b, "solve")
    return ctx.xp.ascontiguousarray(out.reshape(dims))


@register_kernel("triangular_solve", ("CPU", "GPU"), dtypes=REAL)
def triangular_solve(ctx, x: Tensor, y: Tensor, upper: bool, transpose: bool,
                     unitriangular: bool) -> Tensor:
    """op(A) X = Y with A the ``upper`` / lower triangle of x (unit diagonal when
    ``unitriangular``, transposed when ``transpose``)."""
    xp = ctx.xp
    a = xp.triu(x) if upper else xp.tril(x)
    if transpose:
        a, upper = xp.swapaxes(a, -1, -2), not upper
    a, b = _matmul_batch(ctx, a, y, "triangular_solve")
    return _tri_solve(ctx, a, b, upper, unitriangular)


@register_kernel("cholesky_solve", ("CPU", "GPU"), dtypes=REAL)
def cholesky_solve(ctx, x: Tensor, y: Tensor, upper: bool) -> Tensor:
    """A^-1 X with A = L L^T (y = L) or U^T U (``upper``, y = U); batch dims broadcast."""
    xp = ctx.xp
    square_dims(y.shape, "cholesky_solve", "Y")
    if x.ndim < 2 or x.shape[-2] != y.shape[-1]:
        raise InvalidArgument(f"cholesky_solve: the rows of Input(X) {list(x.shape)} must equal "
                              f"the order of Input(Y) {list(y.shape)}.")
    f, b = _matmul_batch(ctx, y, x, "cholesky_solve")
    low = xp.swapaxes(f, -1, -2) if upper else f
    z = _tri_solve(ctx, low, b, upper=False)
    return _tri_solve(ctx, xp.swapaxes(low, -1, -2), z, upper=True)


@register_kernel("slogdet", ("CPU", "GPU"), dtypes=REAL)
def slogdet(ctx, x: Tensor) -> Tensor:
    """[2, *batch]: sign(det) then log|det| (a singular matrix: 0 and -inf)."""
    xp = ctx.xp
    square_dims(x.shape, "slogdeterminant", "Input")
    sign, logdet = xp.linalg.slogdet(x)
    return xp.stack([xp.asarray(sign, x.dtype), xp.asarray(logdet, x.dtype)])


@register_kernel("matrix_power", ("CPU", "GPU"), dtypes=REAL)
def matrix_power(ctx, x: Tensor, n: int) -> Tensor:
    """x^n (n = 0: identity; n < 0: the inverse's power, singular input raises)."""
    xp = ctx.xp
    square_dims(x.shape, "matrix_power")
    if n < 0:
        x = inverse(ctx, x)
    if x.size == 0:
        return xp.zeros(x.shape, x.dtype)
    return xp.linalg.matrix_power(x, abs(n)).astype(x.dtype, copy=False)


@register_kernel("qr", ("CPU", "GPU"), dtypes=REAL)
def qr(ctx, x: Tensor, mode: str) -> tuple[Tensor, Tensor]:
    """Householder QR; mode reduced / complete / r (no Q: dims [0])."""
    xp = ctx.xp
    qd, rd = qr_out_dims(x.shape, mode)
    if x.size == 0:
        return xp.zeros(qd, x.dtype), xp.zeros(rd, x.dtype)
    if mode == "r":
        return xp.zeros(qd, x.dtype), xp.linalg.qr(x, mode="r").astype(x.dtype)
    q, r = xp.linalg.qr(x, mode=mode)
    return q.astype(x.dtype), r.astype(x.dtype)


@register_kernel("svd", ("CPU", "GPU"), dtypes=REAL)
def svd(ctx, x: Tensor, full_matrices: bool) -> tuple[Tensor, Tensor, Tensor]:
    """U, S (descending), VH with x = U diag(S) VH (LAPACK gesdd, as Paddle)."""
    u, s, vh = ctx.xp.linalg.svd(x, full_matrices=full_matrices)
    return u.astype(x.dtype), s.astype(x.dtype), vh.astype(x.dtype)


def _real(x):
    return np.empty(0, x.dtype).real.dtype


@register_kernel("eigh", ("CPU", "GPU"), dtypes=REAL_COMPLEX)
def eigh(ctx, x: Tensor, uplo: str) -> tuple[Tensor, Tensor]:
    """Ascending eigenvalues and orthonormal eigenvectors of the ``uplo`` triangle."""
    square_dims(x.shape, "eigh")
    w, v = ctx.xp.linalg.eigh(x, UPLO=uplo)
    return w.astype(_real(x)), v.astype(x.dtype)


@register_kernel("eigvalsh", ("CPU", "GPU"), dtypes=REAL_COMPLEX)
def eigvalsh(ctx, x: Tensor, uplo: str, is_test: bool) -> tuple[Tensor, Tensor]:
    """Ascending eigenvalues; the eigenvectors too unless ``is_test`` (dims [0] then)."""
    square_dims(x.shape, "eigvalsh")
    w, v = ctx.xp.linalg.eigh(x, UPLO=uplo)
    v = ctx.xp.zeros((0,), x.dtype) if is_test else v.astype(x.dtype)
    return w.astype(_real(x)), v


def _eig(ctx, x, op):
    square_dims(x.shape, op)
    cdt = _CPLX.get(x.dtype, x.dtype)
    if not np.isfinite(x).all():
        raise InvalidArgument(f"{op}: the input contains Inf or NaN.")
    w, v = ctx.xp.linalg.eig(x)
    return w.astype(cdt), v.astype(cdt)


@register_kernel("eig", ("CPU", "GPU"), dtypes=REAL_COMPLEX)
def eig(ctx, x: Tensor) -> tuple[Tensor, Tensor]:
    """Complex eigenvalues and unit eigenvectors (LAPACK geev order and phase)."""
    return _eig(ctx, x, "eig")


@register_kernel("eigvals", ("CPU", "GPU"), dtypes=REAL_COMPLEX)
def eigvals(ctx, x: Tensor) -> Tensor:
    """Complex eigenvalues (LAPACK geev order)."""
    return _eig(ctx, x, "eigvals")[0]


@register_kernel("lu", ("CPU", "GPU"), dtypes=REAL)
def lu(ctx, x: Tensor, pivot: bool) -> tuple[Tensor, Tensor, Tensor]:
    """LAPACK getrf: packed L\\U, 1-based int32 pivots [*, k], int32 infos (first zero pivot,
    1-based; 0 when none) of dims [*] ([1] for one matrix)."""
    xp = ctx.xp
    if not pivot:
        raise Unimplemented("lu: lu without pivoting is not implemented on the CPU.")
    if x.ndim < 2:
        raise InvalidArgument(f"lu: Input(X) must be of rank >= 2, got {list(x.shape)}.")
    m, n = x.shape[-2:]
    k = min(m, n)
    a = xp.array(x, copy=True).reshape(int(np.prod(x.shape[:-2])), m, n)
    nb = a.shape[0]
    piv = xp.zeros((nb, k), np.int32)
    info = xp.zeros(nb, np.int32)
    rows = xp.arange(nb)
    for j in range(k):
        p = j + xp.argmax(xp.abs(a[:, j:, j]), axis=1)
        piv[:, j] = p + 1
        top = a[rows, j].copy()
        a[rows, j] = a[rows, p]
        a[rows, p] = top
        d = a[:, j, j]
        zero = d == 0
        info = xp.where(zero & (info == 0), j + 1, info).astype(np.int32)
        scale = xp.where(zero, 1, d)
        a[:, j + 1:, j] /= scale[:, None]
        a[:, j + 1:, j + 1:] -= a[:, j + 1:, j, None] * a[:, j, None, j + 1:]
    batch = x.shape[:-2]
    return (a.reshape(x.shape), piv.reshape((*batch, k)),
            info.reshape(batch if batch else (1,)))


# the pivots are int32 whatever the kernel dtype (Paddle passes them untransformed)
@register_kernel("lu_unpack", ("CPU", "GPU"), dtypes=REAL,
                 input_defs={"y": {"dtype": DataType.ALL_DTYPE}})
def lu_unpack(ctx, x: Tensor, y: Tensor, unpack_ludata: bool, unpack_pivots: bool
              ) -> tuple[Tensor, Tensor, Tensor]:
    """P, L (unit lower [*, m, k]) and U ([*, k, n]) with A = P L U, from lu's packed x and
    1-based pivots y."""
    xp = ctx.xp
    m, n = x.shape[-2:]
    k = min(m, n)
    batch = x.shape[:-2]
    # an output not unpacked stays empty (Paddle leaves it unwritten)
    low = up = pmat = xp.zeros((0,), x.dtype)
    if unpack_ludata:
        low = xp.tril(x[..., :, :k], -1) + xp.eye(m, k, dtype=x.dtype)
        up = xp.ascontiguousarray(xp.triu(x[..., :k, :]))
    if unpack_pivots:
        piv = xp.asarray(y).reshape(-1, y.shape[-1]) if y.ndim else xp.asarray(y).reshape(1, 1)
        if piv.shape[-1] != k or (piv.size and (piv.min() < 1 or piv.max() > m)):
            raise InvalidArgument(f"lu_unpack: Input(Pivots) {list(y.shape)} must hold {k} "
                                  f"1-based row indices in [1, {m}] per matrix.")
        nb = piv.shape[0]
        perm = xp.tile(xp.arange(m), (nb, 1))
        rows = xp.arange(nb)
        for i in range(k):
            p = piv[:, i] - 1
            top = perm[rows, i].copy()
            perm[rows, i] = perm[rows, p]
            perm[rows, p] = top
        pm = xp.zeros((nb, m, m), x.dtype)
        pm[rows[:, None], perm, xp.arange(m)[None, :]] = 1
        pmat = pm.reshape((*batch, m, m))
    return pmat, low, up


def _singular_values(ctx, x, hermitian):
    xp = ctx.xp
    if hermitian:
        return xp.abs(xp.linalg.eigvalsh(x))
    return xp.linalg.svd(x, compute_uv=False)


def _rank(ctx, x, atol, use_default_tol, hermitian):
    """count(sigma > max(atol, rtol * sigma_max)), rtol = eps * max(m, n) by default, 0 else."""
    xp = ctx.xp
    if x.ndim < 2:
        raise InvalidArgument(f"matrix_rank: Input(X) must be of rank >= 2, got "
                              f"{list(x.shape)}.")
    m, n = x.shape[-2:]
    if min(m, n) == 0:
        return xp.zeros(xp.broadcast_shapes(x.shape[:-2], xp.shape(atol)), np.int32)
    s = _singular_values(ctx, x, hermitian).astype(x.dtype)
    rtol = np.finfo(x.dtype).eps * max(m, n) if use_default_tol else 0
    tol = xp.maximum(xp.asarray(atol, x.dtype), rtol * s.max(axis=-1))
    return xp.asarray((s > tol[..., None]).sum(axis=-1), np.int32)


@register_kernel("matrix_rank", ("CPU", "GPU"), dtypes=REAL)
def matrix_rank(ctx, x: Tensor, tol: float, use_default_tol: bool, hermitian: bool) -> Tensor:
    """The number of singular values above the tolerance (int32, dims [*])."""
    return _rank(ctx, x, 0.0 if use_default_tol else tol, use_default_tol, hermitian)


@register_kernel("matrix_rank_tol", ("CPU", "GPU"), dtypes=REAL)
def matrix_rank_tol(ctx, x: Tensor, atol_tensor: Tensor, use_default_tol: bool,
                    hermitian: bool) -> Tensor:
    """matrix_rank with a tensor of absolute tolerances broadcast with the batch."""
    return _rank(ctx, x, atol_tensor, use_default_tol, hermitian)


@register_kernel("lstsq", ("CPU", "GPU"), dtypes=REAL)
def lstsq(ctx, x: Tensor, y: Tensor, rcond: Scalar, driver: str
          ) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """Least squares min |X B - Y|; Residuals (squared, per column) when m > n and the driver
    is not gelsy; Rank for drivers other than gels; SingularValues for gelsd / gelss."""
    xp = ctx.xp
    if driver not in ("gels", "gelsy", "gelsd", "gelss"):
        raise InvalidArgument(f"lstsq: Attr(driver) must be one of gels, gelsy, gelsd, gelss, "
                              f"but received '{driver}'.")
    m, n = x.shape[-2:]
    k = y.shape[-1]
    batch = x.shape[:-2]
    rc = float(rcond.value if isinstance(rcond, Scalar) else rcond)
    nb = int(np.prod(batch))
    a = x.reshape(nb, m, n).astype(np.float64)
    b = y.reshape(nb, m, k).astype(np.float64)
    eps = np.finfo(x.dtype).eps
    sols, ranks, svs = [], [], []
    for ai, bi in zip(a, b, strict=True):
        sol, _, rank, sv = np.linalg.lstsq(ai, bi, rcond=rc if rc > 0 else eps * max(m, n))
        sols.append(sol)
        ranks.append(rank)
        svs.append(sv)
    sol = xp.asarray(sols, np.float64).reshape((*batch, n, k))
    if m > n and driver != "gelsy":
        res = ((x.astype(np.float64) @ sol - y) ** 2).sum(axis=-2).astype(x.dtype)
    else:
        res = xp.zeros((0,), x.dtype)
    # gels computes no rank and gels / gelsy no singular values: Paddle leaves those outputs
    # unwritten (uninitialised memory of their InferMeta dims); zeros here
    rank = xp.asarray(ranks, np.int32).reshape(batch)
    svs = xp.asarray(svs, x.dtype).reshape((*batch, min(m, n)))
    if driver == "gels":
        rank = xp.zeros(batch, np.int32)
    sv = svs
    if driver not in ("gelsd", "gelss"):
        sv = xp.zeros_like(sv)
    return sol.astype(x.dtype), res, rank, sv


@register_kernel("multi_dot", ("CPU", "GPU"), dtypes=REAL)
def multi_dot(ctx, x: list[Tensor]) -> Tensor:
    """The chained product (first / last 1-D: row / column vectors)."""
    dims = multi_dot_out_dims([a.shape for a in x])
    xp = ctx.xp
    out = xp.linalg.multi_dot(list(x)) if len(x) > 2 else xp.dot(x[0], x[1])
    return xp.asarray(out, x[0].dtype).reshape(dims)


@register_kernel("einsum", ("CPU", "GPU"), dtypes=REAL_COMPLEX)
def einsum(ctx, x: list[Tensor], equation: str) -> tuple[Tensor, list[Tensor], list[Tensor]]:
    """numpy's einsum (implicit output: the labels seen once, sorted; '...' broadcasts); the
    cache / xshape outputs keep the operands for the gradient."""
    xp = ctx.xp
    try:
        out = xp.einsum(equation, *x)
    except ValueError as e:
        raise InvalidArgument(f"einsum: equation '{equation}' does not fit the operands "
                              f"{', '.join(str(list(a.shape)) for a in x)}: {e}") from None
    return (xp.asarray(out, x[0].dtype), [xp.array(a) for a in x], [xp.array(a) for a in x])
