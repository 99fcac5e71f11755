"""Mapping of ``reduce_all``: ``all``, or ``all_raw`` (with reduce_all) when reduce_all is set or
InferShape asks."""

from __future__ import annotations

from argmap.registry import MappingFamily
from argmap.sig.funcs import reduce_or_raw

MAPPINGS = MappingFamily("reduce_all")

# Irregular: all_raw (with reduce_all) when reduce_all is set or InferShape asks, since
# InferMeta needs reduce_all; else all.
MAPPINGS.add("reduce_all", reduce_or_raw("all", "all_raw"))
