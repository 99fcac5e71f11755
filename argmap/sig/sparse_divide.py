"""Mapping of ``sparse_divide``: the kernel by its inputs' tensor kinds.

Paddle generates it from phi's sparse_ops.yaml; the rule is `argmap.sig.funcs.sparse_mapping`'s.
"""

from __future__ import annotations

from argmap.registry import MappingFamily
from argmap.sig.funcs import sparse_mapping

MAPPINGS = MappingFamily("sparse_divide")

MAPPINGS.add(
    "sparse_divide",
    sparse_mapping(
        "divide",
        inputs=("x", "y"),
        attrs=(),
        outputs=("out",),
        candidates=(("divide_coo_coo", ("coo", "coo")), ("divide_csr_csr", ("csr", "csr"))),
    ),
)
