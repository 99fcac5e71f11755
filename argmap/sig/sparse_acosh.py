"""Mapping of ``sparse_acosh``: the kernel by its inputs' tensor kinds.

Paddle generates it from phi's sparse_ops.yaml; the rule is `argmap.sig.funcs.sparse_mapping`'s.
"""

from __future__ import annotations

from argmap.registry import MappingFamily
from argmap.sig.funcs import sparse_mapping

MAPPINGS = MappingFamily("sparse_acosh")

MAPPINGS.add(
    "sparse_acosh",
    sparse_mapping(
        "acosh",
        inputs=("x",),
        attrs=(),
        outputs=("out",),
        candidates=(("acosh_coo", ("coo",)), ("acosh_csr", ("csr",))),
    ),
)
