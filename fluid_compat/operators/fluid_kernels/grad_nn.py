"""Hooks of the nn grad ops of helper gradnn (issue 13): which gradient keeps which input's LoD
(Paddle's grad InferMetas: share_meta(x) copies x's LoD onto dx; the lodmeta grad cases are
the evidence)."""

from __future__ import annotations

from fluid_compat.framework.op_registry import op_hooks

__all__: list[str] = []

SHARE_LOD = {
    **{op: {"Input@GRAD": "Input"} for op in (
        "conv2d_grad", "depthwise_conv2d_grad", "conv3d_grad", "conv2d_transpose_grad",
        "depthwise_conv2d_transpose_grad", "conv3d_transpose_grad")},
    **{op: {"X@GRAD": "X"} for op in (
        "pool2d_grad", "pool3d_grad", "max_pool2d_with_index_grad",
        "max_pool3d_with_index_grad")},
}

for _op, _pairs in SHARE_LOD.items():
    op_hooks(_op, share_lod=_pairs)
