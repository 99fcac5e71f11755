"""Mapping of ``sparse_sin``: the kernel by its inputs' tensor kinds.

Paddle generates it from phi's sparse_ops.yaml; the rule is `argmap.sig.funcs.sparse_mapping`'s.
"""

from __future__ import annotations

from argmap.registry import MappingFamily
from argmap.sig.funcs import sparse_mapping

MAPPINGS = MappingFamily("sparse_sin")

MAPPINGS.add(
    "sparse_sin",
    sparse_mapping(
        "sin",
        inputs=("x",),
        attrs=(),
        outputs=("out",),
        candidates=(("sin_coo", ("coo",)), ("sin_csr", ("csr",))),
    ),
)
