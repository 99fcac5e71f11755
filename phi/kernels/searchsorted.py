"""The ``searchsorted`` kernel."""

from __future__ import annotations

from phi.common.data_type import DataType
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel

__all__ = ["searchsorted"]


_ANY_OUT = {0: {"dtype": DataType.UNDEFINED}}


_CUM_DTYPES = ["float32", "float64", "int32", "int64"]


@register_kernel("searchsorted", ("CPU", "GPU"), dtypes=_CUM_DTYPES,
                 input_defs={"values": {"dtype": DataType.ALL_DTYPE}}, output_defs=_ANY_OUT)
def searchsorted(ctx, sorted_sequence: Tensor, values: Tensor, out_int32: bool,
                 right: bool) -> Tensor:
    """Insertion indices of ``values`` in the last dim of ``sorted_sequence`` (1-D: shared by
    all values; else row by row); a NaN value goes after everything."""
    xp = ctx.xp
    side = "right" if right else "left"
    seq = sorted_sequence
    n = seq.shape[-1] if seq.ndim else 1
    if seq.ndim <= 1:
        out = xp.searchsorted(xp.reshape(seq, (-1,)), values, side=side)
    else:
        lead = 1
        for d in seq.shape[:-1]:
            lead *= d
        rows = xp.reshape(seq, (lead, n))
        vals = xp.reshape(values, (lead, values.shape[-1]))
        out = xp.zeros(vals.shape, dtype=xp.int64)
        for i in range(lead):
            out[i] = xp.searchsorted(rows[i], vals[i], side=side)
        out = xp.reshape(out, values.shape)
    if values.dtype.kind == "f":
        out = xp.where(xp.isnan(values), n, out)
    return ctx.astype(xp.asarray(out), DataType.INT32 if out_int32 else DataType.INT64)
