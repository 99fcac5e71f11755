"""The ``lu_unpack`` and ``lu_unpack_grad`` kernels."""

from __future__ import annotations


from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.linalg import contiguous_as

__all__ = ["lu_unpack"]


# Paddle 2.6.2 CPU registrations (corpus cpu_ops.json)
REAL = ["float32", "float64"]


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


_F = ["float32", "float64"]


@register_kernel("lu_unpack_grad", ("CPU", "GPU"), dtypes=_F,
                 input_defs={"pivots": {"dtype": DataType.ALL_DTYPE}})
def lu_unpack_grad(ctx, x: Tensor, pivots: Tensor, low: Tensor, up: Tensor, pmat: Tensor,
                   l_grad: Tensor | None, u_grad: Tensor | None, unpack_ludata: bool,
                   unpack_pivots: bool) -> Tensor:
    """The packed matrix's gradient: strictly lower part of dL plus upper part of dU."""
    xp = ctx.xp
    m, n = x.shape[-2:]
    k = min(m, n)
    dx = xp.zeros(x.shape, x.dtype)
    if l_grad is not None:
        dx[..., :, :k] += xp.tril(l_grad, -1)
    if u_grad is not None:
        dx[..., :k, :] += xp.triu(u_grad)
    return contiguous_as(xp, dx, x.dtype)
