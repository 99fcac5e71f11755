"""Mapping of ``elementwise_div``: ``divide``, or ``divide_raw`` when the legacy axis is not -1."""

from __future__ import annotations

from argmap.registry import MappingFamily
from argmap.sig.funcs import plain_or_raw

MAPPINGS = MappingFamily("elementwise_div")

# Irregular: the legacy axis only reaches the kernel (`divide_raw`) when it is not -1.
MAPPINGS.add("elementwise_div", plain_or_raw("divide"))
