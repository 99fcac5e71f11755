"""Mapping of ``sparse_reshape``: the kernel by its inputs' tensor kinds.

Paddle generates it from phi's sparse_ops.yaml; the rule is `argmap.sig.funcs.sparse_mapping`'s.
"""

from __future__ import annotations

from argmap.registry import MappingFamily
from argmap.sig.funcs import sparse_mapping

MAPPINGS = MappingFamily("sparse_reshape")

MAPPINGS.add(
    "sparse_reshape",
    sparse_mapping(
        "reshape",
        inputs=("x",),
        attrs=(("int_array", "shape", "ShapeTensor", "ShapeTensorList"),),
        outputs=("out",),
        candidates=(("reshape_coo", ("coo",)), ("reshape_csr", ("csr",))),
    ),
)
