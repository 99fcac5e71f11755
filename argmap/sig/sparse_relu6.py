"""Mapping of ``sparse_relu6``: the kernel by its inputs' tensor kinds.

Paddle generates it from phi's sparse_ops.yaml; the rule is `argmap.sig.funcs.sparse_mapping`'s.
"""

from __future__ import annotations

from argmap.registry import MappingFamily
from argmap.sig.funcs import sparse_mapping

MAPPINGS = MappingFamily("sparse_relu6")

MAPPINGS.add(
    "sparse_relu6",
    sparse_mapping(
        "relu6",
        inputs=("x",),
        attrs=(),
        outputs=("out",),
        candidates=(("relu6_coo", ("coo",)), ("relu6_csr", ("csr",))),
    ),
)
