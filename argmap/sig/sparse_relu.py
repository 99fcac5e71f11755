"""Mapping of ``sparse_relu``: the kernel by its inputs' tensor kinds.

Paddle generates it from phi's sparse_ops.yaml; the rule is `argmap.sig.funcs.sparse_mapping`'s.
"""

from __future__ import annotations

from argmap.registry import MappingFamily
from argmap.sig.funcs import sparse_mapping

MAPPINGS = MappingFamily("sparse_relu")

MAPPINGS.add(
    "sparse_relu",
    sparse_mapping(
        "relu",
        inputs=("x",),
        attrs=(),
        outputs=("out",),
        candidates=(("relu_coo", ("coo",)), ("relu_csr", ("csr",))),
    ),
)
