"""Mapping of ``sparse_sqrt``: the kernel by its inputs' tensor kinds.

Paddle generates it from phi's sparse_ops.yaml; the rule is `argmap.sig.funcs.sparse_mapping`'s.
"""

from __future__ import annotations

from argmap.registry import MappingFamily
from argmap.sig.funcs import sparse_mapping

MAPPINGS = MappingFamily("sparse_sqrt")

MAPPINGS.add(
    "sparse_sqrt",
    sparse_mapping(
        "sqrt",
        inputs=("x",),
        attrs=(),
        outputs=("out",),
        candidates=(("sqrt_coo", ("coo",)), ("sqrt_csr", ("csr",))),
    ),
)
