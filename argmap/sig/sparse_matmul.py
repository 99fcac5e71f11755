"""Mapping of ``sparse_matmul``: the kernel by its inputs' tensor kinds.

Paddle generates it from phi's sparse_ops.yaml; the rule is `argmap.sig.funcs.sparse_mapping`'s.
"""

from __future__ import annotations

from argmap.registry import MappingFamily
from argmap.sig.funcs import sparse_mapping

MAPPINGS = MappingFamily("sparse_matmul")

MAPPINGS.add(
    "sparse_matmul",
    sparse_mapping(
        "matmul",
        inputs=("x", "y"),
        attrs=(),
        outputs=("out",),
        candidates=(
            ("matmul_csr_dense", ("csr", "dense")),
            ("matmul_csr_csr", ("csr", "csr")),
            ("matmul_coo_dense", ("coo", "dense")),
            ("matmul_coo_coo", ("coo", "coo")),
        ),
    ),
)
