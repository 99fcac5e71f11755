"""The ``one_hot_raw`` kernel."""

from __future__ import annotations

from phi.common.data_type import DataType
from phi.common.scalar import Scalar
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel

__all__ = ["one_hot_raw"]


@register_kernel("one_hot_raw", ("CPU", "GPU"), dtypes=["int32", "int64"],
                 output_defs={0: {"dtype": DataType.UNDEFINED}})
def one_hot_raw(ctx, x: Tensor, depth: Scalar, dtype: DataType,
                allow_out_of_range: bool) -> Tensor:
    """One-hot rows of ``depth`` along a new last axis, in ``dtype`` (float32 when undefined);
    an index outside [0, depth) is an error unless ``allow_out_of_range`` (then a zero row)."""
    xp = ctx.xp
    n = int(depth.value if isinstance(depth, Scalar) else depth)
    out_dtype = DataType.FLOAT32 if dtype is DataType.UNDEFINED else dtype
    if not allow_out_of_range and x.size:
        lo, hi = int(xp.min(x)), int(xp.max(x))
        if lo < 0:
            raise InvalidArgument("Illegal index value, Input(input) value should be at least "
                                  f"0, but received input ({lo}) less than 0")
        if hi >= n:
            raise InvalidArgument("Illegal index value, Input(input) value should be less than "
                                  f"Input(depth), but received input ({hi}) not less than "
                                  f"depth ({n})")
    hot = xp.expand_dims(x, -1) == xp.arange(n, dtype=x.dtype)
    return ctx.astype(hot, out_dtype)
