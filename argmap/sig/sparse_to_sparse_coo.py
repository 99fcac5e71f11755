"""Mapping of ``sparse_to_sparse_coo``: the kernel by its inputs' tensor kinds.

Paddle generates it from phi's sparse_ops.yaml; the rule is `argmap.sig.funcs.sparse_mapping`'s.
"""

from __future__ import annotations

from argmap.registry import MappingFamily
from argmap.sig.funcs import sparse_mapping

MAPPINGS = MappingFamily("sparse_to_sparse_coo")

MAPPINGS.add(
    "sparse_to_sparse_coo",
    sparse_mapping(
        "to_sparse_coo",
        inputs=("x",),
        attrs=("sparse_dim",),
        outputs=("out",),
        candidates=(("dense_to_coo", ("dense",)), ("csr_to_coo", ("csr",))),
    ),
)
