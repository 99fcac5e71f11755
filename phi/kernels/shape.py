"""The ``shape`` kernel."""

from __future__ import annotations

from phi.common.backend import Backend
from phi.common.data_type import DataType
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel

__all__ = ["shape"]


SHAPE_DTYPES = ["bool", "int8", "uint8", "int32", "int64", "float32", "float64", "complex64",
                "complex128"]


_STAYS = {"backend": Backend.ALL_BACKEND}  # only the dims are read: never moved


@register_kernel("shape", ("CPU", "GPU"), dtypes=SHAPE_DTYPES, input_defs={"input": _STAYS},
                 output_defs={0: {"dtype": DataType.INT32}})
def shape(ctx, input: Tensor) -> Tensor:
    """x's dims as an int32 vector."""
    return ctx.asarray(list(input.shape), DataType.INT32)
