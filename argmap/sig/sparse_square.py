"""Mapping of ``sparse_square``: the kernel by its inputs' tensor kinds.

Paddle generates it from phi's sparse_ops.yaml; the rule is `argmap.sig.funcs.sparse_mapping`'s.
"""

from __future__ import annotations

from argmap.registry import MappingFamily
from argmap.sig.funcs import sparse_mapping

MAPPINGS = MappingFamily("sparse_square")

MAPPINGS.add(
    "sparse_square",
    sparse_mapping(
        "square",
        inputs=("x",),
        attrs=(),
        outputs=("out",),
        candidates=(("square_coo", ("coo",)), ("square_csr", ("csr",))),
    ),
)
