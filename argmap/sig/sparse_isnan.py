"""Mapping of ``sparse_isnan``: the kernel by its inputs' tensor kinds.

Paddle generates it from phi's sparse_ops.yaml; the rule is `argmap.sig.funcs.sparse_mapping`'s.
"""

from __future__ import annotations

from argmap.registry import MappingFamily
from argmap.sig.funcs import sparse_mapping

MAPPINGS = MappingFamily("sparse_isnan")

MAPPINGS.add(
    "sparse_isnan",
    sparse_mapping(
        "isnan",
        inputs=("x",),
        attrs=(),
        outputs=("out",),
        candidates=(("isnan_coo", ("coo",)), ("isnan_csr", ("csr",))),
    ),
)
