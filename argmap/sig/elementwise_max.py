"""Mapping of ``elementwise_max``: ``maximum``, or ``maximum_raw`` when the legacy axis is not
-1."""

from __future__ import annotations

from argmap.registry import MappingFamily
from argmap.sig.funcs import plain_or_raw

MAPPINGS = MappingFamily("elementwise_max")

# Irregular: the legacy axis only reaches the kernel (`maximum_raw`) when it is not -1.
MAPPINGS.add("elementwise_max", plain_or_raw("maximum"))
