"""The ``nll_loss`` and ``nll_loss_grad`` kernels."""

from __future__ import annotations


from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import as_array, quiet

__all__ = ["nll_loss"]


# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json)
FLOAT_DTYPES = ["float32", "float64"]


_ANY = {"dtype": DataType.ALL_DTYPE}  # labels, indices and state tensors of their own dtypes


@register_kernel("nll_loss", ("CPU", "GPU"), dtypes=FLOAT_DTYPES, input_defs={"label": _ANY})
def nll_loss(ctx, input: Tensor, label: Tensor, weight: Tensor | None, ignore_index: int,
             reduction: str) -> tuple[Tensor, Tensor]:
    """(loss, total_weight): -w[label] * x[label] per sample (X [N, C] or [N, C, H, W]), 0 for
    ``ignore_index``; "sum" / "mean" (over the total weight, unless it is 0) give 0-D, "none"
    Label's shape with total_weight 0."""
    xp = ctx.xp
    t = input.dtype.type
    c = input.shape[1]
    lbl = label.astype(xp.int64)
    ignored = lbl == ignore_index
    bad = ~ignored & ((lbl < 0) | (lbl >= c))
    if bad.any():
        raise InvalidArgument(f"nll_loss: label should not be out of bounds [0, {c}), but "
                              f"received {int(lbl[bad].reshape(-1)[0])}.")
    safe = xp.where(ignored, 0, lbl)
    w = xp.ones((c,), dtype=input.dtype) if weight is None else weight
    cur_w = xp.where(ignored, t(0), w[safe])
    picked = xp.squeeze(xp.take_along_axis(input, xp.expand_dims(safe, 1), axis=1), axis=1)
    with quiet(xp):
        loss = xp.where(ignored, t(0), -picked * cur_w)
        if reduction == "none":
            return as_array(xp, loss), ctx.asarray(0, ctx.data_type(input))
        total_w = xp.sum(cur_w)
        out = xp.sum(loss)
        if reduction == "mean" and total_w != 0:
            out = out / total_w
    return as_array(xp, out), as_array(xp, total_w)


# Paddle 2.6.2 CPU registrations of the grad kernels (corpus phi_kernels.json)
FLOATS = ["float32", "float64"]


@register_kernel("nll_loss_grad", ("CPU", "GPU"), dtypes=FLOATS, input_defs={"label": _ANY})
def nll_loss_grad(ctx, input: Tensor, label: Tensor, weight: Tensor | None,
                  total_weight: Tensor, out_grad: Tensor, ignore_index: int,
                  reduction: str) -> Tensor:
    """-w[label] * dout at each sample's label class (0 for ``ignore_index``), dout per sample
    for "none", divided by the total weight for "mean"."""
    xp = ctx.xp
    t = input.dtype.type
    c = input.shape[1] if input.ndim > 1 else input.shape[0]
    lbl = label.astype(xp.int64)
    ignored = lbl == ignore_index
    safe = xp.where(ignored, 0, lbl)
    w = xp.ones((c,), dtype=input.dtype) if weight is None else weight
    with quiet(xp):
        g = -w[safe] * (out_grad if reduction == "none" else out_grad.reshape(()))
        if reduction == "mean":
            g = g / total_weight.reshape(())
        g = xp.where(ignored, t(0), g)
    dx = xp.zeros_like(input)
    if input.ndim == 1:
        dx[safe] = g
        return dx
    xp.put_along_axis(dx, xp.expand_dims(safe, 1), xp.expand_dims(g, 1), axis=1)
    return dx
