"""Mapping of ``reduce_max``: ``max``, or ``max_raw`` (with reduce_all) when reduce_all is set or
InferShape asks."""

from __future__ import annotations

from argmap.registry import MappingFamily
from argmap.sig.funcs import reduce_or_raw

MAPPINGS = MappingFamily("reduce_max")

# Irregular: max_raw (with reduce_all) when reduce_all is set or InferShape asks, since
# InferMeta needs reduce_all; else max.
MAPPINGS.add("reduce_max", reduce_or_raw("max", "max_raw"))
