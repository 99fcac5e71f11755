"""The ``meshgrid`` and ``meshgrid_grad`` kernels."""

from __future__ import annotations



from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.backward import grad_kernel
from phi.kernels.funcs.manipulation import MESHGRID_DTYPES

__all__ = ["meshgrid"]


@register_kernel("meshgrid", ("CPU", "GPU"), dtypes=MESHGRID_DTYPES)
def meshgrid(ctx, inputs: list[Tensor]) -> list[Tensor]:
    """The coordinate grids of 0-D / 1-D inputs ('ij' indexing)."""
    xp = ctx.xp
    if len(inputs) < 2:
        raise InvalidArgument(f"meshgrid: Expected at least 2 input tensors, but only received "
                              f"{len(inputs)}.")
    flat = [xp.reshape(a, (-1,)) for a in inputs]
    dims = tuple(int(a.shape[0]) for a in flat)
    outs = []
    for i, a in enumerate(flat):
        view = [1] * len(flat)
        view[i] = dims[i]
        outs.append(xp.asarray(xp.broadcast_to(xp.reshape(a, view), dims), copy=True))
    return outs


@grad_kernel("meshgrid_grad", ("CPU", "GPU"), dtypes=["float32", "float64", "int32",
                                                          "int64"])
def meshgrid_grad(ctx, inputs: list[Tensor], outputs_grad: list[Tensor]) -> list[Tensor]:
    """Gradient i: output gradient i summed over every axis but i."""
    xp = ctx.xp
    outs = []
    for i, (x, g) in enumerate(zip(inputs, outputs_grad, strict=True)):
        axes = tuple(a for a in range(g.ndim) if a != i)
        outs.append(xp.reshape(xp.sum(g, axis=axes, dtype=g.dtype), x.shape))
    return outs
