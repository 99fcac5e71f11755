"""Mapping of ``reduce_prod``: ``prod_infer``, or ``prod`` (with reduce_all) when reduce_all is set
or InferShape asks.  Note the names: prod is the kernel with reduce_all, prod_infer the plain
one."""

from __future__ import annotations

from argmap.registry import MappingFamily
from argmap.sig.funcs import reduce_or_raw

MAPPINGS = MappingFamily("reduce_prod")

# Irregular: prod (with reduce_all) when reduce_all is set or InferShape asks, since
# InferMeta needs reduce_all; else prod_infer.
MAPPINGS.add("reduce_prod", reduce_or_raw("prod_infer", "prod"))
