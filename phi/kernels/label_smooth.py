"""The ``label_smooth`` and ``label_smooth_grad`` kernels."""

from __future__ import annotations

import numpy as np

from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import as_array, quiet

__all__ = ["label_smooth"]


# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json)
FLOAT_DTYPES = ["float32", "float64"]


@register_kernel("label_smooth", ("CPU", "GPU"), dtypes=FLOAT_DTYPES)
def label_smooth(ctx, label: Tensor, prior_dist: Tensor | None, epsilon: float) -> Tensor:
    """(1 - eps) * label + eps / C, or + eps * prior_dist (C: label's last dim)."""
    xp = ctx.xp
    t = label.dtype.type
    e = t(epsilon)
    with quiet(xp):
        if prior_dist is not None:
            extra = e * xp.reshape(prior_dist, (-1,))
        else:
            extra = e / t(label.shape[-1] if label.ndim else 1)
        return as_array(xp, (t(1) - e) * label + extra)


# Paddle 2.6.2 CPU registrations of the grad kernels (corpus phi_kernels.json)
FLOATS = ["float32", "float64"]


@register_kernel("label_smooth_grad", ("CPU", "GPU"), dtypes=FLOATS)
def label_smooth_grad(ctx, out_grad: Tensor, epsilon: float) -> Tensor:
    """(1 - eps) * dout (eps in the float attribute's precision, as static_cast<T>)."""
    xp = ctx.xp
    t = out_grad.dtype.type
    with quiet(xp):
        return as_array(xp, t(1 - np.float32(epsilon)) * out_grad)
