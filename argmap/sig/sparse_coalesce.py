"""Mapping of ``sparse_coalesce``: the kernel by its inputs' tensor kinds.

Paddle generates it from phi's sparse_ops.yaml; the rule is `argmap.sig.funcs.sparse_mapping`'s.
"""

from __future__ import annotations

from argmap.registry import MappingFamily
from argmap.sig.funcs import sparse_mapping

MAPPINGS = MappingFamily("sparse_coalesce")

MAPPINGS.add(
    "sparse_coalesce",
    sparse_mapping(
        "coalesce",
        inputs=("x",),
        attrs=(),
        outputs=("out",),
        candidates=(("coalesce_coo", ("coo",)),),
    ),
)
