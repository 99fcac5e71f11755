"""The oneDNN kernels' shared pieces (fused_conv2d, fused_matmul, fused_elementwise,
fused_softplus, fused_transpose, dequantize: the oneDNN kernels of Paddle 2.6.2's
paddle/phi/kernels/fusion/onednn/ and onednn/, registered for the ONEDNN backend and layout):
oneDNN post-ops as Paddle's AppendActivation appends them (fuse_activation, fuse_alpha,
fuse_beta), and the reshape / unsqueeze / squeeze fusions applied to a result's dims.

oneDNN's eltwise algorithms with their (alpha, beta): relu / leaky_relu: x > 0 ? x : alpha x;
relu6 and clip: clip(x, alpha, beta) (oneDNN refuses alpha > beta); swish: x sigmoid(alpha x);
hard_swish: x max(0, min(1, alpha x + beta)); hard_sigmoid: linear(alpha, beta) then clip(0, 1);
gelu / gelu_erf, gelu_tanh, mish, sigmoid, tanh, sqrt, abs take no parameter.
"""

from __future__ import annotations

import math

import numpy as np

from phi.core.errors import InvalidArgument
from phi.kernels.funcs import quiet

__all__ = ["ACTIVATIONS", "apply_activation", "reshape_dims", "squeeze_dims", "unsqueeze_dims"]

ACTIVATIONS = ("abs", "clip", "gelu", "gelu_erf", "gelu_tanh", "hard_sigmoid", "hard_swish",
               "leaky_relu", "mish", "relu", "relu6", "sigmoid", "sqrt", "swish", "tanh")


def _erf(xp, v):
    from phi.kernels.funcs.special import erf64

    return erf64(xp, v)


def _sigmoid(xp, v):
    return 1.0 / (1.0 + xp.exp(-v))


def _soft_relu(xp, v):
    """log(1 + exp(v)) without overflow."""
    return xp.maximum(v, 0) + xp.log1p(xp.exp(-xp.abs(v)))


def apply_activation(xp, v, name: str, alpha: float, beta: float, op_type: str):
    """``v`` after the activation post-op ``name`` (empty: none), computed in float64 and
    rounded to v's dtype (oneDNN's float32 kernels differ by an ulp or so)."""
    if not name:
        return v
    dtype = v.dtype
    v = v.astype(np.float64)
    a, b = float(np.float32(alpha)), float(np.float32(beta))
    with quiet(xp):
        if name in ("relu", "leaky_relu"):
            out = xp.where(v > 0, v, v * a)
        elif name in ("relu6", "clip"):
            if a > b:
                raise InvalidArgument(f"{op_type}: could not append an elementwise post-op: "
                                      f"{name} takes fuse_alpha <= fuse_beta, got {alpha} > "
                                      f"{beta}.")
            out = xp.minimum(xp.maximum(v, a), b)
        elif name == "swish":
            out = v * _sigmoid(xp, a * v)
        elif name == "hard_swish":
            out = v * xp.clip(a * v + b, 0, 1)
        elif name == "hard_sigmoid":
            out = xp.clip(a * v + b, 0, 1)
        elif name in ("gelu", "gelu_erf"):
            out = 0.5 * v * (1.0 + _erf(xp, v / math.sqrt(2.0)))
        elif name == "gelu_tanh":
            c = math.sqrt(2.0 / math.pi)
            out = 0.5 * v * (1.0 + xp.tanh(c * (v + 0.044715 * v * v * v)))
        elif name == "mish":
            out = v * xp.tanh(_soft_relu(xp, v))
        elif name == "sigmoid":
            out = _sigmoid(xp, v)
        elif name == "tanh":
            out = xp.tanh(v)
        elif name == "sqrt":
            out = xp.sqrt(v)
        elif name == "abs":
            out = xp.abs(v)
        else:
            raise InvalidArgument(f"{op_type}: Activation '{name}' not found in oneDNN "
                                  f"algorithms mapper (supported: {', '.join(ACTIVATIONS)}).")
    return out.astype(dtype)


def reshape_dims(dims, shape, op_type: str, attr: str) -> tuple[int, ...]:
    """reshape2's rule: 0 copies the input's dim, one -1 takes what is left."""
    total = int(np.prod(dims)) if len(dims) else 1
    out = [int(dims[i]) if s == 0 else int(s) for i, s in enumerate(shape)]
    if out.count(-1) > 1:
        raise InvalidArgument(f"{op_type}: {attr}={list(shape)} has more than one -1.")
    if -1 in out:
        known = int(np.prod([d for d in out if d != -1])) if len(out) > 1 else 1
        out[out.index(-1)] = total // known if known else 0
    if int(np.prod(out)) != total:
        raise InvalidArgument(f"{op_type}: cannot reshape dims {list(dims)} to {attr}="
                              f"{list(shape)}.")
    return tuple(out)


def unsqueeze_dims(dims, axes) -> tuple[int, ...]:
    """unsqueeze2's rule: each axis (negative counts from the end of the growing shape)."""
    out = list(dims)
    for ax in axes:
        ax = int(ax)
        if ax < 0:
            ax += len(out) + 1
        out.insert(ax, 1)
    return tuple(out)


def squeeze_dims(dims, axes, op_type: str) -> tuple[int, ...]:
    """The dims without ``axes`` (each must be 1, as Paddle's squeeze2 fusion checks)."""
    n = len(dims)
    drop = {int(a) % n for a in axes}
    for a in drop:
        if dims[a] != 1:
            raise InvalidArgument(f"{op_type}: Squeeze2 input dim {a} should be equal to one, "
                                  f"but get {dims[a]}.")
    return tuple(d for i, d in enumerate(dims) if i not in drop)
