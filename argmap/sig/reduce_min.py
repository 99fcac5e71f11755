"""Mapping of ``reduce_min``: ``min``, or ``min_raw`` (with reduce_all) when reduce_all is set or
InferShape asks."""

from __future__ import annotations

from argmap.registry import MappingFamily
from argmap.sig.funcs import reduce_or_raw

MAPPINGS = MappingFamily("reduce_min")

# Irregular: min_raw (with reduce_all) when reduce_all is set or InferShape asks, since
# InferMeta needs reduce_all; else min.
MAPPINGS.add("reduce_min", reduce_or_raw("min", "min_raw"))
