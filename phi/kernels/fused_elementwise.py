"""fused_elementwise_add / _sub / _mul / _div (oneDNN binary): X op Y with Paddle's axis
broadcast, the activation post-op, times fused_output_scale; fused_unsqueeze2_axes
unsqueezes the result's dims (operator_unsqueeze2_onednn_fuse_pass).  float32 only (the int8
scale_x / scale_y / scale_out raise Unimplemented)."""

from __future__ import annotations

import numpy as np

from phi.common.layout import DataLayout
from phi.core.errors import InvalidArgument, Unimplemented
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import quiet
from phi.kernels.funcs.onednn_post_ops import apply_activation, unsqueeze_dims

__all__ = ["fused_elementwise"]


_OPS = {
    "fused_elementwise_add": np.add,
    "fused_elementwise_sub": np.subtract,
    "fused_elementwise_mul": np.multiply,
    "fused_elementwise_div": np.divide,
}


def _align(xp, x, y, axis: int, op_type: str):
    """Paddle's elementwise broadcast: the lower-rank operand's dims start at ``axis`` of the
    other's (-1: trailing)."""
    if x.ndim == y.ndim:
        return x, y
    big, small = (x, y) if x.ndim > y.ndim else (y, x)
    start = big.ndim - small.ndim if axis == -1 else axis
    if start < 0 or start + small.ndim > big.ndim:
        raise InvalidArgument(f"{op_type}: axis {axis} does not place {list(small.shape)} "
                              f"inside {list(big.shape)}.")
    shape = (1,) * start + tuple(small.shape) + (1,) * (big.ndim - start - small.ndim)
    small = xp.reshape(small, shape)
    return (big, small) if x.ndim > y.ndim else (small, big)


def fused_elementwise(ctx, op_type: str, x, y, axis: int, fuse_activation: str,
                      fuse_alpha: float, fuse_beta: float, fused_output_scale: float,
                      fused_unsqueeze2_axes, scale_x: float, scale_y: float, scale_out: float):
    """The shared body of the four kernels."""
    xp = ctx.xp
    for name, value in (("scale_x", scale_x), ("scale_y", scale_y), ("scale_out", scale_out)):
        if float(value) != 1.0:
            raise Unimplemented(f"{op_type}: the int8 scales ({name}={value}) are not "
                                "implemented.")
    a, b = _align(xp, x, y, axis, op_type)
    try:
        shape = np.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        raise InvalidArgument(f"{op_type}: X {list(x.shape)} and Y {list(y.shape)} do not "
                              f"broadcast (axis={axis}).") from None
    with quiet(xp):
        out = _OPS[op_type](a, b).astype(x.dtype)
    out = apply_activation(xp, out, fuse_activation, fuse_alpha, fuse_beta, op_type)
    scale = np.float32(fused_output_scale)
    if scale != 1:
        out = (out * scale).astype(x.dtype)
    if fused_unsqueeze2_axes:
        out = xp.reshape(out, unsqueeze_dims(shape, fused_unsqueeze2_axes))
    return xp.ascontiguousarray(out)


def _register(op_type: str):
    @register_kernel(op_type, ("ONEDNN",), dtypes=["float32"], layout=DataLayout.ONEDNN)
    def kernel(ctx, x: Tensor, y: Tensor, axis: int, fuse_activation: str, fuse_alpha: float,
               fuse_beta: float, fused_output_scale: float, fused_unsqueeze2_axes: list[int],
               scale_x: float, scale_y: float, scale_out: float) -> Tensor:
        return fused_elementwise(ctx, op_type, x, y, axis, fuse_activation, fuse_alpha,
                                 fuse_beta, fused_output_scale, fused_unsqueeze2_axes,
                                 scale_x, scale_y, scale_out)

    kernel.__name__ = kernel.__qualname__ = op_type
    kernel.__doc__ = f"{op_type}: X {op_type.rsplit('_', 1)[1]} Y, activation, output scale."
    return kernel


fused_elementwise_add = _register("fused_elementwise_add")
fused_elementwise_sub = _register("fused_elementwise_sub")
fused_elementwise_mul = _register("fused_elementwise_mul")
fused_elementwise_div = _register("fused_elementwise_div")
