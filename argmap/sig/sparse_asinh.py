"""Mapping of ``sparse_asinh``: the kernel by its inputs' tensor kinds.

Paddle generates it from phi's sparse_ops.yaml; the rule is `argmap.sig.funcs.sparse_mapping`'s.
"""

from __future__ import annotations

from argmap.registry import MappingFamily
from argmap.sig.funcs import sparse_mapping

MAPPINGS = MappingFamily("sparse_asinh")

MAPPINGS.add(
    "sparse_asinh",
    sparse_mapping(
        "asinh",
        inputs=("x",),
        attrs=(),
        outputs=("out",),
        candidates=(("asinh_coo", ("coo",)), ("asinh_csr", ("csr",))),
    ),
)
