"""The ``unsqueeze``, ``unsqueeze_grad`` and ``unsqueeze_infer`` kernels."""

from __future__ import annotations



from phi.common.backend import Backend
from phi.common.data_type import DataType
from phi.common.int_array import IntArray
from phi.common.layout import DataLayout
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.infermeta.funcs import unsqueeze_out_dims
from phi.kernels.funcs import ALL_DTYPES, owned
from phi.kernels.funcs.backward import grad_kernel
from phi.kernels.funcs.manipulation import bind_dims_copy

__all__ = ["unsqueeze", "unsqueeze_infer"]


# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json); all four register the same 12
_ALL12 = list(ALL_DTYPES)


UNSQUEEZE_DTYPES = [d for d in _ALL12 if d != "float16"]  # 2.6.2 registers no CPU float16


_XSHAPE_STAYS = {1: {"backend": Backend.ALL_BACKEND}}


@register_kernel("unsqueeze_infer", ("CPU", "GPU"), dtypes=UNSQUEEZE_DTYPES)
def unsqueeze_infer(ctx, x: Tensor, axes: IntArray) -> Tensor:
    """x with size-1 axes inserted at ``axes``."""
    return ctx.xp.reshape(x, unsqueeze_out_dims(x.shape, axes.data), copy=True)


@register_kernel("unsqueeze", ("CPU", "GPU"), dtypes=UNSQUEEZE_DTYPES,
                 output_defs=_XSHAPE_STAYS)
def unsqueeze(ctx, x: Tensor, axes: IntArray) -> tuple[Tensor, Tensor]:
    """(``unsqueeze_infer``, an empty XShape of dims [0, *x.dims])."""
    return unsqueeze_infer(ctx, x, axes), ctx.xp.empty((0, *tuple(x.shape)), dtype=x.dtype)


bind_dims_copy(unsqueeze, lambda dims, axes: unsqueeze_out_dims(dims, axes.data))


ALL12 = list(ALL_DTYPES)


# Paddle also registers the view-like grads for the STRIDED layout (every dtype)
STRIDED = DataLayout.STRIDED


@grad_kernel("unsqueeze_grad", ("CPU", "GPU"), dtypes=ALL12,
                 input_defs={"xshape": {"dtype": DataType.ALL_DTYPE}})
@grad_kernel("unsqueeze_grad", ("CPU", "GPU"), dtypes=ALL12, layout=STRIDED,
                 input_defs={"xshape": {"dtype": DataType.ALL_DTYPE}})
def unsqueeze_grad(ctx, xshape: Tensor, out_grad: Tensor) -> Tensor:
    """out_grad with x's dims (XShape's dims without the leading 0)."""
    return ctx.xp.reshape(owned(ctx.xp, out_grad), tuple(xshape.shape[1:]))
