"""Mapping of ``sparse_softmax``: the kernel by its inputs' tensor kinds.

Paddle generates it from phi's sparse_ops.yaml; the rule is `argmap.sig.funcs.sparse_mapping`'s.
"""

from __future__ import annotations

from argmap.registry import MappingFamily
from argmap.sig.funcs import sparse_mapping

MAPPINGS = MappingFamily("sparse_softmax")

MAPPINGS.add(
    "sparse_softmax",
    sparse_mapping(
        "softmax",
        inputs=("x",),
        attrs=("axis",),
        outputs=("out",),
        candidates=(("softmax_coo", ("coo",)), ("softmax_csr", ("csr",))),
    ),
)
