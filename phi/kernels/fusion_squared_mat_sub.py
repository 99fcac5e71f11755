"""The ``fusion_squared_mat_sub`` kernel."""

from __future__ import annotations


from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import as_array, quiet


FLOATS = ["float32", "float64"]


@register_kernel("fusion_squared_mat_sub", ("CPU",), dtypes=FLOATS)
def fusion_squared_mat_sub(ctx, x: Tensor, y: Tensor, scalar: float
                           ) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """(X^2, Y^2, (X Y)^2, scalar * ((X Y)^2 - X^2 Y^2))."""
    xp = ctx.xp
    t = x.dtype.type
    with quiet(xp):
        sx, sy = x * x, y * y
        xy = xp.matmul(x, y)
        sxy = xy * xy
        out = (sxy - xp.matmul(sx, sy)) * t(scalar)
    return sx, sy, sxy, as_array(xp, out.astype(x.dtype))
