"""The ``concat`` and ``concat_grad`` kernels."""

from __future__ import annotations



from phi.common.scalar import Scalar
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.infermeta.funcs import concat_axis
from phi.kernels.funcs import ALL_DTYPES, owned
from phi.kernels.funcs.backward import grad_kernel
from phi.kernels.funcs.manipulation import CONCAT_DTYPES

__all__ = ["concat"]


@register_kernel("concat", ("CPU", "GPU"), dtypes=CONCAT_DTYPES)
def concat(ctx, x: list[Tensor], axis: Scalar) -> Tensor:
    """The tensors of ``x`` joined along ``axis`` (size-0 inputs contribute nothing)."""
    return ctx.xp.concat(x, axis=concat_axis(x[0].ndim, axis))


ALL12 = list(ALL_DTYPES)


@grad_kernel("concat_grad", ("CPU", "GPU"),
                 dtypes=[d for d in ALL12 if d != "bfloat16"])
def concat_grad(ctx, x: list[Tensor], out_grad: Tensor, axis: Scalar) -> list[Tensor]:
    """out_grad cut along ``axis`` into pieces of x's sizes (an empty x's gradient is left
    unwritten, as Paddle's kernel skips it)."""
    xp = ctx.xp
    ax = int(axis)
    ax = ax + out_grad.ndim if ax < 0 else ax
    outs, start = [], 0
    for t in x:
        size = t.shape[ax]
        piece = out_grad[(slice(None),) * ax + (slice(start, start + size),)]
        outs.append(owned(xp, piece) if t.size else None)
        start += size
    return outs
