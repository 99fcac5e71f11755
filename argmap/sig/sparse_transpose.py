"""Mapping of ``sparse_transpose``: the kernel by its inputs' tensor kinds.

Paddle generates it from phi's sparse_ops.yaml; the rule is `argmap.sig.funcs.sparse_mapping`'s.
"""

from __future__ import annotations

from argmap.registry import MappingFamily
from argmap.sig.funcs import sparse_mapping

MAPPINGS = MappingFamily("sparse_transpose")

MAPPINGS.add(
    "sparse_transpose",
    sparse_mapping(
        "transpose",
        inputs=("x",),
        attrs=("perm",),
        outputs=("out",),
        candidates=(("transpose_coo", ("coo",)), ("transpose_csr", ("csr",))),
    ),
)
