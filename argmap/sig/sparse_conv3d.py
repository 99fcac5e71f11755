"""Mapping of ``sparse_conv3d``: the kernel by its inputs' tensor kinds.

Paddle generates it from phi's sparse_ops.yaml; the rule is `argmap.sig.funcs.sparse_mapping`'s.
"""

from __future__ import annotations

from argmap.registry import MappingFamily
from argmap.sig.funcs import sparse_mapping

MAPPINGS = MappingFamily("sparse_conv3d")

MAPPINGS.add(
    "sparse_conv3d",
    sparse_mapping(
        "conv3d",
        inputs=("x", "kernel"),
        attrs=("paddings", "dilations", "strides", "groups", "subm", "key"),
        outputs=("out", "rulebook", "counter"),
        candidates=(("conv3d_coo", ("coo", "dense")),),
    ),
)
