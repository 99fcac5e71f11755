"""Mapping of ``elementwise_sub``: ``subtract``, or ``subtract_raw`` when the legacy axis is not
-1."""

from __future__ import annotations

from argmap.registry import MappingFamily
from argmap.sig.funcs import plain_or_raw

MAPPINGS = MappingFamily("elementwise_sub")

# Irregular: the legacy axis only reaches the kernel (`subtract_raw`) when it is not -1.
MAPPINGS.add("elementwise_sub", plain_or_raw("subtract"))
