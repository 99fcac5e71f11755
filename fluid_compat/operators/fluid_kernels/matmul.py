"""The fluid kernels of matmul, matmul_grad, matmul_v2."""

from __future__ import annotations

from fluid_compat.operators.fluid_kernels.funcs import FLOATS, put
from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from phi.core.errors import InvalidArgument

__all__: list[str] = []


@register_fluid_kernel("matmul_grad", "CPU", ("float32", "float64"))
class MatmulV1GradKernel(FluidKernel):
    """Legacy matmul's grads (paddle/fluid/operators/matmul_op.cc): those of matmul_v2 times
    alpha."""

    def compute(self, ctx) -> None:
        from phi.kernels.funcs.matmul import matmul_grads

        x, y = ctx.input_array("X"), ctx.input_array("Y")
        g = ctx.input_array("Out@GRAD")
        alpha = ctx.attr("alpha")
        if alpha != 1.0:
            g = g * g.dtype.type(alpha)
        dx, dy = matmul_grads(ctx.dev_ctx, x, y, g, ctx.attr("transpose_X"),
                              ctx.attr("transpose_Y"))
        put(ctx, "X@GRAD", dx)
        put(ctx, "Y@GRAD", dy)


def _matmul(xp, x, y, tx: bool, ty: bool, op: str):
    """Batched matmul with numpy's 1-D rules; transposes apply to the last two dims."""
    if x.ndim == 0 or y.ndim == 0:
        raise InvalidArgument(f"{op}: Input(X) and Input(Y) must be at least 1-D, but received "
                              f"shapes {list(x.shape)} and {list(y.shape)}.")
    if tx and x.ndim >= 2:
        x = xp.swapaxes(x, -1, -2)
    if ty and y.ndim >= 2:
        y = xp.swapaxes(y, -1, -2)
    kx = x.shape[-1]
    ky = y.shape[0] if y.ndim == 1 else y.shape[-2]
    if kx != ky:
        raise InvalidArgument(f"{op}: inner dimensions differ: X{list(x.shape)} (after "
                              f"transpose) and Y{list(y.shape)}.")
    return xp.matmul(x, y)


@register_fluid_kernel("matmul_v2", "CPU", FLOATS)
class MatmulV2Kernel(FluidKernel):
    dtype_tied_inputs = ("X", "Y")

    def compute(self, ctx) -> None:
        xp = ctx.xp
        x, y = ctx.input_array("X"), ctx.input_array("Y")
        out = _matmul(xp, x, y, ctx.attr("trans_x"), ctx.attr("trans_y"), "matmul_v2")
        ctx.set_output("Out", xp.asarray(out))


@register_fluid_kernel("matmul", "CPU", FLOATS)
class MatmulV1Kernel(FluidKernel):
    """Legacy matmul: alpha * op(X) @ op(Y) (two vectors give a 0-D result, as 2.6.2 does)."""

    dtype_tied_inputs = ("X", "Y")

    def compute(self, ctx) -> None:
        xp = ctx.xp
        x, y = ctx.input_array("X"), ctx.input_array("Y")
        out = _matmul(xp, x, y, ctx.attr("transpose_X"), ctx.attr("transpose_Y"), "matmul")
        alpha = ctx.attr("alpha")
        if alpha != 1.0:
            out = out * xp.asarray(alpha).astype(out.dtype)
        ctx.set_output("Out", xp.asarray(out))

