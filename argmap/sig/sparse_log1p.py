"""Mapping of ``sparse_log1p``: the kernel by its inputs' tensor kinds.

Paddle generates it from phi's sparse_ops.yaml; the rule is `argmap.sig.funcs.sparse_mapping`'s.
"""

from __future__ import annotations

from argmap.registry import MappingFamily
from argmap.sig.funcs import sparse_mapping

MAPPINGS = MappingFamily("sparse_log1p")

MAPPINGS.add(
    "sparse_log1p",
    sparse_mapping(
        "log1p",
        inputs=("x",),
        attrs=(),
        outputs=("out",),
        candidates=(("log1p_coo", ("coo",)), ("log1p_csr", ("csr",))),
    ),
)
