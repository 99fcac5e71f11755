"""Mapping of ``sparse_tanh``: the kernel by its inputs' tensor kinds.

Paddle generates it from phi's sparse_ops.yaml; the rule is `argmap.sig.funcs.sparse_mapping`'s.
"""

from __future__ import annotations

from argmap.registry import MappingFamily
from argmap.sig.funcs import sparse_mapping

MAPPINGS = MappingFamily("sparse_tanh")

MAPPINGS.add(
    "sparse_tanh",
    sparse_mapping(
        "tanh",
        inputs=("x",),
        attrs=(),
        outputs=("out",),
        candidates=(("tanh_coo", ("coo",)), ("tanh_csr", ("csr",))),
    ),
)
