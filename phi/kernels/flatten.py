"""flatten and flatten_infer (Paddle's paddle/phi/kernels/flatten_kernel.cc): the legacy
flatten_contiguous_range op, with XShape (``flatten``) or without it (``flatten_infer``, which
2.6.2 runs for saved inference programs, whose XShape output was stripped).

Outputs are copies: Paddle's kernel copies x into a new allocation (unless run in place).
"""

from __future__ import annotations



from phi.common.backend import Backend
from phi.common.data_type import DataType
from phi.common.layout import DataLayout
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.infermeta.funcs import flatten_out_dims
from phi.kernels.funcs import ALL_DTYPES, owned
from phi.kernels.funcs.backward import grad_kernel

__all__ = ["flatten", "flatten_infer"]


# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json): the ALL_LAYOUT keys; bool, float16
# and complex exist only for the STRIDED layout, which this project does not model
FLATTEN_DTYPES = FLATTEN_INFER_DTYPES = ["float32", "bfloat16", "float64", "uint8", "int8",
                                         "int16", "int32", "int64"]


@register_kernel("flatten_infer", ("CPU", "GPU"), dtypes=FLATTEN_INFER_DTYPES)
def flatten_infer(ctx, x: Tensor, start_axis: int, stop_axis: int) -> Tensor:
    """x with axes start_axis..stop_axis (inclusive) merged into one, as a copy."""
    dims = flatten_out_dims(x.shape, start_axis, stop_axis)
    return ctx.xp.reshape(x, dims, copy=True)


# XShape ([0, *x.dims], metadata without data) never moves between devices, as reshape's.
@register_kernel("flatten", ("CPU", "GPU"), dtypes=FLATTEN_DTYPES,
                 output_defs={1: {"backend": Backend.ALL_BACKEND}})
def flatten(ctx, x: Tensor, start_axis: int, stop_axis: int) -> tuple[Tensor, Tensor]:
    """(x flattened as ``flatten_infer``, an empty XShape of dims [0, *x.dims])."""
    out = flatten_infer(ctx, x, start_axis, stop_axis)
    return out, ctx.xp.empty((0, *tuple(x.shape)), dtype=x.dtype)


ALL12 = list(ALL_DTYPES)


# Paddle also registers the view-like grads for the STRIDED layout (every dtype)
STRIDED = DataLayout.STRIDED


@grad_kernel("flatten_grad", ("CPU", "GPU"),
                 dtypes=["float32", "float64", "int8", "uint8", "int32", "int64", "bfloat16"],
                 input_defs={"xshape": {"dtype": DataType.ALL_DTYPE}})
@grad_kernel("flatten_grad", ("CPU", "GPU"), dtypes=ALL12, layout=STRIDED,
                 input_defs={"xshape": {"dtype": DataType.ALL_DTYPE}})
def flatten_grad(ctx, xshape: Tensor, out_grad: Tensor) -> Tensor:
    """out_grad with x's dims (XShape's dims without the leading 0)."""
    return ctx.xp.reshape(owned(ctx.xp, out_grad), tuple(xshape.shape[1:]))
