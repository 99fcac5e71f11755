"""The ``numel`` kernel."""

from __future__ import annotations

from phi.common.backend import Backend
from phi.common.data_type import DataType
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel

__all__ = ["numel"]


NUMEL_DTYPES = ["uint8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
                "float64", "bool", "complex64", "complex128"]
_STAYS = {"backend": Backend.ALL_BACKEND}  # only the dims are read: never moved


@register_kernel("numel", ("CPU", "GPU"), dtypes=NUMEL_DTYPES, input_defs={"input": _STAYS},
                 output_defs={0: {"dtype": DataType.INT64}})
def numel(ctx, input: Tensor) -> Tensor:
    """x's number of elements as a 0-D int64."""
    return ctx.asarray(int(input.size), DataType.INT64)
