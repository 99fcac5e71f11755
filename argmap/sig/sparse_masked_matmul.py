"""Mapping of ``sparse_masked_matmul``: the kernel by its inputs' tensor kinds.

Paddle generates it from phi's sparse_ops.yaml; the rule is `argmap.sig.funcs.sparse_mapping`'s.
"""

from __future__ import annotations

from argmap.registry import MappingFamily
from argmap.sig.funcs import sparse_mapping

MAPPINGS = MappingFamily("sparse_masked_matmul")

MAPPINGS.add(
    "sparse_masked_matmul",
    sparse_mapping(
        "masked_matmul",
        inputs=("x", "y", "mask"),
        attrs=(),
        outputs=("out",),
        candidates=(("masked_matmul_csr", ("dense", "dense", "csr")),),
    ),
)
