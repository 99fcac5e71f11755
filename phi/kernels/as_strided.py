"""The ``as_strided`` kernel."""

from __future__ import annotations



from phi.common.layout import DataLayout
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import ALL_DTYPES, owned

__all__ = ["as_strided"]


# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json, the ALL_LAYOUT keys)
_ALL12 = list(ALL_DTYPES)


# tensor_unfold, as_strided, view_dtype and view_shape exist for the STRIDED layout only (as in
# Paddle 2.6.2): no dense kernel key selects them, so legacy programs fail with NotFound where
# Paddle raises "There are no kernels which are registered"; the functions serve direct calls
STRIDED_DTYPES = _ALL12
STRIDED = DataLayout.STRIDED


@register_kernel("as_strided", ("CPU", "GPU"), dtypes=STRIDED_DTYPES, layout=STRIDED)
def as_strided(ctx, input: Tensor, dims: list[int], stride: list[int], offset: int) -> Tensor:
    """The elements at offset + sum(index * stride) of input's flat data, shaped ``dims``."""
    xp = ctx.xp
    flat = xp.reshape(input, (-1,))
    index = xp.full(tuple(dims), int(offset), dtype=xp.int64)
    for k, (d, s) in enumerate(zip(dims, stride, strict=True)):
        shape = [1] * len(dims)
        shape[k] = d
        index = index + xp.reshape(xp.arange(d, dtype=xp.int64) * int(s), shape)
    if index.size and (int(index.min()) < 0 or int(index.max()) >= flat.shape[0]):
        raise InvalidArgument(f"as_strided: dims {list(dims)}, stride {list(stride)} and offset "
                              f"{offset} reach outside the {flat.shape[0]} elements of input.")
    return owned(xp, flat[index])
