"""Mapping of ``sparse_scale``: the kernel by its inputs' tensor kinds.

Paddle generates it from phi's sparse_ops.yaml; the rule is `argmap.sig.funcs.sparse_mapping`'s.
"""

from __future__ import annotations

from argmap.registry import MappingFamily
from argmap.sig.funcs import sparse_mapping

MAPPINGS = MappingFamily("sparse_scale")

MAPPINGS.add(
    "sparse_scale",
    sparse_mapping(
        "scale",
        inputs=("x",),
        attrs=("scale", "bias", "bias_after_scale"),
        outputs=("out",),
        candidates=(("scale_coo", ("coo",)), ("scale_csr", ("csr",))),
    ),
)
