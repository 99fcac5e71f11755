"""fused_transpose (oneDNN reorder): transpose2 with the neighbours the passes folded in.

X is first squeezed (fused_squeeze2_axes, squeeze2_transpose2_onednn_fuse_pass), transposed by
``axis``, converted with ``scale`` / ``shift`` to ``output_data_type`` (fp32, bf16, int8,
uint8; empty: X's dtype; quant_transpose2_dequant_onednn_fuse_pass), then its dims are
unsqueezed (fused_unsqueeze2_axes) or reshaped (fused_reshape2_shape).  The reorder scales:
dst = scale * (src - shift) into fp32 (shift is the source zero point), dst = scale * src +
shift otherwise, rounded half to even and saturated for integer outputs.
"""

from __future__ import annotations

import numpy as np

from phi.common.data_type import DataType
from phi.common.layout import DataLayout
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import quiet
from phi.kernels.funcs.onednn_post_ops import reshape_dims, squeeze_dims, unsqueeze_dims

__all__ = ["fused_transpose"]


_OUT = {"fp32": DataType.FLOAT32, "bf16": DataType.BFLOAT16, "int8": DataType.INT8,
        "uint8": DataType.UINT8}


@register_kernel("fused_transpose", ("ONEDNN",), dtypes=["float32", "int8", "uint8"],
                 layout=DataLayout.ONEDNN, output_defs={0: {"dtype": DataType.ALL_DTYPE}})
def fused_transpose(ctx, x: Tensor, axis: list[int], fused_squeeze2_axes: list[int],
                    fused_unsqueeze2_axes: list[int], fused_reshape2_shape: list[int],
                    scale: float, shift: float, output_data_type: str) -> Tensor:
    """Out = fused dims of convert(transpose(squeeze(X), axis))."""
    xp = ctx.xp
    if output_data_type and output_data_type not in _OUT:
        raise InvalidArgument(f"fused_transpose: output_data_type must be one of "
                              f"{sorted(_OUT)} or empty, got {output_data_type!r}.")
    if fused_squeeze2_axes:
        x = xp.reshape(x, squeeze_dims(x.shape, fused_squeeze2_axes, "fused_transpose"))
    if len(axis) != x.ndim or sorted(int(a) % x.ndim for a in axis) != list(range(x.ndim)):
        raise InvalidArgument(f"fused_transpose: axis {list(axis)} is no permutation of the "
                              f"{x.ndim} dims of X {list(x.shape)}.")
    out = xp.permute_dims(x, tuple(int(a) % x.ndim for a in axis))
    want = _OUT[output_data_type].to_numpy() if output_data_type else x.dtype
    s, z = np.float32(scale), np.float32(shift)
    if s != 1 or z != 0 or want != x.dtype:
        with quiet(xp):
            v = out.astype(np.float32)
            v = s * (v - z) if want == np.float32 else s * v + z
            if np.dtype(want).kind in "iu":
                info = np.iinfo(want)
                v = xp.clip(xp.rint(v), info.min, info.max)
            out = v.astype(want)
    if fused_unsqueeze2_axes:
        out = xp.reshape(out, unsqueeze_dims(out.shape, fused_unsqueeze2_axes))
    elif fused_reshape2_shape:
        out = xp.reshape(out, reshape_dims(out.shape, fused_reshape2_shape, "fused_transpose",
                                           "fused_reshape2_shape"))
    return xp.ascontiguousarray(out)
