"""Mapping of ``sparse_fused_attention``: the kernel by its inputs' tensor kinds.

Paddle generates it from phi's sparse_ops.yaml; the rule is `argmap.sig.funcs.sparse_mapping`'s.
"""

from __future__ import annotations

from argmap.registry import MappingFamily
from argmap.sig.funcs import sparse_mapping

MAPPINGS = MappingFamily("sparse_fused_attention")

MAPPINGS.add(
    "sparse_fused_attention",
    sparse_mapping(
        "fused_attention",
        inputs=("query", "key", "value", "sparse_mask", "key_padding_mask", "attn_mask"),
        attrs=(),
        outputs=("out", "softmax"),
        candidates=(("fused_attention_csr", ("dense", "dense", "dense", "csr", "dense", "dense")),),
        optional=("key_padding_mask", "attn_mask"),
    ),
)
