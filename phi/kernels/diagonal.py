"""The ``diagonal`` and ``diagonal_grad`` kernels."""

from __future__ import annotations



from phi.common.layout import DataLayout
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.infermeta.funcs import diagonal_out_dims
from phi.kernels.funcs import ALL_DTYPES, owned
from phi.kernels.funcs.backward import adjoint, grad_kernel

__all__ = ["diagonal"]


# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json, the ALL_LAYOUT keys)
_ALL12 = list(ALL_DTYPES)


DIAGONAL_DTYPES = ["bool", "float32", "float64", "int32", "int64", "complex64", "complex128"]


# tensor_unfold, as_strided, view_dtype and view_shape exist for the STRIDED layout only (as in
# Paddle 2.6.2): no dense kernel key selects them, so legacy programs fail with NotFound where
# Paddle raises "There are no kernels which are registered"; the functions serve direct calls
STRIDED_DTYPES = _ALL12
STRIDED = DataLayout.STRIDED


@register_kernel("diagonal", ("CPU", "GPU"), dtypes=DIAGONAL_DTYPES)
@register_kernel("diagonal", ("CPU", "GPU"), dtypes=STRIDED_DTYPES, layout=STRIDED)
def diagonal(ctx, x: Tensor, offset: int, axis1: int, axis2: int) -> Tensor:
    """The ``offset`` diagonals of the planes (axis1, axis2), as the last dim."""
    diagonal_out_dims(tuple(x.shape), offset, axis1, axis2)
    a1, a2 = axis1 % x.ndim, axis2 % x.ndim
    return owned(ctx.xp, ctx.xp.diagonal(x, offset=offset, axis1=a1, axis2=a2))


ALL12 = list(ALL_DTYPES)


@grad_kernel("diagonal_grad", ("CPU", "GPU"),
                 dtypes=["bool", "float32", "float64", "int32", "int64", "complex64",
                         "complex128"])
@grad_kernel("diagonal_grad", ("CPU", "GPU"), dtypes=ALL12, layout=STRIDED)
def diagonal_grad(ctx, input: Tensor, out_grad: Tensor, offset: int, axis1: int,
                  axis2: int) -> Tensor:
    """Zeros with out_grad on the diagonal that diagonal read."""
    return adjoint(ctx, input.shape, out_grad,
                   lambda ids: diagonal(ctx, ids, offset, axis1, axis2))
