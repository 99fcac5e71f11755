"""Fluid side of the activation / unary-math grads (issue 13): the two STRUCTURE grad kernels
(soft_relu_grad, stright_throuth_estimator_grad: fluid OpKernels in Paddle 2.6.2's phi table,
recorded with an empty signature) and the LoD rule of every activation grad op.

LoD: Paddle's grad InferMeta (UnchangedInferMeta / GeneralUnaryGradInferMeta on the tensor the
gradient depends on: Out for relu, sigmoid, exp ..., X for the others, Out@GRAD when it depends
on neither) shares that tensor's meta, LoD included, with X@GRAD: the first input of the grad
op's signature in argmap/grad_compat.yaml.  soft_relu_grad's InferShape shares Out's LoD.
"""

from __future__ import annotations

import functools
from importlib import resources

import yaml

from argmap.compat import GRAD_COMPAT_FILE
from fluid_compat.framework.op_registry import declare_hooks_lazily, op_hooks
from fluid_compat.operators.expected_kernel import expected_from_var
from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel

__all__: list[str] = []

GRAD_OPS = [
    "abs_grad", "acos_grad", "acosh_grad", "angle_grad", "asin_grad", "asinh_grad", "atan_grad",
    "atanh_grad", "brelu_grad", "ceil_grad", "celu_grad", "cos_grad", "cosh_grad",
    "digamma_grad", "elu_grad", "erf_grad", "erfinv_grad", "exp_grad", "expm1_grad",
    "floor_grad", "gelu_grad", "hard_shrink_grad", "hard_sigmoid_grad", "hard_swish_grad",
    "i0_grad", "i0e_grad", "i1_grad", "i1e_grad", "leaky_relu_grad", "lgamma_grad",
    "log10_grad", "log1p_grad", "log2_grad", "log_grad", "logit_grad", "logsigmoid_grad",
    "mish_grad", "polygamma_grad", "pow_grad", "reciprocal_grad", "relu6_grad", "relu_grad",
    "round_grad", "rsqrt_grad", "selu_grad", "sigmoid_grad", "silu_grad", "sin_grad",
    "sinh_grad", "softplus_grad", "softshrink_grad", "softsign_grad", "sqrt_grad",
    "square_grad", "stanh_grad", "swish_grad", "tan_grad", "tanh_grad", "tanh_shrink_grad",
    "thresholded_relu_grad", "trunc_grad",
]



@functools.cache
def _grad_entries() -> dict[str, dict]:
    """The grad mappings as plain data (yaml's C loader: argmap.compat's checked, line-tracking
    loader costs ~80 ms at import; argmap-check checks the file)."""
    text = resources.files("argmap").joinpath(GRAD_COMPAT_FILE).read_text(encoding="utf-8")
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return {e["op"]: e for e in yaml.load(text, Loader=loader)}


def _declare_lod() -> None:
    entries = _grad_entries()
    for op in GRAD_OPS:
        entry = entries.get(op)
        if entry:
            op_hooks(op, share_lod={entry["outputs"][0]: entry["inputs"][0]})
    op_hooks("soft_relu_grad", share_lod={"X@GRAD": "Out"})


declare_hooks_lazily([*GRAD_OPS, "soft_relu_grad"], _declare_lod)


def _wanted(ctx, slot: str) -> bool:
    names = ctx.op.outputs.get(slot) or ()
    return bool(names) and names[0] != "@EMPTY@"


@register_fluid_kernel("soft_relu_grad", "CPU", ("float32", "float64"))
class SoftReluGradKernel(FluidKernel):
    """X@GRAD = Out@GRAD * (1 - exp(-Out)) * (-threshold < Out < threshold) (SoftReluGradFunctor;
    the mask is multiplied, so an infinite gradient outside the band gives NaN)."""

    dtype_tied_inputs = ("Out", "Out@GRAD")

    def compute(self, ctx) -> None:
        if not _wanted(ctx, "X@GRAD"):
            return
        xp = ctx.xp
        out, dout = ctx.input_array("Out"), ctx.input_array("Out@GRAD")
        t = out.dtype.type
        th = t(float(ctx.attr("threshold")))
        with xp.errstate(all="ignore"):
            mask = ((out > -th) & (out < th)).astype(out.dtype)
            ctx.set_output("X@GRAD", xp.asarray(dout * (t(1) - xp.exp(-out)) * mask))


@register_fluid_kernel("stright_throuth_estimator_grad", "CPU", ("float32",))
class StraightThroughEstimatorGradKernel(FluidKernel):
    """X@GRAD = a copy of Out@GRAD (the fake quantize-dequantize ops pass gradients through)."""

    dtype_tied_inputs = ("Out@GRAD",)

    def compute(self, ctx) -> None:
        if _wanted(ctx, "X@GRAD"):
            ctx.set_output("X@GRAD", ctx.xp.array(ctx.input_array("Out@GRAD"), copy=True))


# abs_grad / angle_grad: Paddle's `data_type : x` (complex X, real Out@GRAD): the kernel key
# follows X, as the recorded expected_kernel_key says
for _op in ("abs_grad", "angle_grad"):
    op_hooks(_op, get_expected_kernel_type=expected_from_var("X"))

DOUBLE_GRAD_OPS = [
    "relu_grad_grad", "sigmoid_grad_grad", "tanh_grad_grad", "leaky_relu_grad_grad",
    "elu_grad_grad", "celu_grad_grad", "softplus_double_grad", "sqrt_grad_grad",
    "rsqrt_grad_grad", "square_grad_grad", "log_grad_grad", "pow_double_grad",
    "abs_double_grad", "matmul_v2_grad_grad",
]


def _declare_double_grad_lod() -> None:
    # each gradient <slot>@GRAD keeps the LoD of <slot> (grad_out@GRAD of relu / leaky_relu /
    # abs, whose grad op has no grad_out input: of the first input, Out or X)
    entries = _grad_entries()
    for op in DOUBLE_GRAD_OPS:
        entry = entries.get(op)
        if entry:
            ins = entry["inputs"]
            op_hooks(op, share_lod={o: o[:-len("@GRAD")] if o[:-len("@GRAD")] in ins else ins[0]
                                    for o in entry["outputs"]})


declare_hooks_lazily(DOUBLE_GRAD_OPS, _declare_double_grad_lod)
