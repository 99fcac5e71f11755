"""The ``scale_sr`` kernel."""

from __future__ import annotations


from phi.common.data_type import DataType
from phi.common.scalar import Scalar
from phi.core.kernel import LoDTensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.selected_rows import make_selected_rows, need_sr
from phi.kernels.scale import scale_float


# -- value kernels ------------------------------------------------------------------------------

@register_kernel("scale_sr", "CPU", dtypes=["bfloat16", "float32", "float64", "int16", "int32",
                                            "int64", "int8", "uint8"])
def scale_sr(ctx, x: LoDTensor, scale: Scalar, bias: float, bias_after_scale: bool) -> LoDTensor:
    """scale on the value; rows and height kept."""
    x = need_sr("scale_sr", "X", x)
    fn = scale_float if x.dtype in (DataType.FLOAT32, DataType.FLOAT64,
                                              DataType.BFLOAT16) else scale
    return make_selected_rows(ctx, x.rows, x.height, fn(ctx, x.data, scale, bias, bias_after_scale))
