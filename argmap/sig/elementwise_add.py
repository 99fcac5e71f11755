"""Mapping of ``elementwise_add``: ``add``, or ``add_raw`` when the legacy axis is not -1."""

from __future__ import annotations

from argmap.registry import MappingFamily
from argmap.sig.funcs import plain_or_raw

MAPPINGS = MappingFamily("elementwise_add")

# Irregular: the legacy axis only reaches the kernel (`add_raw`) when it is not -1.
MAPPINGS.add("elementwise_add", plain_or_raw("add"))
