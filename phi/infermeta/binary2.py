"""InferMeta of helper `binary2`'s ops (Paddle's paddle/phi/infermeta/{unary,binary,ternary,
multiary}.cc): atan2, dot, mv, bmm, addmm, kron, cross, lerp, allclose / isclose, equal_all,
cum ops, trace, multiplex, dist, searchsorted, bincount, histogram.  Dims of -1 are unknown at
compile time."""

from __future__ import annotations

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.infermeta._utils import UNKNOWN, fmt_dims

__all__ = ["atan2_infer_meta"]


def _same(a: int, b: int) -> bool:
    return a == b or UNKNOWN in (a, b)


def atan2_infer_meta(x, y, out) -> None:
    """Atan2InferMeta: x and y of the same rank and dims; integers give float64."""
    if len(x.dims) != len(y.dims):
        raise InvalidArgument(
            f"atan2: the rank ({len(x.dims)}) of X1 shall be same as rank ({len(y.dims)}) of X2.")
    for i, (a, b) in enumerate(zip(x.dims, y.dims, strict=True)):
        if not _same(a, b):
            raise InvalidArgument(
                f"atan2: X1 {fmt_dims(x.dims)} and X2 {fmt_dims(y.dims)} must have the same "
                f"dims, but dim {i} is {a} and {b}.")
    out.share_meta(x)
    if x.dtype in (DataType.INT32, DataType.INT64):
        out.set_dtype(DataType.FLOAT64)
