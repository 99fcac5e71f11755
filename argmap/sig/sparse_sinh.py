"""Mapping of ``sparse_sinh``: the kernel by its inputs' tensor kinds.

Paddle generates it from phi's sparse_ops.yaml; the rule is `argmap.sig.funcs.sparse_mapping`'s.
"""

from __future__ import annotations

from argmap.registry import MappingFamily
from argmap.sig.funcs import sparse_mapping

MAPPINGS = MappingFamily("sparse_sinh")

MAPPINGS.add(
    "sparse_sinh",
    sparse_mapping(
        "sinh",
        inputs=("x",),
        attrs=(),
        outputs=("out",),
        candidates=(("sinh_coo", ("coo",)), ("sinh_csr", ("csr",))),
    ),
)
