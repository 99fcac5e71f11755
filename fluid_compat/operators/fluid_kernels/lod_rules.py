"""Which output keeps which input's LoD for ops Paddle 2.6.2 still runs with a fluid kernel
(their InferShape's ctx->ShareLoD calls; issue 12 item 1).  Ops with a phi kernel carry the LoD
through their InferMeta (share_lod / share_meta in phi/infermeta); the table is in
docs/design.md and the evidence in tools/fixtures/cases/lodmeta.py."""

from __future__ import annotations

from fluid_compat.framework.op_registry import SAME_DIM0, op_hooks

__all__: list[str] = []

SHARE_LOD = {
    "cross_entropy": {"Y": "X"},
    "cross_entropy2": {"Y": "X"},
    "fill_zeros_like": {"Out": "X"},
    "lookup_table": {"Out": "Ids"},
    "lrn": {"Out": "X"},
    "matmul": {"Out": "X"},
    "reshape": {"Out": "X"},  # the kernel resets Out's LoD to X's, whatever the new dims
    "top_k": {"Out": "X", "Indices": "X"},
    "bpr_loss": {"Y": "X"},
    "data_norm": {"Y": "X"},
    "hinge_loss": {"Loss": "Logits"},
    "minus": {"Out": "X"},
    "teacher_student_sigmoid_loss": {"Y": "X"},
    # "only pass LoD when the first dimension of output and Input(X) are the same"
    "expand": {"Out": ("X", SAME_DIM0)},
    "flatten2": {"Out": ("X", SAME_DIM0)},
}

for _op, _pairs in SHARE_LOD.items():
    op_hooks(_op, share_lod=_pairs)
