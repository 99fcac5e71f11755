"""The ``fc`` kernel."""

from __future__ import annotations


from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.fused import fc_values


FLOATS = ["float32", "float64"]


@register_kernel("fc", ("CPU",), dtypes=FLOATS)
def fc(ctx, input: Tensor, w: Tensor, bias: Tensor | None, in_num_col_dims: int,
       activation_type: str, use_mkldnn: bool, padding_weights: bool, use_quantizer: bool,
       mkldnn_data_type: str, scale_in: float, scale_weights: list[float], scale_out: float,
       force_fp32_output: bool) -> Tensor:
    """act(Input @ W + Bias); activation_type "relu" or none (the oneDNN attributes unused)."""
    out = fc_values(ctx.xp, input, w, bias, in_num_col_dims, activation_type == "relu",
                    padding_weights)
    rows = tuple(input.shape[:in_num_col_dims])
    return ctx.xp.reshape(out, (*rows, out.shape[-1]))
