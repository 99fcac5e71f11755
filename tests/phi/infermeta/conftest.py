"""Helpers for InferMeta tests: input metas are plain MetaTensors (dims may hold -1)."""

from __future__ import annotations

from phi.common import DataLayout, DataType
from phi.core.tensor import MetaTensor


def meta(dims, dtype: DataType = DataType.FLOAT32,
         layout: DataLayout = DataLayout.NCHW) -> MetaTensor:
    """An input meta."""
    return MetaTensor(tuple(dims), dtype, layout)
