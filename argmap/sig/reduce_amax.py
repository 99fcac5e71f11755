"""Mapping of ``reduce_amax``: ``amax``, or ``amax_raw`` (with reduce_all) when reduce_all is set
or InferShape asks."""

from __future__ import annotations

from argmap.registry import MappingFamily
from argmap.sig.funcs import reduce_or_raw

MAPPINGS = MappingFamily("reduce_amax")

# Irregular: amax_raw (with reduce_all) when reduce_all is set or InferShape asks, since
# InferMeta needs reduce_all; else amax.
MAPPINGS.add("reduce_amax", reduce_or_raw("amax", "amax_raw"))
