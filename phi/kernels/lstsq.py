"""The ``lstsq`` kernel."""

from __future__ import annotations

import numpy as np

from phi.common.scalar import Scalar
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel

__all__ = ["lstsq"]


# Paddle 2.6.2 CPU registrations (corpus cpu_ops.json)
REAL = ["float32", "float64"]


@register_kernel("lstsq", ("CPU", "GPU"), dtypes=REAL)
def lstsq(ctx, x: Tensor, y: Tensor, rcond: Scalar, driver: str
          ) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """Least squares min |X B - Y|; Residuals (squared, per column) when m > n and the driver
    is not gelsy; Rank for drivers other than gels; SingularValues for gelsd / gelss."""
    xp = ctx.xp
    if driver not in ("gels", "gelsy", "gelsd", "gelss"):
        raise InvalidArgument(f"lstsq: Attr(driver) must be one of gels, gelsy, gelsd, gelss, "
                              f"but received '{driver}'.")
    m, n = x.shape[-2:]
    k = y.shape[-1]
    batch = x.shape[:-2]
    rc = float(rcond.value if isinstance(rcond, Scalar) else rcond)
    nb = int(np.prod(batch))
    a = x.reshape(nb, m, n).astype(np.float64)
    b = y.reshape(nb, m, k).astype(np.float64)
    eps = np.finfo(x.dtype).eps
    sols, ranks, svs = [], [], []
    for ai, bi in zip(a, b, strict=True):
        sol, _, rank, sv = np.linalg.lstsq(ai, bi, rcond=rc if rc > 0 else eps * max(m, n))
        sols.append(sol)
        ranks.append(rank)
        svs.append(sv)
    sol = xp.asarray(sols, np.float64).reshape((*batch, n, k))
    if m > n and driver != "gelsy":
        res = ((x.astype(np.float64) @ sol - y) ** 2).sum(axis=-2).astype(x.dtype)
    else:
        res = xp.zeros((0,), x.dtype)
    # gels computes no rank and gels / gelsy no singular values: Paddle leaves those outputs
    # unwritten (uninitialised memory of their InferMeta dims); zeros here
    rank = xp.asarray(ranks, np.int32).reshape(batch)
    svs = xp.asarray(svs, x.dtype).reshape((*batch, min(m, n)))
    if driver == "gels":
        rank = xp.zeros(batch, np.int32)
    sv = svs
    if driver not in ("gelsd", "gelss"):
        sv = xp.zeros_like(sv)
    return sol.astype(x.dtype), res, rank, sv
