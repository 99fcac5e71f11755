"""Mapping of ``elementwise_mod``: ``remainder``, or ``remainder_raw`` when the legacy axis is not
-1."""

from __future__ import annotations

from argmap.registry import MappingFamily
from argmap.sig.funcs import plain_or_raw

MAPPINGS = MappingFamily("elementwise_mod")

# Irregular: the legacy axis only reaches the kernel (`remainder_raw`) when it is not -1.
MAPPINGS.add("elementwise_mod", plain_or_raw("remainder"))
