"""Mapping of ``sparse_mv``: the kernel by its inputs' tensor kinds.

Paddle generates it from phi's sparse_ops.yaml; the rule is `argmap.sig.funcs.sparse_mapping`'s.
"""

from __future__ import annotations

from argmap.registry import MappingFamily
from argmap.sig.funcs import sparse_mapping

MAPPINGS = MappingFamily("sparse_mv")

MAPPINGS.add(
    "sparse_mv",
    sparse_mapping(
        "mv",
        inputs=("x", "vec"),
        attrs=(),
        outputs=("out",),
        candidates=(("mv_coo", ("coo", "dense")), ("mv_csr", ("csr", "dense"))),
    ),
)
