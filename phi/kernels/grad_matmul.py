"""Grad kernels of the matmul family: matmul, matmul_with_flatten (mul), bmm, dot, mv, addmm,
multi_dot, kron, cross, bilinear (Paddle's paddle/phi/kernels/impl/*_grad_kernel_impl.h).

Products of complex tensors take the conjugate of the other operand, as Paddle's grads do.
"""

from __future__ import annotations

from phi.common.data_type import DataType
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.infermeta.funcs import cross_axis
from phi.kernels.funcs import COMPLEX, as_array, half_op, prod, quiet
from phi.kernels.grad_elementwise import reduce_to

__all__ = ["matmul_grads"]

_F = ["float32", "float64"]


def _conj(ctx, a):
    return ctx.xp.conj(a) if ctx.data_type(a) in COMPLEX else a


def _t(xp, a):
    return xp.swapaxes(a, -1, -2)


def matmul_grads(ctx, x, y, dout, trans_x: bool, trans_y: bool):
    """(dx, dy) of out = op(x) @ op(y) with numpy's 1-D rules (a 1-D x is a row, a 1-D y a
    column, their transpose flags ignored) and batch broadcasting summed back."""
    xp = ctx.xp
    x2 = x[None, :] if x.ndim == 1 else x
    y2 = y[:, None] if y.ndim == 1 else y
    g = dout  # y's vector axis first: two vectors give a 0-D dout
    if y.ndim == 1:
        g = g[..., None]
    if x.ndim == 1:
        g = g[..., None, :]
    tx, ty = trans_x and x.ndim >= 2, trans_y and y.ndim >= 2
    a = _t(xp, x2) if tx else x2
    b = _t(xp, y2) if ty else y2
    with quiet(xp):
        da = xp.matmul(g, _t(xp, _conj(ctx, b)))
        db = xp.matmul(_t(xp, _conj(ctx, a)), g)
    dx2 = _t(xp, da) if tx else da
    dy2 = _t(xp, db) if ty else db
    dx = xp.reshape(reduce_to(xp, dx2, x2.shape), x.shape)
    dy = xp.reshape(reduce_to(xp, dy2, y2.shape), y.shape)
    return as_array(xp, dx.astype(x.dtype, copy=False)), as_array(xp, dy.astype(y.dtype,
                                                                                copy=False))


@register_kernel("matmul_grad", ("CPU", "GPU"), dtypes=["float32", "float64", "complex64",
                                                        "complex128"])
def matmul_grad(ctx, x: Tensor, y: Tensor, out_grad: Tensor, transpose_x: bool,
                transpose_y: bool) -> tuple[Tensor, Tensor]:
    """dx = dout @ op(y)^H, dy = op(x)^H @ dout (transposed back, batch dims summed)."""
    return matmul_grads(ctx, x, y, out_grad, transpose_x, transpose_y)


@register_kernel("matmul_with_flatten_grad", ("CPU", "GPU"), dtypes=_F)
def matmul_with_flatten_grad(ctx, x: Tensor, y: Tensor, out_grad: Tensor, x_num_col_dims: int,
                             y_num_col_dims: int) -> tuple[Tensor, Tensor]:
    """Legacy mul's grads on the flattened matrices, reshaped to x's and y's dims."""
    xp = ctx.xp
    rows, k = prod(x.shape[:x_num_col_dims]), prod(y.shape[:y_num_col_dims])
    x2, y2 = xp.reshape(x, (rows, k)), xp.reshape(y, (k, prod(y.shape[y_num_col_dims:])))
    g = xp.reshape(out_grad, (rows, y2.shape[1]))
    return (as_array(xp, xp.reshape(g @ y2.T, x.shape)),
            as_array(xp, xp.reshape(x2.T @ g, y.shape)))


@register_kernel("bmm_grad", ("CPU", "GPU"), dtypes=_F)
def bmm_grad(ctx, x: Tensor, y: Tensor, out_grad: Tensor) -> tuple[Tensor, Tensor]:
    """dx = dout @ y^T, dy = x^T @ dout per batch."""
    return matmul_grads(ctx, x, y, out_grad, False, False)


@register_kernel("dot_grad", ("CPU", "GPU"), dtypes=["float32", "float64", "int32", "int64",
                                                     "complex64", "complex128"])
def dot_grad(ctx, x: Tensor, y: Tensor, out_grad: Tensor) -> tuple[Tensor, Tensor]:
    """dx = dout * conj(y), dy = dout * conj(x), dout broadcast along the last dim."""
    xp = ctx.xp
    g = xp.reshape(out_grad, (*x.shape[:-1], 1))
    with quiet(xp):
        return as_array(xp, g * _conj(ctx, y)), as_array(xp, g * _conj(ctx, x))


@register_kernel("mv_grad", ("CPU", "GPU"), dtypes=_F)
def mv_grad(ctx, x: Tensor, vec: Tensor, out_grad: Tensor) -> tuple[Tensor, Tensor]:
    """dx = dout vec^T (outer product), dvec = x^T dout."""
    xp = ctx.xp
    return (as_array(xp, xp.outer(out_grad, vec).astype(x.dtype, copy=False)),
            as_array(xp, (x.T @ out_grad).astype(x.dtype, copy=False)))


@register_kernel("addmm_grad", ("CPU", "GPU"), dtypes=_F)
def addmm_grad(ctx, input: Tensor, x: Tensor, y: Tensor, out_grad: Tensor, alpha: float,
               beta: float) -> tuple[Tensor, Tensor, Tensor]:
    """dinput = beta * dout summed to input's dims, dx = alpha * dout @ y^T,
    dy = alpha * x^T @ dout."""
    xp = ctx.xp
    dt = out_grad.dtype.type
    with quiet(xp):
        dinput = reduce_to(xp, out_grad * dt(beta), input.shape)
        dx = (out_grad @ y.T) * dt(alpha)
        dy = (x.T @ out_grad) * dt(alpha)
    return as_array(xp, dinput), as_array(xp, dx), as_array(xp, dy)


