"""Grad ops of the element-wise, matmul, reduction and linear-algebra families (issue 13): the
LoD their gradients keep (Paddle's grad InferMeta share_meta(x) for x@GRAD) and the fluid grad
kernels Paddle 2.6.2 keeps for this family."""

from __future__ import annotations

from fluid_compat.framework.op_registry import op_hooks

__all__: list[str] = []

#: grad op -> the forward inputs whose @GRAD output keeps that input's LoD (the grad
#: InferMeta's share_meta(x), share_meta(y))
_SHARE_LOD = {
    "elementwise_add_grad": ("X", "Y"),
    "elementwise_sub_grad": ("X", "Y"),
    "elementwise_mul_grad": ("X", "Y"),
    "elementwise_div_grad": ("X", "Y"),
    "elementwise_max_grad": ("X", "Y"),
    "elementwise_min_grad": ("X", "Y"),
    "elementwise_pow_grad": ("X", "Y"),
    "elementwise_fmax_grad": ("X", "Y"),
    "elementwise_fmin_grad": ("X", "Y"),
    "elementwise_heaviside_grad": ("X", "Y"),
    "atan2_grad": ("X1", "X2"),
    "lerp_grad": ("X", "Y"),
    "clip_grad": ("X",),
}
for _op, _slots in _SHARE_LOD.items():
    op_hooks(_op, share_lod={f"{s}@GRAD": s for s in _slots})
# where_grad's GeneralBinaryGradInferMeta takes the first two inputs of its KernelSignature
# (Condition, X), not x and y: X@GRAD gets Condition's LoD and Y@GRAD gets X's (as Paddle)
op_hooks("where_grad", share_lod={"X@GRAD": "Condition", "Y@GRAD": "X"})
