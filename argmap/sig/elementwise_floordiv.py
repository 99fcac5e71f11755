"""Mapping of ``elementwise_floordiv``: ``floor_divide``, or ``floor_divide_raw`` when the legacy
axis is not -1."""

from __future__ import annotations

from argmap.registry import MappingFamily
from argmap.sig.funcs import plain_or_raw

MAPPINGS = MappingFamily("elementwise_floordiv")

# Irregular: the legacy axis only reaches the kernel (`floor_divide_raw`) when it is not -1.
MAPPINGS.add("elementwise_floordiv", plain_or_raw("floor_divide"))
