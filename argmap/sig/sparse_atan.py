"""Mapping of ``sparse_atan``: the kernel by its inputs' tensor kinds.

Paddle generates it from phi's sparse_ops.yaml; the rule is `argmap.sig.funcs.sparse_mapping`'s.
"""

from __future__ import annotations

from argmap.registry import MappingFamily
from argmap.sig.funcs import sparse_mapping

MAPPINGS = MappingFamily("sparse_atan")

MAPPINGS.add(
    "sparse_atan",
    sparse_mapping(
        "atan",
        inputs=("x",),
        attrs=(),
        outputs=("out",),
        candidates=(("atan_coo", ("coo",)), ("atan_csr", ("csr",))),
    ),
)
