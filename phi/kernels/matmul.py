"""The matmul and matmul_with_flatten kernels and their grads (Paddle's
paddle/phi/kernels/impl/matmul_kernel_impl.h, matmul_grad_kernel_impl.h)."""

from __future__ import annotations


import numpy as np

from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import as_array, prod, quiet
from phi.kernels.funcs.matmul import matmul_grads

__all__ = ["matmul", "matmul_with_flatten"]


# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json)
MATMUL_DTYPES = ["float32", "float64", "int32", "int64", "complex64", "complex128"]
_FOLD_MIN = 4096  # elements of x


@register_kernel("matmul", ("CPU", "GPU"), dtypes=MATMUL_DTYPES)
def matmul(ctx, x: Tensor, y: Tensor, transpose_x: bool, transpose_y: bool) -> Tensor:
    """Batched matrix product; 1-D operands are vectors (their transpose flag is ignored)."""
    xp = ctx.xp
    if xp is np:  # the .mT views skip matrix_transpose's Python wrapper (tiny matrices)
        if transpose_x and x.ndim >= 2:
            x = x.mT
        if transpose_y and y.ndim >= 2:
            y = y.mT
        if y.ndim == 2 and x.ndim > 2 and x.size >= _FOLD_MIN and x.flags.c_contiguous:
            # a batch of x against one matrix: one GEMM over the rows of every batch, as
            # Paddle's MatMulFunction folds x's leading dims into M (numpy would call one GEMM
            # per batch: 10-40% slower for the transformers' [B, S, H] x [H, H'] products;
            # below _FOLD_MIN elements the reshapes cost more than they save)
            shape = x.shape
            out = np.matmul(x.reshape(-1, shape[-1]), y)
            return out.reshape((*shape[:-1], y.shape[1]))
        out = np.matmul(x, y)
        return out if type(out) is np.ndarray else np.asarray(out)
    if transpose_x and x.ndim >= 2:
        x = xp.matrix_transpose(x)
    if transpose_y and y.ndim >= 2:
        y = xp.matrix_transpose(y)
    return xp.asarray(xp.matmul(x, y))


@register_kernel("matmul_with_flatten", ("CPU", "GPU"), dtypes=["float32", "float64"])
def matmul_with_flatten(ctx, x: Tensor, y: Tensor, x_num_col_dims: int,
                        y_num_col_dims: int) -> Tensor:
    """Legacy ``mul``: x and y flattened to matrices at their num_col_dims, multiplied, and the
    result given dims x.dims[:x_num_col_dims] + y.dims[y_num_col_dims:]."""
    xp = ctx.xp
    rows = 1
    for d in x.shape[:x_num_col_dims]:
        rows *= d
    k = 1
    for d in y.shape[:y_num_col_dims]:
        k *= d
    out = xp.matmul(xp.reshape(x, (rows, k)), xp.reshape(y, (k, -1) if k else (0, 1)))
    return xp.reshape(out, tuple(x.shape[:x_num_col_dims]) + tuple(y.shape[y_num_col_dims:]))


_F = ["float32", "float64"]


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


# Paddle 2.6.2 CPU registrations of the grad kernels (corpus phi_kernels.json)
F = ["float32", "float64"]
FC = [*F, "complex64", "complex128"]


def _matmul_vjp(xp, x, y, g, trans_x: bool, trans_y: bool):
    """The gradients of out = op(x) @ op(y) for the out-gradient g (Paddle's MatmulGradKernel:
    1-D operands as a row / column, batch dims broadcast and summed back, complex operands
    conjugated)."""
    xx = x[None, :] if x.ndim == 1 else (xp.swapaxes(x, -1, -2) if trans_x else x)
    yy = y[:, None] if y.ndim == 1 else (xp.swapaxes(y, -1, -2) if trans_y else y)
    full = xp.matmul(xx, yy).shape
    gg = g.reshape(full)
    cj = xp.conj if g.dtype.kind == "c" else (lambda a: a)
    gx = xp.matmul(gg, cj(xp.swapaxes(yy, -1, -2)))
    gy = xp.matmul(cj(xp.swapaxes(xx, -1, -2)), gg)

    def back(d, like, operand, trans):
        lead = d.ndim - operand.ndim  # sum the broadcast batch dims back to the operand's
        d = d.sum(axis=tuple(range(lead))) if lead else d
        axes = tuple(i for i, (a, b) in enumerate(zip(d.shape[:-2], operand.shape[:-2],
                                                      strict=True)) if a != b)
        d = d.sum(axis=axes, keepdims=True) if axes else d
        if like.ndim == 1:
            return d.reshape(like.shape)
        return xp.swapaxes(d, -1, -2) if trans else d

    return back(gx, x, xx, trans_x), back(gy, y, yy, trans_y)


@register_kernel("matmul_double_grad", ("CPU", "GPU"), dtypes=FC)
def matmul_double_grad(ctx, x: Tensor, y: Tensor, dout: Tensor, ddx: Tensor | None,
                       ddy: Tensor | None, trans_x: bool, trans_y: bool
                       ) -> tuple[Tensor, Tensor, Tensor]:
    """(dx, dy, ddout) of matmul_grad: ddout = op(ddx) @ op(y) + op(x) @ op(ddy); dx, dy the
    first grad's formulas with ddy for y and ddx for x; a missing ddx / ddy counts as 0."""
    xp = ctx.xp
    with quiet(xp):
        zero_x, zero_y = xp.zeros_like(x), xp.zeros_like(y)
        ddx = zero_x if ddx is None else ddx
        ddy = zero_y if ddy is None else ddy
        mm = _matmul_forward(xp, trans_x, trans_y)
        ddout = (mm(ddx, y) + mm(x, ddy)).reshape(dout.shape)
        dx, _ = _matmul_vjp(xp, x, ddy, dout, trans_x, trans_y)
        _, dy = _matmul_vjp(xp, ddx, y, dout, trans_x, trans_y)
        return as_array(xp, dx), as_array(xp, dy), as_array(xp, ddout)


def _matmul_forward(xp, trans_x: bool, trans_y: bool):
    def mm(a, b):
        a = xp.swapaxes(a, -1, -2) if trans_x and a.ndim > 1 else a
        b = xp.swapaxes(b, -1, -2) if trans_y and b.ndim > 1 else b
        return xp.matmul(a, b)
    return mm
