"""Mapping of ``sparse_expm1``: the kernel by its inputs' tensor kinds.

Paddle generates it from phi's sparse_ops.yaml; the rule is `argmap.sig.funcs.sparse_mapping`'s.
"""

from __future__ import annotations

from argmap.registry import MappingFamily
from argmap.sig.funcs import sparse_mapping

MAPPINGS = MappingFamily("sparse_expm1")

MAPPINGS.add(
    "sparse_expm1",
    sparse_mapping(
        "expm1",
        inputs=("x",),
        attrs=(),
        outputs=("out",),
        candidates=(("expm1_coo", ("coo",)), ("expm1_csr", ("csr",))),
    ),
)
