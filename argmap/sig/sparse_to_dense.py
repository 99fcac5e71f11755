"""Mapping of ``sparse_to_dense``: the kernel by its inputs' tensor kinds.

Paddle generates it from phi's sparse_ops.yaml; the rule is `argmap.sig.funcs.sparse_mapping`'s.
"""

from __future__ import annotations

from argmap.registry import MappingFamily
from argmap.sig.funcs import sparse_mapping

MAPPINGS = MappingFamily("sparse_to_dense")

MAPPINGS.add(
    "sparse_to_dense",
    sparse_mapping(
        "to_dense",
        inputs=("x",),
        attrs=(),
        outputs=("out",),
        candidates=(("coo_to_dense", ("coo",)), ("csr_to_dense", ("csr",))),
    ),
)
