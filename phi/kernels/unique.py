"""The ``unique`` and ``unique_raw`` kernels."""

from __future__ import annotations



from phi.common.data_type import DataType
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.creation import UNIQUE_DTYPES, unique_values

__all__ = ["unique", "unique_raw"]


_INDEX_OUTS = {i: {"dtype": DataType.UNDEFINED} for i in (1, 2, 3)}


@register_kernel("unique", ("CPU", "GPU"), dtypes=UNIQUE_DTYPES, output_defs=_INDEX_OUTS)
def unique(ctx, x: Tensor, return_index: bool, return_inverse: bool, return_counts: bool,
           axis: list[int], dtype: DataType) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """(sorted unique values, index of each one's first occurrence, index of each element's
    value in the unique ones, counts), of x flattened or of the slices along ``axis``."""
    return unique_values(ctx, x, return_index, return_inverse, return_counts, axis, dtype, True)


@register_kernel("unique_raw", ("CPU", "GPU"), dtypes=UNIQUE_DTYPES, output_defs=_INDEX_OUTS)
def unique_raw(ctx, x: Tensor, return_index: bool, return_inverse: bool, return_counts: bool,
               axis: list[int], dtype: DataType,
               is_sorted: bool) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """``unique``; without ``is_sorted`` the values come in order of first appearance."""
    return unique_values(ctx, x, return_index, return_inverse, return_counts, axis, dtype,
                         is_sorted)
