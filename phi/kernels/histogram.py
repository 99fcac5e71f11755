"""The ``histogram`` kernel."""

from __future__ import annotations

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import quiet

__all__ = ["histogram"]


_CUM_DTYPES = ["float32", "float64", "int32", "int64"]


@register_kernel("histogram", ("CPU", "GPU"), dtypes=_CUM_DTYPES,
                 output_defs={0: {"dtype": DataType.INT64}})
def histogram(ctx, x: Tensor, bins: int, min: int, max: int) -> Tensor:
    """Counts (int64) of x in ``bins`` equal bins over [min, max] (both 0: x's own range; an
    empty range widens by 1 on each side); values outside are ignored, max goes in the last
    bin; the bin index is computed in x's type as Paddle does."""
    xp = ctx.xp
    if bins <= 0:
        raise InvalidArgument(f"histogram: The bins should be greater than 0, but received "
                              f"{bins}.")
    if min > max:
        raise InvalidArgument(f"histogram: max must be larger or equal to min, but received "
                              f"max = {max}, min = {min}.")
    flat = xp.reshape(x, (-1,))
    t = x.dtype.type
    lo, hi = t(min), t(max)
    if lo == hi and flat.size:
        lo, hi = flat.min(), flat.max()
    if lo == hi:
        lo, hi = lo - t(1), hi + t(1)
    if x.dtype.kind == "f" and not (xp.isfinite(lo) and xp.isfinite(hi)):
        raise InvalidArgument(f"histogram: range of min, max is not finite: [{lo}, {hi}].")
    keep = flat[(flat >= lo) & (flat <= hi)]
    with quiet(xp):
        if x.dtype.kind == "f":
            b = ((keep - lo) * t(bins) / (hi - lo)).astype(xp.int64)
        else:
            b = (keep - lo) * bins // (hi - lo)
    b = xp.minimum(b.astype(xp.int64), bins - 1)
    return xp.bincount(b, minlength=bins).astype(xp.int64)
