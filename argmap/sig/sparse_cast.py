"""Mapping of ``sparse_cast``: the kernel by its inputs' tensor kinds.

Paddle generates it from phi's sparse_ops.yaml; the rule is `argmap.sig.funcs.sparse_mapping`'s.
"""

from __future__ import annotations

from argmap.registry import MappingFamily
from argmap.sig.funcs import sparse_mapping

MAPPINGS = MappingFamily("sparse_cast")

MAPPINGS.add(
    "sparse_cast",
    sparse_mapping(
        "cast",
        inputs=("x",),
        attrs=("index_dtype", "value_dtype"),
        outputs=("out",),
        candidates=(("cast_coo", ("coo",)), ("cast_csr", ("csr",))),
    ),
)
