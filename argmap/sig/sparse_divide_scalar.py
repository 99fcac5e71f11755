"""Mapping of ``sparse_divide_scalar``: the kernel by its inputs' tensor kinds.

Paddle generates it from phi's sparse_ops.yaml; the rule is `argmap.sig.funcs.sparse_mapping`'s.
"""

from __future__ import annotations

from argmap.registry import MappingFamily
from argmap.sig.funcs import sparse_mapping

MAPPINGS = MappingFamily("sparse_divide_scalar")

MAPPINGS.add(
    "sparse_divide_scalar",
    sparse_mapping(
        "divide_scalar",
        inputs=("x",),
        attrs=("scalar",),
        outputs=("out",),
        candidates=(("divide_scalar_coo", ("coo",)), ("divide_scalar_csr", ("csr",))),
    ),
)
