"""Mapping of ``sparse_indices``: the kernel by its inputs' tensor kinds.

Paddle generates it from phi's sparse_ops.yaml; the rule is `argmap.sig.funcs.sparse_mapping`'s.
"""

from __future__ import annotations

from argmap.registry import MappingFamily
from argmap.sig.funcs import sparse_mapping

MAPPINGS = MappingFamily("sparse_indices")

MAPPINGS.add(
    "sparse_indices",
    sparse_mapping(
        "indices",
        inputs=("x",),
        attrs=(),
        outputs=("out",),
        candidates=(("indices_coo", ("coo",)),),
    ),
)
