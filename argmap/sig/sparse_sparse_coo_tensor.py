"""Mapping of ``sparse_sparse_coo_tensor``: the kernel by its inputs' tensor kinds.

Paddle generates it from phi's sparse_ops.yaml; the rule is `argmap.sig.funcs.sparse_mapping`'s.
"""

from __future__ import annotations

from argmap.registry import MappingFamily
from argmap.sig.funcs import sparse_mapping

MAPPINGS = MappingFamily("sparse_sparse_coo_tensor")

MAPPINGS.add(
    "sparse_sparse_coo_tensor",
    sparse_mapping(
        "sparse_coo_tensor",
        inputs=("values", "indices"),
        attrs=("shape",),
        outputs=("out",),
        candidates=(("sparse_coo_tensor", ("dense", "dense")),),
    ),
)
