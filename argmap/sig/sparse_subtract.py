"""Mapping of ``sparse_subtract``: the kernel by its inputs' tensor kinds.

Paddle generates it from phi's sparse_ops.yaml; the rule is `argmap.sig.funcs.sparse_mapping`'s.
"""

from __future__ import annotations

from argmap.registry import MappingFamily
from argmap.sig.funcs import sparse_mapping

MAPPINGS = MappingFamily("sparse_subtract")

MAPPINGS.add(
    "sparse_subtract",
    sparse_mapping(
        "subtract",
        inputs=("x", "y"),
        attrs=(),
        outputs=("out",),
        candidates=(("subtract_coo_coo", ("coo", "coo")), ("subtract_csr_csr", ("csr", "csr"))),
    ),
)
