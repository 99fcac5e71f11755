"""fused_softplus (oneDNN): softplus(x) = log(1 + exp(beta x)) / beta, then the activation
post-op (softplus_activation_onednn_fuse_pass).  oneDNN has no threshold: the attribute is
ignored (Paddle's kernel marks it unused), so large inputs are not passed through linearly
at the threshold the plain softplus kernel uses."""

from __future__ import annotations

import numpy as np

from phi.common.layout import DataLayout
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import quiet
from phi.kernels.funcs.onednn_post_ops import apply_activation

__all__ = ["fused_softplus"]


@register_kernel("fused_softplus", ("ONEDNN",), dtypes=["float32"], layout=DataLayout.ONEDNN)
def fused_softplus(ctx, x: Tensor, beta: float, threshold: float, fuse_activation: str,
                   fuse_alpha: float, fuse_beta: float) -> Tensor:
    """act(log1p(exp(beta x)) / beta), computed in float64 without overflow."""
    xp = ctx.xp
    b = float(np.float32(beta))
    with quiet(xp):
        z = x.astype(np.float64) * b
        sp = xp.maximum(z, 0) + xp.log1p(xp.exp(-xp.abs(z)))
        out = (sp / b).astype(x.dtype)
    return xp.ascontiguousarray(apply_activation(xp, out, fuse_activation, fuse_alpha,
                                                 fuse_beta, "fused_softplus"))
