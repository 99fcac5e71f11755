"""The ``kron`` and ``kron_grad`` kernels."""

from __future__ import annotations

from phi.common.data_type import DataType
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import as_array, half_op, quiet
from phi.kernels.funcs.matmul import conj_if_complex

__all__ = ["kron"]


_FIC = ["float32", "float64", "int32", "int64", "complex64", "complex128"]


@register_kernel("kron", ("CPU", "GPU"), dtypes=[*_FIC, "float16"])
def kron(ctx, x: Tensor, y: Tensor) -> Tensor:
    """Kronecker product, ranks aligned at the end."""
    xp = ctx.xp
    if ctx.data_type(x) is DataType.FLOAT16:
        return half_op(ctx, xp.kron, x, y)
    with quiet(xp):
        return as_array(xp, xp.kron(x, y))


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
        px = (half_op(ctx, lambda a, b: a * b, g, yb) if half else g * conj_if_complex(ctx, yb))
        py = (half_op(ctx, lambda a, b: a * b, g, xa) if half else g * conj_if_complex(ctx, xa))
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
