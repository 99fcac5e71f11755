"""The ``accuracy`` kernel."""

from __future__ import annotations

import numpy as np

from phi.common.data_type import DataType
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel

__all__ = ["accuracy"]


# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json)
FLOAT_DTYPES = ["float32", "float64"]


_ANY = {"dtype": DataType.ALL_DTYPE}  # labels, indices and state tensors of their own dtypes


# -- metrics --------------------------------------------------------------------------------------

@register_kernel("accuracy", ("CPU", "GPU"), dtypes=FLOAT_DTYPES,
                 input_defs={"indices": _ANY, "label": _ANY},
                 output_defs={0: {"dtype": DataType.FLOAT32}, 1: {"dtype": DataType.INT32},
                              2: {"dtype": DataType.INT32}})
def accuracy(ctx, out: Tensor, indices: Tensor, label: Tensor) -> tuple[Tensor, Tensor, Tensor]:
    """(correct / total, correct, total): a sample is correct when one of its top-k Indices is
    its Label.  No samples: accuracy 0 (Paddle leaves Correct and Total unwritten; 0 here)."""
    xp = ctx.xp
    n = indices.shape[0]
    if n == 0:
        return (xp.zeros((), dtype=xp.float32), xp.zeros((), dtype=xp.int32),
                xp.zeros((), dtype=xp.int32))
    correct = int(xp.sum(xp.any(indices == xp.reshape(label, (n, 1)), axis=1)))
    return (xp.asarray(np.float32(correct) / np.float32(n)), xp.asarray(correct, xp.int32),
            xp.asarray(n, xp.int32))
