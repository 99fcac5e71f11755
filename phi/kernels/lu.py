"""The ``lu`` and ``lu_grad`` kernels."""

from __future__ import annotations

import numpy as np

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument, Unimplemented
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import quiet
from phi.kernels.funcs.linalg import conj_transpose, contiguous_as, solve_left, solve_right
from phi.kernels.lu_unpack import lu_unpack

__all__ = ["lu"]


# Paddle 2.6.2 CPU registrations (corpus cpu_ops.json)
REAL = ["float32", "float64"]


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


_F = ["float32", "float64"]


def _lu_backward(xp, pmat, low, up, gl, gu):
    """PyTorch's linalg_lu_backward (Paddle's LUGradKernel follows it): A = P L U."""
    m, k = low.shape[-2:]
    n = up.shape[-1]
    with quiet(xp):
        if m == n:
            phi = xp.tril(conj_transpose(xp, low) @ gl, -1) + xp.triu(gu @ conj_transpose(xp, up))
            a = solve_right(xp, phi, conj_transpose(xp, up), upper=False)
            a = solve_left(xp, conj_transpose(xp, low), a, upper=True, unit=True)
        elif m < n:
            u1 = up[..., :, :k]
            phi = conj_transpose(xp, low) @ gl - xp.triu(gu) @ conj_transpose(xp, up)
            a = solve_right(xp, xp.tril(phi, -1), conj_transpose(xp, u1), upper=False)
            a = xp.concatenate([a + xp.triu(gu[..., :, :k]), gu[..., :, k:]], axis=-1)
            a = solve_left(xp, conj_transpose(xp, low), a, upper=True, unit=True)
        else:
            l1 = low[..., :k, :]
            phi = gu @ conj_transpose(xp, up) - conj_transpose(xp, low) @ gl
            a = solve_left(xp, conj_transpose(xp, l1), xp.triu(phi), upper=True, unit=True)
            a = xp.concatenate([a + xp.tril(gl[..., :k, :], -1), gl[..., k:, :]], axis=-2)
            a = solve_right(xp, a, conj_transpose(xp, up), upper=False)
        return pmat @ a


@register_kernel("lu_grad", ("CPU", "GPU"), dtypes=_F,
                 input_defs={"pivots": {"dtype": DataType.ALL_DTYPE}})
def lu_grad(ctx, x: Tensor, out: Tensor, pivots: Tensor, out_grad: Tensor,
            pivot: bool) -> Tensor:
    """The packed L\\U's gradient split into dL (strictly lower, [*, m, k]) and dU (upper,
    [*, k, n]), through A = P L U."""
    xp = ctx.xp
    m, n = x.shape[-2:]
    k = min(m, n)
    pmat, low, up = lu_unpack(ctx, out, pivots, True, True)
    gl = xp.tril(out_grad[..., :, :k], -1)
    gu = xp.triu(out_grad[..., :k, :])
    return contiguous_as(xp, _lu_backward(xp, pmat, low, up, gl, gu), x.dtype)
