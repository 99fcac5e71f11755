"""Mapping of ``sparse_asin``: the kernel by its inputs' tensor kinds.

Paddle generates it from phi's sparse_ops.yaml; the rule is `argmap.sig.funcs.sparse_mapping`'s.
"""

from __future__ import annotations

from argmap.registry import MappingFamily
from argmap.sig.funcs import sparse_mapping

MAPPINGS = MappingFamily("sparse_asin")

MAPPINGS.add(
    "sparse_asin",
    sparse_mapping(
        "asin",
        inputs=("x",),
        attrs=(),
        outputs=("out",),
        candidates=(("asin_coo", ("coo",)), ("asin_csr", ("csr",))),
    ),
)
