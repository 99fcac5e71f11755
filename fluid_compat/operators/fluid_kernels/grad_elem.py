"""Grad ops of the element-wise, matmul, reduction and linear-algebra families (issue 13): the
LoD their gradients keep (Paddle's grad InferMeta share_meta(x) for x@GRAD) and the fluid grad
kernels Paddle 2.6.2 keeps for this family."""

from __future__ import annotations

from phi.kernels.funcs.matmul import matmul_grads

from fluid_compat.framework.op_registry import op_hooks
from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel

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
    "dist_grad": ("X", "Y"),
    "trace_grad": ("Input",),
    "cummax_grad": ("x",),
    "cummin_grad": ("x",),
}
# the reductions, norms and scans: X@GRAD shares X's meta (UnchangedInferMeta / share_meta)
_SHARE_LOD.update(dict.fromkeys((
    "mean_grad", "reduce_sum_grad", "reduce_mean_grad", "reduce_max_grad", "reduce_min_grad",
    "reduce_prod_grad", "reduce_amax_grad", "reduce_amin_grad", "frobenius_norm_grad",
    "p_norm_grad", "norm_grad", "squared_l2_norm_grad", "logsumexp_grad", "renorm_grad",
    "cumsum_grad", "cumprod_grad", "logcumsumexp_grad"), ("X",)))
for _op, _slots in _SHARE_LOD.items():
    op_hooks(_op, share_lod={f"{s}@GRAD": s for s in _slots})
# where_grad's GeneralBinaryGradInferMeta takes the first two inputs of its KernelSignature
# (Condition, X), not x and y: X@GRAD gets Condition's LoD and Y@GRAD gets X's (as Paddle)
op_hooks("where_grad", share_lod={"X@GRAD": "Condition", "Y@GRAD": "X"})

# matmul_v2 / mul grads share x's and y's meta (LoD included); matmul v1, bmm and bilinear
# grads do not (their grad InferShape only sets dims)
for _op in ("matmul_v2_grad", "mul_grad"):
    op_hooks(_op, share_lod={"X@GRAD": "X", "Y@GRAD": "Y"})


def _put(ctx, slot: str, array) -> None:
    """Set a gradient output the op asks for (no variable or @EMPTY@: not wanted)."""
    names = ctx.op.outputs.get(slot) or ()
    if names and names[0] != "@EMPTY@" and array is not None:
        ctx.set_output(slot, array)


@register_fluid_kernel("matmul_grad", "CPU", ("float32", "float64"))
class MatmulV1GradKernel(FluidKernel):
    """Legacy matmul's grads (paddle/fluid/operators/matmul_op.cc): those of matmul_v2 times
    alpha."""

    def compute(self, ctx) -> None:
        x, y = ctx.input_array("X"), ctx.input_array("Y")
        g = ctx.input_array("Out@GRAD")
        alpha = ctx.attr("alpha")
        if alpha != 1.0:
            g = g * g.dtype.type(alpha)
        dx, dy = matmul_grads(ctx.dev_ctx, x, y, g, ctx.attr("transpose_X"),
                              ctx.attr("transpose_Y"))
        _put(ctx, "X@GRAD", dx)
        _put(ctx, "Y@GRAD", dy)


@register_fluid_kernel("fsp_grad", "CPU", ("float32", "float64"))
class FspGradKernel(FluidKernel):
    """fsp's grads (fsp_op.h): Out[n] = X[n] Y[n]^T / (h w) on (C, h w) matrices, so
    dX[n] = dOut[n] Y[n] / (h w) and dY[n] = dOut[n]^T X[n] / (h w)."""

    def compute(self, ctx) -> None:
        xp = ctx.xp
        x, y = ctx.input_array("X"), ctx.input_array("Y")
        g = ctx.input_array("Out@GRAD")
        n, c1, h, w = x.shape
        scale = x.dtype.type(1.0 / (h * w))
        x3, y3 = x.reshape(n, c1, h * w), y.reshape(n, y.shape[1], h * w)
        _put(ctx, "X@GRAD", xp.reshape(xp.matmul(g, y3) * scale, x.shape))
        _put(ctx, "Y@GRAD", xp.reshape(xp.matmul(xp.swapaxes(g, 1, 2), x3) * scale, y.shape))


def _per_x(attrs, inputs) -> dict:
    x = inputs.get("X")
    return {"X@GRAD": len(x) if isinstance(x, (list, tuple)) else 1}


# multi_dot_grad: one X@GRAD per operand (run_op builds the outputs from the inputs)
op_hooks("multi_dot_grad", output_counts=_per_x)


@register_fluid_kernel("l1_norm_grad", "CPU", ("float32",))
class L1NormGradKernel(FluidKernel):
    """l1_norm's grad (l1_norm_op.h): dX = sign(X) * dOut (dOut holds one value)."""

    def compute(self, ctx) -> None:
        xp = ctx.xp
        x = ctx.input_array("X")
        g = xp.reshape(ctx.input_array("Out@GRAD"), ())
        _put(ctx, "X@GRAD", xp.sign(x) * g)
