"""Linear-algebra kernels of helper `binary2`: dot, mv, bmm, addmm, kron, cross, lerp, trace,
dist, multiplex (Paddle's paddle/phi/kernels/{cpu,impl}/*_kernel*)."""

from __future__ import annotations

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.infermeta.funcs import cross_axis
from phi.kernels.funcs import as_array, half_op, quiet, to_half
from phi.kernels.reduce import half_row_sums

__all__ = ["addmm", "bmm", "cross", "dist", "dot", "kron", "lerp", "multiplex", "mv", "trace"]

_F = ["float32", "float64"]
_FIC = ["float32", "float64", "int32", "int64", "complex64", "complex128"]


@register_kernel("dot", ("CPU", "GPU"), dtypes=_FIC)
def dot(ctx, x: Tensor, y: Tensor) -> Tensor:
    """Row-wise sum of x * y over the last dim (no conjugation of complex x)."""
    xp = ctx.xp
    with quiet(xp):
        return as_array(xp, xp.sum(x * y, axis=-1, dtype=x.dtype))


@register_kernel("mv", ("CPU", "GPU"), dtypes=_F)
def mv(ctx, x: Tensor, vec: Tensor) -> Tensor:
    """Matrix x vector."""
    return as_array(ctx.xp, ctx.xp.matmul(x, vec))


@register_kernel("bmm", ("CPU", "GPU"), dtypes=_F)
def bmm(ctx, x: Tensor, y: Tensor) -> Tensor:
    """Batched matrix product of 3-D tensors."""
    return as_array(ctx.xp, ctx.xp.matmul(x, y))


@register_kernel("addmm", ("CPU", "GPU"), dtypes=_F)
def addmm(ctx, input: Tensor, x: Tensor, y: Tensor, beta: float, alpha: float) -> Tensor:
    """beta * input + alpha * (x @ y), input broadcast to [m, n]; with beta 0 the GEMM never
    reads input (a NaN there does not propagate)."""
    xp = ctx.xp
    dt = x.dtype.type
    with quiet(xp):
        prod = xp.matmul(x, y) * dt(alpha)
        if beta == 0:
            return as_array(xp, prod)
        return as_array(xp, prod + dt(beta) * input)


@register_kernel("kron", ("CPU", "GPU"), dtypes=[*_FIC, "float16"])
def kron(ctx, x: Tensor, y: Tensor) -> Tensor:
    """Kronecker product, ranks aligned at the end."""
    xp = ctx.xp
    if ctx.data_type(x) is DataType.FLOAT16:
        return half_op(ctx, xp.kron, x, y)
    with quiet(xp):
        return as_array(xp, xp.kron(x, y))


@register_kernel("cross", ("CPU", "GPU"), dtypes=["float32", "float64", "int32", "int64"])
def cross(ctx, x: Tensor, y: Tensor, axis: int) -> Tensor:
    """Cross product of 3-vectors along ``axis`` (9: the first axis of size 3)."""
    xp = ctx.xp
    ax = cross_axis(tuple(x.shape), axis)
    with quiet(xp):
        return as_array(xp, xp.cross(x, y, axis=ax))


@register_kernel("lerp", ("CPU", "GPU"), dtypes=_F)
def lerp(ctx, x: Tensor, y: Tensor, weight: Tensor) -> Tensor:
    """x + weight * (y - x), all three broadcast."""
    xp = ctx.xp
    with quiet(xp):
        return as_array(xp, x + weight * (y - x))


@register_kernel("trace", ("CPU", "GPU"), dtypes=[*_FIC, "float16"])
def trace(ctx, x: Tensor, offset: int, axis1: int, axis2: int) -> Tensor:
    """Sum of the ``offset`` diagonal over axis1 / axis2 (0 where that diagonal is empty).
    Paddle's funcs::Diagonal orders the two axes (smaller first) and keeps ``offset`` as is."""
    xp = ctx.xp
    rank = x.ndim
    a1, a2 = sorted((axis1 % rank, axis2 % rank))
    d = xp.diagonal(x, offset=offset, axis1=a1, axis2=a2)
    if ctx.data_type(x) is DataType.FLOAT16:
        # Eigen sums the diagonal (a (rest, length) matrix) along its rows in T: each addition
        # truncated, in order (Paddle-made case hb_trace_f16)
        rows = ctx.astype(d, DataType.FLOAT32)
        return to_half(ctx, half_row_sums(ctx, rows, DataType.FLOAT16), DataType.FLOAT16)
    with quiet(xp):
        return as_array(xp, xp.sum(d, axis=-1, dtype=x.dtype))


@register_kernel("dist", ("CPU", "GPU"), dtypes=_F)
def dist(ctx, x: Tensor, y: Tensor, p: float) -> Tensor:
    """p-norm of x - y (broadcast): p 0 counts non-zeros, +-inf max / min of |x - y|."""
    xp = ctx.xp
    with quiet(xp):
        d = xp.abs(x - y)
        if p == 0:
            r = xp.sum(d != 0).astype(x.dtype)
        elif p == float("inf"):
            r = xp.max(d)
        elif p == float("-inf"):
            r = xp.min(d)
        else:
            r = xp.sum(d ** x.dtype.type(p)) ** x.dtype.type(1.0 / p)
    return as_array(xp, xp.asarray(r, dtype=x.dtype))


# Ids is read as int32 whatever the kernel dtype (Paddle casts no index input)
@register_kernel("multiplex", ("CPU", "GPU"), dtypes=_FIC,
                 input_defs={"ids": {"dtype": DataType.ALL_DTYPE}})
def multiplex(ctx, ins: list[Tensor], ids: Tensor) -> Tensor:
    """Row i of the output is row i of candidate ids[i]."""
    xp = ctx.xp
    if ctx.data_type(ids) is not DataType.INT32:
        raise InvalidArgument(f"multiplex: Input(Ids) must hold int32 (Paddle reads it as "
                              f"int32), but it holds {ctx.data_type(ids)}.")
    idx = xp.reshape(ids, (-1,))
    n = len(ins)
    if idx.size and (int(idx.min()) < 0 or int(idx.max()) >= n):
        raise InvalidArgument(f"multiplex: Input(Ids) must be in [0, {n}), but received "
                              f"values in [{int(idx.min())}, {int(idx.max())}].")
    stacked = xp.stack(ins)
    rows = xp.arange(ins[0].shape[0])[: idx.size]
    return as_array(xp, stacked[idx.astype(xp.int64), rows])
