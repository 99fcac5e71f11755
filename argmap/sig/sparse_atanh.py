"""Mapping of ``sparse_atanh``: the kernel by its inputs' tensor kinds.

Paddle generates it from phi's sparse_ops.yaml; the rule is `argmap.sig.funcs.sparse_mapping`'s.
"""

from __future__ import annotations

from argmap.registry import MappingFamily
from argmap.sig.funcs import sparse_mapping

MAPPINGS = MappingFamily("sparse_atanh")

MAPPINGS.add(
    "sparse_atanh",
    sparse_mapping(
        "atanh",
        inputs=("x",),
        attrs=(),
        outputs=("out",),
        candidates=(("atanh_coo", ("coo",)), ("atanh_csr", ("csr",))),
    ),
)
