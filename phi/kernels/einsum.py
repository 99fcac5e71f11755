"""The ``einsum`` kernel."""

from __future__ import annotations


from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel

__all__ = ["einsum"]


REAL_COMPLEX = ["float32", "float64", "complex64", "complex128"]


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
