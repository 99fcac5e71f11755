"""Mapping of ``sparse_acos``: the kernel by its inputs' tensor kinds.

Paddle generates it from phi's sparse_ops.yaml; the rule is `argmap.sig.funcs.sparse_mapping`'s.
"""

from __future__ import annotations

from argmap.registry import MappingFamily
from argmap.sig.funcs import sparse_mapping

MAPPINGS = MappingFamily("sparse_acos")

MAPPINGS.add(
    "sparse_acos",
    sparse_mapping(
        "acos",
        inputs=("x",),
        attrs=(),
        outputs=("out",),
        candidates=(("acos_coo", ("coo",)), ("acos_csr", ("csr",))),
    ),
)
