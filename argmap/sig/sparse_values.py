"""Mapping of ``sparse_values``: the kernel by its inputs' tensor kinds.

Paddle generates it from phi's sparse_ops.yaml; the rule is `argmap.sig.funcs.sparse_mapping`'s.
"""

from __future__ import annotations

from argmap.registry import MappingFamily
from argmap.sig.funcs import sparse_mapping

MAPPINGS = MappingFamily("sparse_values")

MAPPINGS.add(
    "sparse_values",
    sparse_mapping(
        "values",
        inputs=("x",),
        attrs=(),
        outputs=("out",),
        candidates=(("values_coo", ("coo",)), ("values_csr", ("csr",))),
    ),
)
