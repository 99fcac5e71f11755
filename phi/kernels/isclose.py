"""The ``isclose`` kernel."""

from __future__ import annotations

from phi.common.data_type import DataType
from phi.common.scalar import Scalar
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.reduce import isclose_values

__all__ = ["isclose"]


_BOOL_OUT = {0: {"dtype": DataType.BOOL}}


@register_kernel("isclose", ("CPU", "GPU"), dtypes=["float32", "float64", "complex64",
                                                    "complex128"], output_defs=_BOOL_OUT)
def isclose(ctx, x: Tensor, y: Tensor, rtol: Scalar, atol: Scalar, equal_nan: bool) -> Tensor:
    """Element-wise closeness (IscloseFunctor)."""
    return isclose_values(ctx, x, y, rtol, atol, equal_nan)
