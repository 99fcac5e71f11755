"""Mapping of ``reduce_any``: ``any``, or ``any_raw`` (with reduce_all) when reduce_all is set or
InferShape asks."""

from __future__ import annotations

from argmap.registry import MappingFamily
from argmap.sig.funcs import reduce_or_raw

MAPPINGS = MappingFamily("reduce_any")

# Irregular: any_raw (with reduce_all) when reduce_all is set or InferShape asks, since
# InferMeta needs reduce_all; else any.
MAPPINGS.add("reduce_any", reduce_or_raw("any", "any_raw"))
