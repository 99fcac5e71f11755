"""The ``view_dtype`` and ``view_shape`` kernels."""

from __future__ import annotations



from phi.common.data_type import DataType
from phi.common.layout import DataLayout
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.infermeta.funcs import reshape_out_dims
from phi.kernels.funcs import ALL_DTYPES, owned

__all__ = ["view_dtype", "view_shape"]


# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json, the ALL_LAYOUT keys)
_ALL12 = list(ALL_DTYPES)


# tensor_unfold, as_strided, view_dtype and view_shape exist for the STRIDED layout only (as in
# Paddle 2.6.2): no dense kernel key selects them, so legacy programs fail with NotFound where
# Paddle raises "There are no kernels which are registered"; the functions serve direct calls
STRIDED_DTYPES = _ALL12
STRIDED = DataLayout.STRIDED


@register_kernel("view_shape", ("CPU", "GPU"), dtypes=STRIDED_DTYPES, layout=STRIDED)
def view_shape(ctx, input: Tensor, dims: list[int]) -> Tensor:
    """input with dims ``dims`` (one -1 inferred)."""
    return ctx.xp.reshape(owned(ctx.xp, input), reshape_out_dims(input.shape, dims))


@register_kernel("view_dtype", ("CPU", "GPU"), dtypes=STRIDED_DTYPES, layout=STRIDED,
                 output_defs={0: {"dtype": DataType.UNDEFINED}})
def view_dtype(ctx, input: Tensor, dtype: DataType) -> Tensor:
    """input's bytes read as ``dtype`` (the last dim rescaled)."""
    xp = ctx.xp
    data = xp.ascontiguousarray(input)
    if data.ndim == 0:
        data = xp.reshape(data, (1,))
        if data.dtype.itemsize != dtype.itemsize:
            raise InvalidArgument("view_dtype: a 0-D tensor can only be viewed as a dtype of "
                                  "the same size.")
        return owned(xp, xp.reshape(data.view(ctx.xp_dtype(dtype)), ()))
    if (data.shape[-1] * data.dtype.itemsize) % dtype.itemsize:
        raise InvalidArgument(f"view_dtype: the last dim {data.shape[-1]} of {input.dtype} "
                              f"elements does not divide into {dtype} elements.")
    return owned(xp, data.view(ctx.xp_dtype(dtype)))
