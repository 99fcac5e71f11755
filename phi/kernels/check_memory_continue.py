"""The ``check_memory_continue`` kernel."""

from __future__ import annotations


from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import owned
from phi.kernels.funcs.memory import coalesce_tensor_layout

__all__ = ["check_memory_continue"]


@register_kernel("check_memory_continue", "CPU", dtypes=["float32", "float64", "int32"])
def check_memory_continue(ctx, x: list[Tensor]) -> tuple[list[Tensor], Tensor]:
    """Checks that the inputs lie one after another in one buffer (the chunks coalesce_tensor
    makes).  Separate arrays never do here, so more than one input raises as Paddle does for
    separately fed tensors; Out is X, XOut the aligned buffer (X's data, then zeros)."""
    xp = ctx.xp
    if len(x) > 1:
        raise InvalidArgument("check_memory_continue: The infered address of the next tensor "
                              "should be equal to the real address of the next tensor, but "
                              "Input(X) are separate tensors.")
    dtype = ctx.data_type(x[0])
    _, total = coalesce_tensor_layout([tuple(a.shape) for a in x], dtype, True, -1, -1)
    buf = ctx.full((total,), 0, dtype)
    buf[:x[0].size] = xp.reshape(x[0], (-1,))
    return [owned(xp, a) for a in x], buf
