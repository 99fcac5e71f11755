"""Helpers shared by the softmax kernels and their grads (softmax, log_softmax,
cross_entropy_with_softmax, fused_softmax_mask)."""

from __future__ import annotations


from phi.kernels.funcs import as_array, quiet

__all__ = ["positive_axis", "softmax_backward"]


def positive_axis(axis: int, ndim: int) -> int:
    return axis + ndim if axis < 0 else axis


def softmax_backward(xp, out, dout, axis: int):
    """out * (dout - sum(dout * out)) along ``axis`` (SoftmaxGrad / fused_softmax_mask_grad)."""
    with quiet(xp):
        return as_array(xp, out * (dout - xp.sum(dout * out, axis=axis, keepdims=True)))
