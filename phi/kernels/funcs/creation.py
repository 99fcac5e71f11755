"""Helpers shared by the creation kernels of data-dependent size (arange_tensor, linspace,
unique)."""

from __future__ import annotations


import numpy as np


__all__ = ["ARANGE_DTYPES", "LINSPACE_DTYPES", "UNIQUE_DTYPES", "host_scalar"]


ARANGE_DTYPES = LINSPACE_DTYPES = UNIQUE_DTYPES = ["float32", "float64", "int32", "int64"]


def host_scalar(ctx, t):
    return np.asarray(ctx.to_host(t)).reshape(-1)[0]
