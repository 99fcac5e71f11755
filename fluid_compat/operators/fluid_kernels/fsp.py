"""The fluid kernels of fsp, fsp_grad."""

from __future__ import annotations

from fluid_compat.operators.fluid_kernels.funcs import put
from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from phi.core.errors import InvalidArgument

__all__: list[str] = []


@register_fluid_kernel("fsp_grad", "CPU", ("float32", "float64"))
class FspGradKernel(FluidKernel):
    """fsp's grads (fsp_op.h): Out[n] = X[n] Y[n]^T / (h w) on (C, h w) matrices, so
    dX[n] = dOut[n] Y[n] / (h w) and dY[n] = dOut[n]^T X[n] / (h w)."""

    def compute(self, ctx) -> None:
        xp = ctx.xp
        x, y = ctx.input_array("X"), ctx.input_array("Y")
        g = ctx.input_array("Out@GRAD")
        n, c1, h, w = x.shape
        scale = x.dtype.type(1.0 / (h * w))
        x3, y3 = x.reshape(n, c1, h * w), y.reshape(n, y.shape[1], h * w)
        put(ctx, "X@GRAD", xp.reshape(xp.matmul(g, y3) * scale, x.shape))
        put(ctx, "Y@GRAD", xp.reshape(xp.matmul(xp.swapaxes(g, 1, 2), x3) * scale, y.shape))


@register_fluid_kernel("fsp", "CPU", ("float32", "float64"))
class FspKernel(FluidKernel):
    """FSP matrix of two feature maps: Out[n] = X[n] (C1 x HW) . Y[n]^T (HW x C2) / (H * W)."""

    dtype_tied_inputs = ("X", "Y")

    def compute(self, ctx) -> None:
        xp = ctx.xp
        x, y = ctx.input_array("X"), ctx.input_array("Y")
        if x.ndim != 4 or y.ndim != 4:
            raise InvalidArgument(f"fsp: Input(X) and Input(Y) must be 4-D (N, C, H, W), but "
                                  f"received shapes {list(x.shape)} and {list(y.shape)}.")
        for axis, what in ((2, "height"), (3, "width")):
            if x.shape[axis] != y.shape[axis]:
                raise InvalidArgument(f"fsp: The Input(X)({x.shape[axis]}) and Input(Y)"
                                      f"({y.shape[axis]}) should have the same {what}.")
        if x.shape[0] != y.shape[0]:
            raise InvalidArgument(f"fsp: The Input(X)({x.shape[0]}) and Input(Y)({y.shape[0]}) "
                                  f"should have the same batch size.")
        n, c1, h, w = x.shape
        hw = h * w
        out = xp.matmul(x.reshape(n, c1, hw), xp.swapaxes(y.reshape(n, y.shape[1], hw), 1, 2))
        # Paddle's blas MatMul with alpha = 1 / (h * w) in T
        ctx.set_output("Out", xp.ascontiguousarray(out * x.dtype.type(1.0 / hw)))

