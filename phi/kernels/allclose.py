"""The ``allclose`` kernel."""

from __future__ import annotations

from phi.common.data_type import DataType
from phi.common.scalar import Scalar
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import as_array
from phi.kernels.funcs.reduce import isclose_values

__all__ = ["allclose"]


_BOOL_OUT = {0: {"dtype": DataType.BOOL}}


@register_kernel("allclose", ("CPU", "GPU"), dtypes=["float32", "float64"],
                 output_defs=_BOOL_OUT)
def allclose(ctx, x: Tensor, y: Tensor, rtol: Scalar, atol: Scalar, equal_nan: bool) -> Tensor:
    """All elements close (true for empty tensors), a 0-D bool."""
    return as_array(ctx.xp, ctx.xp.all(isclose_values(ctx, x, y, rtol, atol, equal_nan)))
