"""Mapping of ``sparse_pow``: the kernel by its inputs' tensor kinds.

Paddle generates it from phi's sparse_ops.yaml; the rule is `argmap.sig.funcs.sparse_mapping`'s.
"""

from __future__ import annotations

from argmap.registry import MappingFamily
from argmap.sig.funcs import sparse_mapping

MAPPINGS = MappingFamily("sparse_pow")

MAPPINGS.add(
    "sparse_pow",
    sparse_mapping(
        "pow",
        inputs=("x",),
        attrs=("factor",),
        outputs=("out",),
        candidates=(("pow_coo", ("coo",)), ("pow_csr", ("csr",))),
    ),
)
