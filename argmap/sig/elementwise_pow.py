"""Mapping of ``elementwise_pow``: ``elementwise_pow``, or ``elementwise_pow_raw`` when the legacy
axis is not -1."""

from __future__ import annotations

from argmap.registry import MappingFamily
from argmap.sig.funcs import plain_or_raw

MAPPINGS = MappingFamily("elementwise_pow")

# Irregular: the legacy axis only reaches the kernel (`elementwise_pow_raw`) when it is not -1.
MAPPINGS.add("elementwise_pow", plain_or_raw("elementwise_pow"))
