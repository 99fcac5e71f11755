"""The ``multinomial`` kernel."""

from __future__ import annotations


import numpy as np

from phi.common.data_type import DataType
from phi.common.scalar import Scalar
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.cpu_random import engine_for

__all__ = ["multinomial"]


_FLOATS = ["float32", "float64"]


@register_kernel("multinomial", "CPU", dtypes=_FLOATS, output_defs={0: {"dtype": DataType.INT64}})
def multinomial(ctx, x: Tensor, num_samples: Scalar, replacement: bool) -> Tensor:
    """``num_samples`` category indices per row of probabilities x (int64)."""
    n = int(num_samples.value)
    probs = np.asarray(x, np.float64)
    rows = probs.reshape(-1, probs.shape[-1]) if probs.ndim else probs.reshape(1, 1)
    if np.any(rows < 0) or not np.all(np.isfinite(rows)):
        raise InvalidArgument("multinomial: each element of X must be finite and >= 0.")
    rng = np.random.default_rng(int(engine_for(0).draw(1)[0]))
    out = np.empty((rows.shape[0], n), np.int64)
    for i, row in enumerate(rows):
        total = row.sum()
        if total <= 0:
            raise InvalidArgument("multinomial: the sum of probabilities in a row must be > 0.")
        if not replacement and n > np.count_nonzero(row):
            raise InvalidArgument(
                f"When replacement is False, number of samples should be less than non-zero "
                f"categories, got {n} samples and {np.count_nonzero(row)} non-zero categories.")
        out[i] = rng.choice(row.size, size=n, replace=replacement, p=row / total)
    return out.reshape((*probs.shape[:-1], n)) if probs.ndim > 1 else out.reshape(n)
