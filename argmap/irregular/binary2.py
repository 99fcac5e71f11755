"""Irregular mappings of helper `binary2`'s ops."""

from __future__ import annotations

from argmap.irregular.elementwise import plain_or_raw
from argmap.registry import MappingFamily

FAMILY = MappingFamily("binary2")

# Irregular: the legacy axis only reaches the kernel (`<kernel>_raw`) when it is not -1.
FAMILY.add("elementwise_floordiv", plain_or_raw("floor_divide"))
FAMILY.add("elementwise_mod", plain_or_raw("remainder"))
