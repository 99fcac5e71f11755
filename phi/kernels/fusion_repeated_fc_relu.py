"""The ``fusion_repeated_fc_relu`` kernel."""

from __future__ import annotations


from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.fused import fc_values


FLOATS = ["float32", "float64"]


@register_kernel("fusion_repeated_fc_relu", ("CPU",), dtypes=FLOATS)
def fusion_repeated_fc_relu(ctx, x: Tensor, w: list[Tensor], bias: list[Tensor]
                            ) -> tuple[list[Tensor], Tensor]:
    """(ReluOut: every layer but the last, Out) of relu(h @ W_i + b_i) repeated."""
    if len(w) != len(bias) or len(w) < 2:
        raise InvalidArgument(f"fusion_repeated_fc_relu: W ({len(w)}) and Bias ({len(bias)}) "
                              "must hold the same number (at least 2) of tensors.")
    outs, h = [], x
    for wi, bi in zip(w, bias, strict=True):
        h = fc_values(ctx.xp, h, wi, bi, 1, True, relu_keeps_nan=x.dtype == ctx.xp.float32)
        outs.append(h)
    return outs[:-1], outs[-1]
