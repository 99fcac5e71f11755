"""The ``fused_softmax_mask``, ``fused_softmax_mask_grad`` and
``fused_softmax_mask_upper_triangle`` kernels."""

from __future__ import annotations


from phi.core.errors import Unimplemented
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import as_array, quiet
from phi.kernels.funcs.fused import softmax_last
from phi.kernels.funcs.softmax import softmax_backward


FLOATS = ["float32", "float64"]


@register_kernel("fused_softmax_mask", ("CPU",), dtypes=FLOATS)
def fused_softmax_mask(ctx, x: Tensor, mask: Tensor) -> Tensor:
    """softmax(X + Mask) over the last axis."""
    xp = ctx.xp
    with quiet(xp):
        return as_array(xp, softmax_last(xp, x + mask).astype(x.dtype))


@register_kernel("fused_softmax_mask_upper_triangle", ("CPU",), dtypes=FLOATS)
def fused_softmax_mask_upper_triangle(ctx, x: Tensor) -> Tensor:
    """Paddle 2.6.2 registers it on CPU and raises: the op is GPU-only."""
    raise Unimplemented("Softmax mask fuse op only supports GPU now.")


@register_kernel("fused_softmax_mask_grad", ("CPU", "GPU"), dtypes=FLOATS)
def fused_softmax_mask_grad(ctx, softmax: Tensor, out_grad: Tensor) -> Tensor:
    """The softmax gradient along the last axis (the mask is a constant addend)."""
    return softmax_backward(ctx.xp, softmax, out_grad, softmax.ndim - 1)
