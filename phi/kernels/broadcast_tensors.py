"""The ``broadcast_tensors`` and ``broadcast_tensors_grad`` kernels."""

from __future__ import annotations



from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.infermeta.funcs import broadcast_tensors_out_dims
from phi.kernels.funcs.backward import grad_kernel, reduce_grad_to

__all__ = ["broadcast_tensors"]


BROADCAST_TENSORS_DTYPES = ["bool", "int32", "int64", "float16", "float32", "float64",
                            "complex64", "complex128"]


# -- broadcast_tensors / meshgrid / unbind -----------------------------------------------------

@register_kernel("broadcast_tensors", ("CPU", "GPU"), dtypes=BROADCAST_TENSORS_DTYPES)
def broadcast_tensors(ctx, input: list[Tensor]) -> list[Tensor]:
    """Every input broadcast to their common dims."""
    xp = ctx.xp
    dims = broadcast_tensors_out_dims([tuple(a.shape) for a in input])
    return [xp.asarray(xp.broadcast_to(a, dims), copy=True) for a in input]


@grad_kernel("broadcast_tensors_grad", ("CPU", "GPU"),
                 dtypes=["float32", "float64", "int32", "int64", "float16", "complex64",
                         "complex128"])
def broadcast_tensors_grad(ctx, input: list[Tensor], out_grad: list[Tensor]) -> list[Tensor]:
    """Each output gradient summed back to its input's dims."""
    return [reduce_grad_to(ctx, g, x.shape) for x, g in zip(input, out_grad, strict=True)]
