"""Mapping of ``sparse_multiply``: the kernel by its inputs' tensor kinds.

Paddle generates it from phi's sparse_ops.yaml; the rule is `argmap.sig.funcs.sparse_mapping`'s.
"""

from __future__ import annotations

from argmap.registry import MappingFamily
from argmap.sig.funcs import sparse_mapping

MAPPINGS = MappingFamily("sparse_multiply")

MAPPINGS.add(
    "sparse_multiply",
    sparse_mapping(
        "multiply",
        inputs=("x", "y"),
        attrs=(),
        outputs=("out",),
        candidates=(("multiply_coo_coo", ("coo", "coo")), ("multiply_csr_csr", ("csr", "csr"))),
    ),
)
