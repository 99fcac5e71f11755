"""Fluid kernels of the fused inference ops Paddle 2.6.2 runs as STRUCTURE kernels.

fused_elemwise_activation / fused_elemwise_add_activation (fused_elemwise_activation_op.h):
``functor_list`` [f0, f1] is a unary compound when f1 is binary, Out = f0(f1(X, Y)) with
IntermediateOut = f1(X, Y) (X's shape), else a binary compound, Out = f0(X, f1(Y)) with
IntermediateOut = f1(Y) (Y's shape).  Y broadcasts onto X from ``axis``.  Only the pairs Paddle's
CPU kernel implements run; IntermediateOut is written only with ``save_intermediate_out``.
"""

from __future__ import annotations

from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from phi.core.errors import InvalidArgument
from phi.kernels.funcs import quiet

__all__: list[str] = []


def _align_y(xp, x, y, axis: int):
    if y.ndim >= x.ndim or axis == -1:
        return y
    if not 0 <= axis <= x.ndim - y.ndim:
        raise InvalidArgument(f"fused_elemwise_activation: axis {axis} out of range for X of "
                              f"rank {x.ndim} and Y of rank {y.ndim}.")
    return xp.reshape(y, (1,) * axis + tuple(y.shape) + (1,) * (x.ndim - y.ndim - axis))


def _gelu(xp, v):
    t = v.dtype.type
    return t(0.5) * v * (t(1) + xp.tanh(t(0.79788456) * (v + t(0.044715) * v * v * v)))


def _tanh(xp, v):
    """funcs/functors.h TanhFunctor: 2 / (1 + e^(-2x)) - 1 with 2x clipped to [-40, 13] (so
    tanh(1e-30) is exactly 0 and -inf * tanh(1e-30) is NaN, as the wheel gives)."""
    t = v.dtype.type
    two_x = xp.clip(t(2) * v, t(-40), t(13))
    return t(2) / (t(1) + xp.exp(-two_x)) - t(1)


def _sigmoid(xp, v):
    """funcs/functors.h SigmoidFunctor: 1 / (1 + e^-x) with x clipped to [-40, 13]."""
    t = v.dtype.type
    return t(1) / (t(1) + xp.exp(-xp.clip(v, t(-40), t(13))))


_UNARY = {
    # the compound functors' relu is x * (x > 0): -inf and NaN give NaN, a negative -0.0
    # (Paddle-made variants with NaN / inf inputs show it)
    "relu": lambda xp, v, s: v * (v > 0).astype(v.dtype),
    "scale": lambda xp, v, s: v * v.dtype.type(s),
    "tanh": lambda xp, v, s: _tanh(xp, v),
    "sigmoid": lambda xp, v, s: _sigmoid(xp, v),
    "gelu": lambda xp, v, s: _gelu(xp, v),
}
_BINARY = {"elementwise_add": lambda a, b: a + b, "elementwise_mul": lambda a, b: a * b}
# the (f0, f1) pairs Paddle 2.6.2's CPU kernel has a functor for (RunFunctors)
_PAIRS = {
    "fused_elemwise_activation": frozenset({
        ("scale", "elementwise_add"), ("relu", "elementwise_add"), ("tanh", "elementwise_add"),
        ("gelu", "elementwise_add"), ("elementwise_add", "scale"), ("elementwise_add", "relu"),
        ("elementwise_mul", "scale"), ("elementwise_mul", "tanh"),
        ("elementwise_mul", "sigmoid")}),
}
_PAIRS["fused_elemwise_add_activation"] = frozenset(
    p for p in _PAIRS["fused_elemwise_activation"] if "elementwise_add" in p)


class _FusedElemwiseActivation(FluidKernel):
    dtype_tied_inputs = ("X", "Y")

    def compute(self, ctx) -> None:
        xp = ctx.xp
        x, y = ctx.input_array("X"), ctx.input_array("Y")
        functors = tuple(ctx.attr("functor_list") or ())
        if len(functors) != 2:
            raise InvalidArgument(f"{ctx.type}: functor_list must hold 2 functors, got "
                                  f"{list(functors)}.")
        if functors not in _PAIRS[ctx.type]:
            raise InvalidArgument(f"{ctx.type}: {','.join(functors)} has not been implemented.")
        f0, f1 = functors
        scale = ctx.attr("scale")
        y = _align_y(xp, x, y, ctx.attr("axis"))
        with quiet(xp):
            if f1 in _BINARY:  # unary compound
                inter = _BINARY[f1](x, y)
                out = _UNARY[f0](xp, inter, scale)
            else:
                inter = _UNARY[f1](xp, y, scale)
                out = _BINARY[f0](x, inter)
        ctx.set_output("Out", xp.asarray(out, dtype=x.dtype))
        if ctx.attr("save_intermediate_out"):
            ctx.set_output("IntermediateOut", xp.asarray(xp.reshape(
                inter, inter.shape if f1 in _BINARY else ctx.input_array("Y").shape),
                dtype=x.dtype))


@register_fluid_kernel("fused_elemwise_activation", "CPU", ("float32", "float64"))
class FusedElemwiseActivationKernel(_FusedElemwiseActivation):
    pass


@register_fluid_kernel("fused_elemwise_add_activation", "CPU", ("float32", "float64"))
class FusedElemwiseAddActivationKernel(_FusedElemwiseActivation):
    pass
