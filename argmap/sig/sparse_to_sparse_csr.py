"""Mapping of ``sparse_to_sparse_csr``: the kernel by its inputs' tensor kinds.

Paddle generates it from phi's sparse_ops.yaml; the rule is `argmap.sig.funcs.sparse_mapping`'s.
"""

from __future__ import annotations

from argmap.registry import MappingFamily
from argmap.sig.funcs import sparse_mapping

MAPPINGS = MappingFamily("sparse_to_sparse_csr")

MAPPINGS.add(
    "sparse_to_sparse_csr",
    sparse_mapping(
        "to_sparse_csr",
        inputs=("x",),
        attrs=(),
        outputs=("out",),
        candidates=(("dense_to_csr", ("dense",)), ("coo_to_csr", ("coo",))),
    ),
)
