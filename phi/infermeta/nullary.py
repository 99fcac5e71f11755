"""InferMeta functions without tensor inputs (Paddle's paddle/phi/infermeta/nullary.cc)."""

from __future__ import annotations

from phi.common.data_type import DataType
from phi.common.layout import DataLayout
from phi.core.errors import InvalidArgument
from phi.infermeta._utils import UNKNOWN, fmt_dims, int_array_data

__all__ = ["create_infer_meta"]


def create_infer_meta(shape, dtype: DataType, out) -> None:
    """CreateInferMeta (full): dims from ``shape``, the given dtype, layout NCHW.

    -1 is accepted as a size unknown at compile time (a shape fed by a tensor); any other negative
    size is refused here rather than at allocation, where Paddle reports it.
    """
    dims = int_array_data(shape)
    for i, d in enumerate(dims):
        if d < UNKNOWN:
            raise InvalidArgument(
                f"The shape of the output must not contain negative sizes (except -1 for a size "
                f"unknown at compile time), but received shape = {fmt_dims(dims)}, "
                f"shape[{i}] = {d}."
            )
    out.set_dims(dims)
    out.set_dtype(dtype)
    # Paddle's CreateInferMetaBase fixes the layout to NCHW
    out.set_layout(DataLayout.NCHW)


def assign_value_infer_meta(shape, dtype, out) -> None:
    """AssignValueInferMeta: ``shape`` and ``dtype``."""
    out.set_dims(tuple(shape))
    out.set_dtype(dtype)


__all__ += ["assign_value_infer_meta"]


def _check_one(meta, what: str, op: str) -> None:
    n = 1
    for d in meta.dims:
        n = UNKNOWN if UNKNOWN in (n, d) else n * d
    if n not in (1, UNKNOWN):
        raise InvalidArgument(f"The numel of Input({what}) of {op} should be 1, but got {n}.")


def arange_tensor_infer_meta(start, end, step, out) -> None:
    """ArangeTensorInferMeta: one-element start / end / step; [-1] of start's dtype (the
    length depends on their values: the kernel decides)."""
    for m, what in ((start, "Start"), (end, "End"), (step, "Step")):
        _check_one(m, what, "range")
    out.set_dims((UNKNOWN,))
    out.set_dtype(start.dtype)


def linspace_infer_meta(start, stop, number, dtype, out) -> None:
    """LinspaceInferMeta: one-element start / stop / num; [-1] of ``dtype``."""
    for m, what in ((start, "Start"), (stop, "Stop"), (number, "Num")):
        _check_one(m, what, "linspace")
    out.set_dims((UNKNOWN,))
    out.set_dtype(dtype)


__all__ += ["arange_tensor_infer_meta", "linspace_infer_meta"]
