"""Mapping of ``elementwise_min``: ``minimum``, or ``minimum_raw`` when the legacy axis is not
-1."""

from __future__ import annotations

from argmap.registry import MappingFamily
from argmap.sig.funcs import plain_or_raw

MAPPINGS = MappingFamily("elementwise_min")

# Irregular: the legacy axis only reaches the kernel (`minimum_raw`) when it is not -1.
MAPPINGS.add("elementwise_min", plain_or_raw("minimum"))
