"""The ``multiply_raw_sr`` and ``multiply_sr`` kernels."""

from __future__ import annotations


from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.core.kernel import LoDTensor, Tensor
from phi.core.registry import register_kernel
from phi.kernels.elementwise import multiply_raw, multiply_raw_bf16
from phi.kernels.funcs.selected_rows import make_selected_rows, need_sr


_MULTIPLY_SR = ["bfloat16", "bool", "complex128", "complex64", "float32", "float64", "int32",
                "int64"]


@register_kernel("multiply_raw_sr", "CPU", dtypes=_MULTIPLY_SR)
def multiply_raw_sr(ctx, x: LoDTensor, y: Tensor, axis: int) -> LoDTensor:
    """multiply_raw of X's value and Y; rows and height kept."""
    x = need_sr("multiply_raw_sr", "X", x)
    if y.ndim != 1 or y.shape[0] != 1:
        # Paddle's elementwise InferShape for a SelectedRows X
        raise InvalidArgument("multiply: For elementwise_op, if X is Sparse(VarType."
                              "SELECTED_ROWS), Y must be scalar, the first dimension of Y "
                              f"should be 1. But received Y's dims {list(y.shape)}.")
    fn = (multiply_raw_bf16 if x.dtype is DataType.BFLOAT16
          else multiply_raw)
    return make_selected_rows(ctx, x.rows, x.height, fn(ctx, x.data, y, axis))


@register_kernel("multiply_sr", "CPU", dtypes=_MULTIPLY_SR)
def multiply_sr(ctx, x: LoDTensor, y: Tensor) -> LoDTensor:
    """multiply of X's value and Y; rows and height kept."""
    return multiply_raw_sr(ctx, x, y, -1)
