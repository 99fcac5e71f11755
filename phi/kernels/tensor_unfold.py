"""The ``tensor_unfold`` kernel."""

from __future__ import annotations



from phi.common.layout import DataLayout
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.infermeta.funcs import norm_axis
from phi.kernels.funcs import ALL_DTYPES, owned

__all__ = ["tensor_unfold"]


# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json, the ALL_LAYOUT keys)
_ALL12 = list(ALL_DTYPES)


# tensor_unfold, as_strided, view_dtype and view_shape exist for the STRIDED layout only (as in
# Paddle 2.6.2): no dense kernel key selects them, so legacy programs fail with NotFound where
# Paddle raises "There are no kernels which are registered"; the functions serve direct calls
STRIDED_DTYPES = _ALL12
STRIDED = DataLayout.STRIDED


# -- stride views (STRIDED layout only, see STRIDED_DTYPES) ------------------------------------

@register_kernel("tensor_unfold", ("CPU", "GPU"), dtypes=STRIDED_DTYPES, layout=STRIDED)
def tensor_unfold(ctx, input: Tensor, axis: int, size: int, step: int) -> Tensor:
    """Windows of ``size`` every ``step`` along ``axis``, as a new last dim."""
    xp = ctx.xp
    if input.ndim == 0:
        return xp.reshape(owned(xp, input), (1,))
    a = norm_axis(axis, input.ndim, "tensor_unfold")
    n = input.shape[a]
    if size > n or step <= 0:
        raise InvalidArgument(f"paddle.unfold size({size}) must be less than shape[axis]({n}) "
                              f"and step({step}) greater than 0.")
    starts = range(0, n - size + 1, step)
    wins = [xp.moveaxis(xp.take(input, xp.arange(s, s + size), axis=a), a, -1)
            for s in starts]
    return owned(xp, xp.stack(wins, axis=a))
