"""The ``segment_pool`` kernel."""

from __future__ import annotations

import numpy as np

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import half_op, to_float16
from phi.kernels.funcs.graph import mean_divide
from phi.kernels.funcs.indexing import reduce_into, to_device, to_host

__all__ = ["segment_pool"]


# Paddle 2.6.2 CPU registrations (corpus cpu_ops.json)
SEGMENT_DTYPES = ["float16", "float32", "float64", "int32", "int64"]


_ANY = {"dtype": DataType.ALL_DTYPE}


# -- segment_pool -------------------------------------------------------------------------------

@register_kernel("segment_pool", ("CPU", "GPU"), dtypes=SEGMENT_DTYPES,
                 input_defs={"segment_ids": _ANY})
def segment_pool(ctx, x: Tensor, segment_ids: Tensor, pooltype: str) -> tuple[Tensor, Tensor]:
    """(SUM / MEAN / MAX / MIN of x's rows per sorted segment id, rows per segment [n, 1]);
    segments without rows give zeros."""
    if pooltype not in ("SUM", "MEAN", "MAX", "MIN"):
        raise InvalidArgument(f"Unsupported segment pooling type: {pooltype}; expected SUM, "
                              "MEAN, MAX or MIN.")
    h_x, ids = to_host(ctx, x), to_host(ctx, segment_ids).reshape(-1).astype(np.int64)
    if ids.size != h_x.shape[0]:
        raise InvalidArgument(f"Segment_ids should be the same size as dimension 0 of input X, "
                              f"but got {ids.size} ids and {h_x.shape[0]} rows.")
    unsorted = np.nonzero(ids[1:] < ids[:-1])[0]
    if unsorted.size:
        i = int(unsorted[0])
        raise InvalidArgument(f"The segment ids should be sorted, but got segment_ids[{i}]:"
                              f"{ids[i]} > segment_ids[{i + 1}]:{ids[i + 1]}.")
    if ids.size and ids[0] < 0:
        raise InvalidArgument(f"The segment ids should be >= 0, but got {ids[0]}.")
    n = int(ids[-1]) + 1 if ids.size else 0
    out = np.zeros((n, *h_x.shape[1:]), h_x.dtype)
    counts = np.bincount(ids, minlength=n)
    if pooltype in ("SUM", "MEAN"):
        reduce_into(ctx, out, ids, h_x, "add")
        if pooltype == "MEAN":
            if ctx.data_type(out) is DataType.FLOAT16:
                hit = counts > 0
                # Eigen's MeanReducer divides by T(count): the count truncated to float16
                # (2051 -> 2050: Paddle-made case hb_segment_pool_mean_2051_f16)
                div = to_float16(ctx, counts[hit]).reshape((-1,) + (1,) * (out.ndim - 1))
                out[hit] = half_op(ctx, np.divide, out[hit], np.broadcast_to(div,
                                                                           out[hit].shape))
            else:
                mean_divide(out, counts)
    elif ids.size:
        starts = np.r_[0, np.nonzero(ids[1:] != ids[:-1])[0] + 1]
        out[ids[starts]] = h_x[starts]
        rest = np.setdiff1d(np.arange(ids.size), starts)
        reduce_into(ctx, out, ids[rest], h_x[rest], "max" if pooltype == "MAX" else "min")
    summed = counts.astype(h_x.dtype).reshape(n, 1)
    return to_device(ctx, out), to_device(ctx, summed)
