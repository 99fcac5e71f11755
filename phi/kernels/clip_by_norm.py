"""The ``clip_by_norm`` kernel."""

from __future__ import annotations

import numpy as np

from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.optimizers import float_attr

__all__ = ["clip_by_norm"]


@register_kernel("clip_by_norm", "CPU", dtypes=["float32"])
def clip_by_norm(ctx, x: Tensor, max_norm: float) -> Tensor:
    """x * s with Paddle's s = [n <= m] + (1 - [n <= m]) * m / (n + eps), n = ||x||, m =
    max_norm, eps = 1e-6 when n <= 1e-30 (so a NaN norm gives NaN everywhere, as in Paddle)."""
    t = x.dtype.type
    with np.errstate(all="ignore"):
        norm = np.sqrt(np.sum(x * x, dtype=x.dtype))
        m = float_attr(max_norm, x.dtype)
        inside = t(1) if norm <= m else t(0)
        eps = t(1e-6) if norm <= t(1e-30) else t(0)
        scale = inside + (t(1) - inside) * m / (norm + eps)
        return (x * scale).astype(x.dtype)
