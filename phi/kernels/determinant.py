"""determinant (Paddle's legacy op name; phi kernel ``determinant``) and its grad.

Out = det(Input) over the last two dims (batch dims kept; a single matrix gives a 0-D
tensor), by LU factorisation in Input's precision.  The grad:
dInput = dOut * Out * inv(Input)^T, and zeros for the whole batch when some matrix is singular
(det = 0), as Paddle's DeterminantGradKernel does.
"""

from __future__ import annotations

from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import as_array, quiet

__all__ = ["determinant", "determinant_grad"]


_F = ["float32", "float64"]


def _check_square(shape, op: str) -> None:
    if len(shape) < 2:
        raise InvalidArgument(f"{op}: the input tensor's rank must be at least 2, got "
                              f"{list(shape)}.")
    if shape[-1] != shape[-2]:
        raise InvalidArgument(f"{op}: the last two dimensions of Input must be equal (a "
                              f"square matrix), got {shape[-2]} x {shape[-1]}.")


@register_kernel("determinant", ("CPU", "GPU"), dtypes=_F)
def determinant(ctx, x: Tensor) -> Tensor:
    """det of each [n, n] matrix of Input [*, n, n] -> [*]."""
    xp = ctx.xp
    _check_square(x.shape, "determinant")
    with quiet(xp):
        return as_array(xp, xp.asarray(xp.linalg.det(x), dtype=x.dtype))


@register_kernel("determinant_grad", ("CPU", "GPU"), dtypes=_F)
def determinant_grad(ctx, x: Tensor, out: Tensor, out_grad: Tensor) -> Tensor:
    """dOut * det * inv(A)^T; all zeros when some matrix of the batch is singular."""
    xp = ctx.xp
    _check_square(x.shape, "determinant_grad")
    if bool(xp.any(out == 0)):
        return xp.zeros(x.shape, dtype=x.dtype)
    with quiet(xp):
        inv_t = xp.swapaxes(xp.linalg.inv(x), -1, -2)
        g = (out_grad * out)[..., None, None]
        return as_array(xp, (g * inv_t).astype(x.dtype))
