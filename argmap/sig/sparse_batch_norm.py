"""Mapping of ``sparse_batch_norm``: the kernel by its inputs' tensor kinds.

Paddle generates it from phi's sparse_ops.yaml; the rule is `argmap.sig.funcs.sparse_mapping`'s.
"""

from __future__ import annotations

from argmap.registry import MappingFamily
from argmap.sig.funcs import sparse_mapping

MAPPINGS = MappingFamily("sparse_batch_norm")

MAPPINGS.add(
    "sparse_batch_norm",
    sparse_mapping(
        "batch_norm",
        inputs=("x", "mean", "variance", "scale", "bias"),
        attrs=(
            "is_test",
            "momentum",
            "epsilon",
            "data_layout",
            "use_global_stats",
            "trainable_statistics",
        ),
        outputs=(
            "out",
            "mean_out",
            "variance_out",
            "saved_mean",
            "saved_variance",
            "reserve_space",
        ),
        candidates=(("batch_norm_coo", ("coo", "dense", "dense", "dense", "dense")),),
    ),
)
