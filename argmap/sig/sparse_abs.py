"""Mapping of ``sparse_abs``: the kernel by its inputs' tensor kinds.

Paddle generates it from phi's sparse_ops.yaml; the rule is `argmap.sig.funcs.sparse_mapping`'s.
"""

from __future__ import annotations

from argmap.registry import MappingFamily
from argmap.sig.funcs import sparse_mapping

MAPPINGS = MappingFamily("sparse_abs")

MAPPINGS.add(
    "sparse_abs",
    sparse_mapping(
        "abs",
        inputs=("x",),
        attrs=(),
        outputs=("out",),
        candidates=(("abs_coo", ("coo",)), ("abs_csr", ("csr",))),
    ),
)
