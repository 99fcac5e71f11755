"""The ``squeeze``, ``squeeze_grad`` and ``squeeze_infer`` kernels."""

from __future__ import annotations



from phi.common.backend import Backend
from phi.common.data_type import DataType
from phi.common.int_array import IntArray
from phi.common.layout import DataLayout
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.infermeta.funcs import squeeze_out_dims
from phi.kernels.funcs import ALL_DTYPES, owned
from phi.kernels.funcs.backward import grad_kernel

__all__ = ["squeeze", "squeeze_infer"]


# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json); all four register the same 12
_ALL12 = list(ALL_DTYPES)


# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json, ALL_LAYOUT keys)
SQUEEZE_DTYPES = _ALL12


_XSHAPE_STAYS = {1: {"backend": Backend.ALL_BACKEND}}


@register_kernel("squeeze_infer", ("CPU", "GPU"), dtypes=SQUEEZE_DTYPES)
def squeeze_infer(ctx, x: Tensor, axes: IntArray) -> Tensor:
    """x without its size-1 axes (all of them, or those of ``axes`` that have size 1)."""
    return ctx.xp.reshape(x, squeeze_out_dims(x.shape, axes.data), copy=True)


@register_kernel("squeeze", ("CPU", "GPU"), dtypes=SQUEEZE_DTYPES, output_defs=_XSHAPE_STAYS)
def squeeze(ctx, x: Tensor, axes: IntArray) -> tuple[Tensor, Tensor]:
    """(``squeeze_infer``, an empty XShape of dims [0, *x.dims])."""
    return squeeze_infer(ctx, x, axes), ctx.xp.empty((0, *tuple(x.shape)), dtype=x.dtype)


ALL12 = list(ALL_DTYPES)


# Paddle also registers the view-like grads for the STRIDED layout (every dtype)
STRIDED = DataLayout.STRIDED


@grad_kernel("squeeze_grad", ("CPU", "GPU"), dtypes=ALL12,
                 input_defs={"xshape": {"dtype": DataType.ALL_DTYPE}})
@grad_kernel("squeeze_grad", ("CPU", "GPU"), dtypes=ALL12, layout=STRIDED,
                 input_defs={"xshape": {"dtype": DataType.ALL_DTYPE}})
def squeeze_grad(ctx, xshape: Tensor, out_grad: Tensor, axes: IntArray) -> Tensor:
    """out_grad with x's dims (XShape's dims without the leading 0)."""
    return ctx.xp.reshape(owned(ctx.xp, out_grad), tuple(xshape.shape[1:]))
