"""Mapping of ``sparse_leaky_relu``: the kernel by its inputs' tensor kinds.

Paddle generates it from phi's sparse_ops.yaml; the rule is `argmap.sig.funcs.sparse_mapping`'s.
"""

from __future__ import annotations

from argmap.registry import MappingFamily
from argmap.sig.funcs import sparse_mapping

MAPPINGS = MappingFamily("sparse_leaky_relu")

MAPPINGS.add(
    "sparse_leaky_relu",
    sparse_mapping(
        "leaky_relu",
        inputs=("x",),
        attrs=("alpha",),
        outputs=("out",),
        candidates=(("leaky_relu_coo", ("coo",)), ("leaky_relu_csr", ("csr",))),
    ),
)
