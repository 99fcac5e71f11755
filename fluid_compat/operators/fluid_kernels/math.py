"""Fluid (old-style) kernels of math ops.

The first six ops keep a fluid kernel beside their phi kernel so that fluid and phi can be
compared on real models (mul, elementwise_add, relu, softmax, matmul_v2, scale); ``matmul`` (v1)
is fluid-only, as in Paddle 2.6.2 where its name is deprecated for phi.  These are written from
the legacy ops' definitions, independently of the phi kernels: a comparison of two copies of one
function would prove nothing.
"""

from __future__ import annotations

from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from phi.core.errors import InvalidArgument

__all__: list[str] = []

FLOATS = ("float32", "float64")


def _legacy_broadcast_y(xp, x, y, axis: int, op: str):
    """Align Y to X starting at ``axis`` (legacy elementwise rule); -1: trailing alignment."""
    if axis == -1 or x.ndim == y.ndim:
        return y
    if y.ndim > x.ndim:
        raise InvalidArgument(f"{op}: with axis={axis}, Y's rank ({y.ndim}) must not exceed "
                              f"X's rank ({x.ndim}).")
    shape = list(y.shape)
    while len(shape) > 1 and shape[-1] == 1 and axis + len(shape) > x.ndim:
        shape.pop()  # trailing 1s of Y beyond X are dropped, as Paddle's trim_trailing_singular
    if axis < 0 or axis + len(shape) > x.ndim:
        raise InvalidArgument(f"{op}: axis {axis} out of range for X{list(x.shape)} and "
                              f"Y{list(y.shape)}.")
    for i, d in enumerate(shape):
        if d != 1 and d != x.shape[axis + i]:
            raise InvalidArgument(f"{op}: Y{list(y.shape)} does not broadcast to "
                                  f"X{list(x.shape)} at axis {axis}.")
    full = [1] * axis + shape + [1] * (x.ndim - axis - len(shape))
    return xp.reshape(y, tuple(full))


@register_fluid_kernel("elementwise_add", "CPU", ("float32", "float64", "int32", "int64"))
class ElementwiseAddKernel(FluidKernel):
    dtype_tied_inputs = ("X", "Y")

    def compute(self, ctx) -> None:
        xp = ctx.xp
        x, y = ctx.input_array("X"), ctx.input_array("Y")
        y = _legacy_broadcast_y(xp, x, y, ctx.attr("axis"), "elementwise_add")
        ctx.set_output("Out", xp.add(x, y))


@register_fluid_kernel("relu", "CPU", FLOATS)
class ReluKernel(FluidKernel):
    dtype_tied_inputs = ("X",)

    def compute(self, ctx) -> None:
        xp = ctx.xp
        x = ctx.input_array("X")
        # the legacy fluid relu was Eigen's x.cwiseMax(0), i.e. max(x, 0) = (x < 0) ? 0 : x,
        # which keeps NaN; phi's ReluCPUFunctor (v > 0 ? v : 0) turns NaN into 0.  The two sides
        # really differ there, and `fluid-compat compare` shows it (docs/migrating-an-op.md).
        out = xp.where(x > 0, x, xp.zeros_like(x))
        out = xp.where(xp.isnan(x), x, out)
        ctx.set_output("Out", out)


@register_fluid_kernel("softmax", "CPU", FLOATS)
class SoftmaxKernel(FluidKernel):
    dtype_tied_inputs = ("X",)

    def compute(self, ctx) -> None:
        xp = ctx.xp
        x = ctx.input_array("X")
        if x.ndim == 0:
            ctx.set_output("Out", xp.ones_like(x))
            return
        axis = ctx.attr("axis")
        if not -x.ndim <= axis < x.ndim:
            raise InvalidArgument(f"softmax: axis {axis} out of range for a {x.ndim}-D input.")
        shifted = x - xp.max(x, axis=axis, keepdims=True)
        e = xp.exp(shifted)
        ctx.set_output("Out", e / xp.sum(e, axis=axis, keepdims=True))


@register_fluid_kernel("scale", "CPU", ("float32", "float64", "int32", "int64"))
class ScaleKernel(FluidKernel):
    dtype_tied_inputs = ("X",)

    def compute(self, ctx) -> None:
        xp = ctx.xp
        x = ctx.input_array("X")
        scale = ctx.attr("scale")
        if ctx.has_input("ScaleTensor"):
            scale = float(ctx.input("ScaleTensor").numpy().reshape(-1)[0])
        bias = ctx.attr("bias")
        dt = x.dtype
        s = xp.asarray(scale).astype(dt)
        b = xp.asarray(bias).astype(dt)
        out = x * s + b if ctx.attr("bias_after_scale") else (x + b) * s
        ctx.set_output("Out", out.astype(dt, copy=False))


def _flatten_to_2d(xp, a, num_col_dims: int, what: str):
    if not 0 < num_col_dims <= a.ndim:
        raise InvalidArgument(f"mul: {what}_num_col_dims {num_col_dims} out of range for a "
                              f"{a.ndim}-D input.")
    rows = 1
    for d in a.shape[:num_col_dims]:
        rows *= d
    return xp.reshape(a, (rows, -1) if rows else (0, max(1, int(a.size // max(rows, 1)))))


@register_fluid_kernel("mul", "CPU", FLOATS)
class MulKernel(FluidKernel):
    dtype_tied_inputs = ("X", "Y")

    def compute(self, ctx) -> None:
        xp = ctx.xp
        x, y = ctx.input_array("X"), ctx.input_array("Y")
        xnc, ync = ctx.attr("x_num_col_dims"), ctx.attr("y_num_col_dims")
        x2 = _flatten_to_2d(xp, x, xnc, "x")
        y2 = _flatten_to_2d(xp, y, ync, "y")
        if x2.shape[1] != y2.shape[0]:
            raise InvalidArgument(f"mul: flattened X{list(x2.shape)} and Y{list(y2.shape)} do "
                                  "not multiply.")
        out = xp.matmul(x2, y2)
        ctx.set_output("Out", xp.reshape(out, tuple(x.shape[:xnc]) + tuple(y.shape[ync:])))


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
