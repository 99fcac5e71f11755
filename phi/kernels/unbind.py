"""The ``unbind`` kernel."""

from __future__ import annotations



from phi.common.layout import DataLayout
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.infermeta.funcs import norm_axis
from phi.kernels.funcs import ALL_DTYPES, owned

__all__ = ["unbind"]


# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json, the ALL_LAYOUT keys)
_ALL12 = list(ALL_DTYPES)
_F_I = ["float32", "float64", "int32", "int64"]


UNBIND_DTYPES = ["bool", "float16", "bfloat16", *_F_I, "complex64", "complex128"]


# tensor_unfold, as_strided, view_dtype and view_shape exist for the STRIDED layout only (as in
# Paddle 2.6.2): no dense kernel key selects them, so legacy programs fail with NotFound where
# Paddle raises "There are no kernels which are registered"; the functions serve direct calls
STRIDED_DTYPES = _ALL12
STRIDED = DataLayout.STRIDED


@register_kernel("unbind", ("CPU", "GPU"), dtypes=UNBIND_DTYPES)
@register_kernel("unbind", ("CPU", "GPU"), dtypes=STRIDED_DTYPES, layout=STRIDED)
def unbind(ctx, x: Tensor, axis: int) -> list[Tensor]:
    """The slices of x along ``axis``, that axis removed."""
    xp = ctx.xp
    a = norm_axis(axis, x.ndim, "unbind")
    return [owned(xp, xp.take(x, i, axis=a)) for i in range(x.shape[a])]
