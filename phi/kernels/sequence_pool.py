"""sequence_pool (Paddle's paddle/phi/kernels/impl/sequence_pool_kernel_impl.h): one row per
sequence of X's last LoD level — AVERAGE, SUM, SQRT (sum / sqrt(len)), MAX (with MaxIndex),
LAST, FIRST; an empty sequence gives pad_value (MaxIndex -1).  Out keeps X's higher levels."""

from __future__ import annotations

from itertools import pairwise

import numpy as np

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.core.kernel import LoDTensor, Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import quiet

__all__ = ["sequence_pool"]


_POOLS = ("AVERAGE", "SUM", "SQRT", "MAX", "LAST", "FIRST")


@register_kernel("sequence_pool", "CPU", dtypes=["float32", "float64"],
                 output_defs={1: {"dtype": DataType.INT32}})
def sequence_pool(ctx, x: LoDTensor, is_test: bool, pooltype: str, pad_value: float
                  ) -> tuple[LoDTensor, Tensor]:
    """(Out [sequences, ...], MaxIndex: the row of each maximum, MAX only)."""
    if not x.lod:
        raise InvalidArgument("sequence_pool: Input(X) must hold a LoD (sequence offsets).")
    if pooltype not in _POOLS:
        raise InvalidArgument(f"sequence_pool: pooltype must be one of {_POOLS}, got "
                              f"{pooltype!r}.")
    data = x.data
    level = x.lod[-1]
    if level[-1] != data.shape[0]:
        raise InvalidArgument(f"sequence_pool: the LoD ends at {level[-1]}, X has "
                              f"{data.shape[0]} rows.")
    t = data.dtype.type
    n = len(level) - 1
    out = np.full((n, *data.shape[1:]), t(np.float32(pad_value)), data.dtype)
    index = np.full((n, *data.shape[1:]), -1, np.int32)
    for i, (a, b) in enumerate(pairwise(level)):
        if a == b:
            continue
        seq = data[a:b]
        if pooltype == "AVERAGE":
            out[i] = seq.sum(axis=0, dtype=data.dtype) / t(b - a)
        elif pooltype == "SUM":
            out[i] = seq.sum(axis=0, dtype=data.dtype)
        elif pooltype == "SQRT":
            out[i] = seq.sum(axis=0, dtype=data.dtype) / np.sqrt(t(b - a))
        elif pooltype == "MAX":
            arg = np.argmax(seq, axis=0)  # the first maximum, as Paddle's strict > keeps it
            out[i] = np.take_along_axis(seq, arg[None], axis=0)[0]
            index[i] = arg.astype(np.int32) + a
        elif pooltype == "LAST":
            out[i] = seq[-1]
        else:
            out[i] = seq[0]
    return ctx.lod_tensor(out, x.lod[:-1]), index


@register_kernel("sequence_pool_grad", "CPU", dtypes=["float32", "float64"],
                 input_defs={"max_index": {"dtype": DataType.ALL_DTYPE}})
def sequence_pool_grad(ctx, x: LoDTensor, max_index: Tensor | None, out_grad: Tensor,
                       is_test: bool, pooltype: str, pad_value: float) -> LoDTensor:
    """Each sequence's row of Out@GRAD back onto its rows (X's last level): AVERAGE / len,
    SUM as is, SQRT / sqrt(len), MAX at MaxIndex, LAST / FIRST onto that row; empty
    sequences give nothing.  X@GRAD keeps X's LoD."""
    data = x.data
    t = data.dtype.type
    dx = np.zeros_like(data)
    for i, (a, b) in enumerate(pairwise(x.lod[-1])):
        if a == b:
            continue
        g = out_grad[i]
        with quiet(np):
            if pooltype == "AVERAGE":
                dx[a:b] = g / t(b - a)
            elif pooltype == "SUM":
                dx[a:b] = g
            elif pooltype == "SQRT":
                dx[a:b] = g / np.sqrt(t(b - a))
            elif pooltype == "LAST":
                dx[b - 1] = g
            elif pooltype == "FIRST":
                dx[a] = g
            elif pooltype == "MAX":
                rows = np.asarray(max_index[i]).reshape(-1).astype(np.int64)
                flat = dx.reshape(dx.shape[0], -1)
                cols = np.arange(rows.size)
                ok = rows >= 0
                flat[rows[ok], cols[ok]] = np.reshape(g, -1)[ok]
    return ctx.lod_tensor(dx, x.lod)
