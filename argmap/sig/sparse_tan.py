"""Mapping of ``sparse_tan``: the kernel by its inputs' tensor kinds.

Paddle generates it from phi's sparse_ops.yaml; the rule is `argmap.sig.funcs.sparse_mapping`'s.
"""

from __future__ import annotations

from argmap.registry import MappingFamily
from argmap.sig.funcs import sparse_mapping

MAPPINGS = MappingFamily("sparse_tan")

MAPPINGS.add(
    "sparse_tan",
    sparse_mapping(
        "tan",
        inputs=("x",),
        attrs=(),
        outputs=("out",),
        candidates=(("tan_coo", ("coo",)), ("tan_csr", ("csr",))),
    ),
)