@register_kernel("multi_dot_grad", ("CPU", "GPU"), dtypes=_F)
def multi_dot_grad(ctx, x: list[Tensor], out_grad: Tensor) -> list[Tensor]:
    """d x_i = (x_0 ... x_{i-1})^T dout (x_{i+1} ... x_{n-1})^T, a 1-D first / last operand a
    row / column vector."""
    xp = ctx.xp
    mats = list(x)
    if mats[0].ndim == 1:
        mats[0] = mats[0][None, :]
    if mats[-1].ndim == 1:
        mats[-1] = mats[-1][:, None]
    g = xp.reshape(out_grad, (mats[0].shape[0], mats[-1].shape[1]))
    n = len(mats)
    left = [None] * n  # product of the operands before i
    right = [None] * n  # product of the operands after i
    for i in range(1, n):
        left[i] = mats[0] if i == 1 else left[i - 1] @ mats[i - 1]
    for i in range(n - 2, -1, -1):
        right[i] = mats[-1] if i == n - 2 else mats[i + 1] @ right[i + 1]
    out = []
    for i, a in enumerate(x):
        d = g if left[i] is None else left[i].T @ g
        d = d if right[i] is None else d @ right[i].T
        out.append(as_array(xp, xp.reshape(d, a.shape).astype(a.dtype, copy=False)))
    return out


@register_kernel("kron_grad", ("CPU", "GPU"), dtypes=["float32", "float64", "int32", "int64",
                                                      "complex64", "complex128", "float16"])
def kron_grad(ctx, x: Tensor, y: Tensor, out_grad: Tensor) -> tuple[Tensor, Tensor]:
    """Out[i * ny + j] = x[i] y[j] per axis (ranks aligned at the end): dx sums dout * conj(y)
    over y's positions, dy sums dout * conj(x) over x's."""
    xp = ctx.xp
    rank = max(x.ndim, y.ndim, 1)
    xs = (1,) * (rank - x.ndim) + tuple(x.shape)
    ys = (1,) * (rank - y.ndim) + tuple(y.shape)
    g = xp.reshape(out_grad, tuple(d for pair in zip(xs, ys, strict=True) for d in pair))
    xa = xp.reshape(x, tuple(d for s in xs for d in (s, 1)))
    yb = xp.reshape(y, tuple(d for s in ys for d in (1, s)))
    x_axes, y_axes = tuple(range(0, 2 * rank, 2)), tuple(range(1, 2 * rank, 2))
    half = ctx.data_type(x) is DataType.FLOAT16
    with quiet(xp):
        # Paddle's KronGradElemFunctor: products dout * other laid out as [numel_x, numel_y]
        # ([numel_y, numel_x]), then summed along the second axis
        px = (half_op(ctx, lambda a, b: a * b, g, yb) if half else g * _conj(ctx, yb))
        py = (half_op(ctx, lambda a, b: a * b, g, xa) if half else g * _conj(ctx, xa))
        px = xp.reshape(xp.transpose(xp.broadcast_to(px, g.shape), x_axes + y_axes),
                        (x.size, y.size))
        py = xp.reshape(xp.transpose(xp.broadcast_to(py, g.shape), y_axes + x_axes),
                        (y.size, x.size))
        if half:
            dx, dy = _half_row_sums(ctx, px), _half_row_sums(ctx, py)
        else:
            dx, dy = xp.sum(px, axis=1, dtype=px.dtype), xp.sum(py, axis=1, dtype=py.dtype)
    return as_array(xp, xp.reshape(dx, x.shape)), as_array(xp, xp.reshape(dy, y.shape))


def _half_row_sums(ctx, a):
    """Row sums accumulated element by element in float16 (each addition converted back, as
    Eigen's sum over a half tensor)."""
    acc = ctx.xp.zeros(a.shape[0], a.dtype)
    for j in range(a.shape[1]):
        acc = half_op(ctx, lambda u, v: u + v, acc, a[:, j])
    return acc


@register_kernel("cross_grad", ("CPU", "GPU"), dtypes=["float32", "float64", "int32", "int64"])
def cross_grad(ctx, x: Tensor, y: Tensor, out_grad: Tensor, axis: int) -> tuple[Tensor, Tensor]:
    """dx = y x dout, dy = dout x x along the cross axis."""
    xp = ctx.xp
    ax = cross_axis(tuple(x.shape), axis)
    with quiet(xp):
        return (as_array(xp, xp.cross(y, out_grad, axis=ax)),
                as_array(xp, xp.cross(out_grad, x, axis=ax)))


@register_kernel("bilinear_grad", ("CPU", "GPU"), dtypes=_F)
def bilinear_grad(ctx, x: Tensor, y: Tensor, weight: Tensor,
                  out_grad: Tensor) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """Grads of out[b, s] = x[b] W[s] y[b] + bias[0, s]: dx, dy, dW and dbias ([1, S])."""
    xp = ctx.xp
    g = out_grad
    dx = xp.einsum("bs,smn,bn->bm", g, weight, y)
    dy = xp.einsum("bs,smn,bm->bn", g, weight, x)
    dw = xp.einsum("bs,bm,bn->smn", g, x, y)
    db = xp.sum(g, axis=0, keepdims=True)
    return tuple(as_array(xp, a.astype(x.dtype, copy=False)) for a in (dx, dy, dw, db))
