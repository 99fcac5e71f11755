"""Mapping of ``sparse_add``: the kernel by its inputs' tensor kinds.

Paddle generates it from phi's sparse_ops.yaml; the rule is `argmap.sig.funcs.sparse_mapping`'s.
"""

from __future__ import annotations

from argmap.registry import MappingFamily
from argmap.sig.funcs import sparse_mapping

MAPPINGS = MappingFamily("sparse_add")

MAPPINGS.add(
    "sparse_add",
    sparse_mapping(
        "add",
        inputs=("x", "y"),
        attrs=(),
        outputs=("out",),
        candidates=(
            ("add_coo_coo", ("coo", "coo")),
            ("add_csr_csr", ("csr", "csr")),
            ("add_coo_dense", ("coo", "dense")),
        ),
    ),
)
