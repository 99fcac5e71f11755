"""The ``eye`` kernel."""

from __future__ import annotations



from phi.common.data_type import DataType
from phi.common.scalar import Scalar
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import scalar_as
from phi.kernels.funcs.manipulation import EYE_DTYPES, diag_index

__all__ = ["eye"]


def _scalar_int(value) -> int:
    v = value.value if isinstance(value, Scalar) else value
    return int(v.real if isinstance(v, complex) else v)


@register_kernel("eye", ("CPU", "GPU"), dtypes=EYE_DTYPES)
def eye(ctx, num_rows: Scalar, num_columns: Scalar, dtype: DataType) -> Tensor:
    """A [rows, columns] matrix with ones on its diagonal (columns -1: rows)."""
    rows, cols = _scalar_int(num_rows), _scalar_int(num_columns)
    cols = rows if cols == -1 else cols
    if rows < 0 or cols < 0:
        raise InvalidArgument(f"eye: num_rows and num_columns must be non-negative, but "
                              f"received ({rows}, {cols}).")
    out = ctx.full((rows, cols), scalar_as(ctx, 0, dtype), dtype)
    r, c = diag_index(ctx.xp, rows, cols, 0)
    out[r, c] = scalar_as(ctx, 1, dtype)
    return out
