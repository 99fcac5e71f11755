"""Mapping of ``reduce_amin``: ``amin``, or ``amin_raw`` (with reduce_all) when reduce_all is set
or InferShape asks."""

from __future__ import annotations

from argmap.registry import MappingFamily
from argmap.sig.funcs import reduce_or_raw

MAPPINGS = MappingFamily("reduce_amin")

# Irregular: amin_raw (with reduce_all) when reduce_all is set or InferShape asks, since
# InferMeta needs reduce_all; else amin.
MAPPINGS.add("reduce_amin", reduce_or_raw("amin", "amin_raw"))
