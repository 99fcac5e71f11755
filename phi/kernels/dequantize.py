"""dequantize (oneDNN reorder int8 / uint8 / bfloat16 -> float32): Output = (Input - Shift) *
(1 / Scale) in float32 (the reorder's scale is the reciprocal: bitwise what Paddle gives, which
differs from a division by an ulp); Shift is the zero point of a uint8 input."""

from __future__ import annotations

import numpy as np

from phi.common.data_type import DataType
from phi.common.layout import DataLayout
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import quiet

__all__ = ["dequantize"]


@register_kernel("dequantize", ("ONEDNN",), dtypes=["int8", "uint8", "bfloat16"],
                 layout=DataLayout.ONEDNN, output_defs={0: {"dtype": DataType.FLOAT32}})
def dequantize(ctx, input: Tensor, Scale: float, Shift: float) -> Tensor:
    """float32 (Input - Shift) / Scale."""
    xp = ctx.xp
    scale, shift = np.float32(Scale), np.float32(Shift)
    if scale == 0:
        raise InvalidArgument("dequantize: Dequantization scale must be different than 0.0f")
    if shift != 0 and input.dtype != np.uint8:
        raise InvalidArgument("dequantize: Dequantization shift must be 0.0f for a signed "
                              f"input, got Shift={Shift} with {input.dtype} Input.")
    with quiet(xp):
        v = input.astype(np.float32)
        if shift != 0:
            v = v - shift
        return xp.ascontiguousarray((v * np.float32(np.float32(1) / scale)).astype(np.float32))
