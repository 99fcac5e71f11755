"""The ``tril_triu`` and ``tril_triu_grad`` kernels."""

from __future__ import annotations



from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.backward import grad_kernel

__all__ = ["tril_triu"]


TRIL_TRIU_DTYPES = ["bool", "float32", "float64", "int32", "int64", "float16", "complex64",
                    "complex128"]


@register_kernel("tril_triu", ("CPU", "GPU"), dtypes=TRIL_TRIU_DTYPES)
def tril_triu(ctx, x: Tensor, diagonal: int, lower: bool) -> Tensor:
    """The lower (``lower``) or upper triangle of the last two dims from ``diagonal`` on, the
    rest zeros."""
    xp = ctx.xp
    return xp.tril(x, k=diagonal) if lower else xp.triu(x, k=diagonal)


@grad_kernel("tril_triu_grad", ("CPU", "GPU"),
                 dtypes=["bool", "float32", "float64", "int32", "int64", "float16", "complex64",
                         "complex128"])
def tril_triu_grad(ctx, out_grad: Tensor, diagonal: int, lower: bool) -> Tensor:
    """out_grad's lower (upper) triangle."""
    return tril_triu(ctx, out_grad, diagonal, lower)
