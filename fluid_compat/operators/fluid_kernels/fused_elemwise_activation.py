"""The fluid kernels of fused_elemwise_activation, fused_elemwise_activation_grad,
fused_elemwise_add_activation, fused_elemwise_add_activation_grad.
"""

from __future__ import annotations

import numpy as np

from fluid_compat.operators.fluid_kernels.funcs import FLOATS, wanted
from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from phi.core.errors import InvalidArgument
from phi.kernels.funcs import quiet
from phi.kernels.funcs.elementwise import reduce_to

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


def _unary(name: str, scale):
    """(forward, grad from (input, output, dout)) of the compound's unary functor."""
    if name == "scale":
        return (lambda v: v * scale), (lambda x, y, d: d * scale)
    if name == "relu":
        return (lambda v: np.maximum(v, v.dtype.type(0))), (lambda x, y, d: d * (y > 0))
    if name == "tanh":
        return np.tanh, (lambda x, y, d: d * (y.dtype.type(1) - y * y))
    if name == "sigmoid":
        return ((lambda v: v.dtype.type(1) / (v.dtype.type(1) + np.exp(-v))),
                (lambda x, y, d: d * y * (y.dtype.type(1) - y)))
    if name == "gelu":  # the compound functors' gelu is the tanh approximation
        def gelu_grad(x, y, d):
            t = x.dtype.type
            c, k = t(0.79788456), t(0.044715)
            th = np.tanh(c * x * (t(1) + k * x * x))
            g = (t(0.5) * (t(1) + th)
                 + t(0.5) * x * (t(1) - th * th) * c * (t(1) + t(3) * k * x * x))
            return d * g
        return None, gelu_grad
    raise InvalidArgument(f"fused_elemwise_activation_grad: unary functor {name!r} has not "
                          "been implemented.")


def _broadcast2_quirk(g, shape, axis: int, full):
    """IntermediateOut@GRAD of a Y broadcast along both sides ([pre, n, post], post > 1):
    Paddle's FusedElemwiseAndActGradBroadcast2CPU restarts the sum at every element of the
    first pre row, so only that row's last post element and the later rows add up."""
    if tuple(g.shape) == tuple(shape):
        return full
    axis = g.ndim - len(shape) if axis == -1 else axis
    n = int(np.prod(shape, dtype=np.int64))
    pre = int(np.prod(g.shape[:axis], dtype=np.int64))
    g3 = g.reshape(pre, n, -1)
    if g3.shape[2] == 1:
        return full
    out = g3[0, :, -1] + g3[1:].sum(axis=(0, 2), dtype=g.dtype)
    return out.astype(g.dtype).reshape(shape)


def _expand(y, ndim: int, axis: int):
    axis = ndim - y.ndim if axis == -1 else axis
    return y.reshape((1,) * axis + y.shape + (1,) * (ndim - axis - y.ndim))


class _FusedElemwiseActivationGrad(FluidKernel):
    """Binary(X, Unary(Y)) (functor_list [elementwise_*_grad, unary_grad]) or
    Unary(Binary(X, Y)) ([unary_grad, elementwise_add_grad]): the chain rule through the
    IntermediateOut (given with save_intermediate_out, else recomputed); Y's gradients summed
    over the dims it was broadcast along (``axis``)."""

    def compute(self, ctx) -> None:
        f1, f2 = (f.removesuffix("_grad") for f in ctx.attr("functor_list"))
        y = ctx.input_array("Y")
        dout = ctx.input_array("Out@GRAD")
        x = ctx.input_array("X") if ctx.has_input("X") else dout
        out = ctx.input_array("Out")
        axis = int(ctx.attr("axis"))
        t = dout.dtype.type
        inter = ctx.input_array("IntermediateOut") if ctx.has_input("IntermediateOut") else None
        grads = {}
        with quiet(np):
            if f1.startswith("elementwise_"):  # Binary(X, Unary(Y))
                fwd, back = _unary(f2, t(np.float32(ctx.attr("scale"))))
                inter = fwd(y) if inter is None else inter
                ye = _expand(inter, dout.ndim, axis)
                mul = f1 == "elementwise_mul"
                grads["X@GRAD"] = dout * ye if mul else dout
                d_inter = reduce_to(np, dout * x if mul else dout, y.shape, axis)
                grads["IntermediateOut@GRAD"] = _broadcast2_quirk(dout * x if mul else dout,
                                                                  y.shape, axis, d_inter)
                grads["Y@GRAD"] = back(y, inter, d_inter)
            else:  # Unary(Binary(X, Y)): only elementwise_add
                _, back = _unary(f1, t(np.float32(ctx.attr("scale"))))
                inter = x + _expand(y, x.ndim, axis) if inter is None else inter
                d_inter = back(inter, out, dout)
                grads["IntermediateOut@GRAD"] = d_inter
                grads["X@GRAD"] = d_inter
                grads["Y@GRAD"] = reduce_to(np, d_inter, y.shape, axis)
        for slot, g in grads.items():
            if wanted(ctx, slot):
                ctx.set_output(slot, np.asarray(g).astype(dout.dtype))


for _op in ("fused_elemwise_activation_grad", "fused_elemwise_add_activation_grad"):
    register_fluid_kernel(_op, "CPU", FLOATS)(
        type(f"{_op.title().replace('_', '')}Kernel", (_FusedElemwiseActivationGrad,), {}))

