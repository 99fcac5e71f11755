"""Mapping of ``sparse_sum``: the kernel by its inputs' tensor kinds.

Paddle generates it from phi's sparse_ops.yaml; the rule is `argmap.sig.funcs.sparse_mapping`'s.
"""

from __future__ import annotations

from argmap.registry import MappingFamily
from argmap.sig.funcs import sparse_mapping

MAPPINGS = MappingFamily("sparse_sum")

MAPPINGS.add(
    "sparse_sum",
    sparse_mapping(
        "sum",
        inputs=("x",),
        attrs=(("int_array", "axis", "AxisTensor", "AxisTensorList"), "dtype", "keepdim"),
        outputs=("out",),
        candidates=(("sum_coo", ("coo",)), ("sum_csr", ("csr",))),
    ),
)
