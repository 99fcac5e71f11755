"""Mapping of ``sparse_slice``: the kernel by its inputs' tensor kinds.

Paddle generates it from phi's sparse_ops.yaml; the rule is `argmap.sig.funcs.sparse_mapping`'s.
"""

from __future__ import annotations

from argmap.registry import MappingFamily
from argmap.sig.funcs import sparse_mapping

MAPPINGS = MappingFamily("sparse_slice")

MAPPINGS.add(
    "sparse_slice",
    sparse_mapping(
        "slice",
        inputs=("x",),
        attrs=(
            ("int_array", "axes", "AxesTensor", "AxesTensorList"),
            ("int_array", "starts", "StartsTensor", "StartsTensorList"),
            ("int_array", "ends", "EndsTensor", "EndsTensorList"),
        ),
        outputs=("out",),
        candidates=(("slice_coo", ("coo",)), ("slice_csr", ("csr",))),
    ),
)
