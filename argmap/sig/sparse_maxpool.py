"""Mapping of ``sparse_maxpool``: the kernel by its inputs' tensor kinds.

Paddle generates it from phi's sparse_ops.yaml; the rule is `argmap.sig.funcs.sparse_mapping`'s.
"""

from __future__ import annotations

from argmap.registry import MappingFamily
from argmap.sig.funcs import sparse_mapping

MAPPINGS = MappingFamily("sparse_maxpool")

MAPPINGS.add(
    "sparse_maxpool",
    sparse_mapping(
        "maxpool",
        inputs=("x",),
        attrs=("kernel_sizes", "paddings", "dilations", "strides"),
        outputs=("out", "rulebook", "counter"),
        candidates=(("maxpool_coo", ("coo",)),),
    ),
)
