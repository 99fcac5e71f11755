"""Mapping of ``sparse_full_like``: the kernel by its inputs' tensor kinds.

Paddle generates it from phi's sparse_ops.yaml; the rule is `argmap.sig.funcs.sparse_mapping`'s.
"""

from __future__ import annotations

from argmap.registry import MappingFamily
from argmap.sig.funcs import sparse_mapping

MAPPINGS = MappingFamily("sparse_full_like")

MAPPINGS.add(
    "sparse_full_like",
    sparse_mapping(
        "full_like",
        inputs=("x",),
        attrs=(("scalar", "value", "ValueTensor"), "dtype"),
        outputs=("out",),
        candidates=(("full_like_coo", ("coo",)), ("full_like_csr", ("csr",))),
    ),
)
