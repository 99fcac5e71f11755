"""The ``fusion_seqconv_eltadd_relu`` kernel."""

from __future__ import annotations

from itertools import pairwise

import numpy as np

from phi.core.errors import InvalidArgument
from phi.core.kernel import LoDTensor, Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.sequence import seq_offsets

__all__ = ["fusion_seqconv_eltadd_relu"]


@register_kernel("fusion_seqconv_eltadd_relu", "CPU", dtypes=["float32", "float64"])
def fusion_seqconv_eltadd_relu(ctx, x: LoDTensor, filter: Tensor, bias: Tensor,
                               context_length: int, context_start: int, context_stride: int
                               ) -> tuple[LoDTensor, Tensor]:
    """relu(sequence_conv(X) + Bias): ColMat row j holds the contextLength rows of X from
    j + contextStart on (zeros outside j's sequence), Out = ColMat Filter + Bias."""
    op = "fusion_seqconv_eltadd_relu"
    if context_stride != 1:
        raise InvalidArgument(f"{op}: Currently, FusionSeqConvEltAddReluOp only supports "
                              f"contextStride=1, but received value is: {context_stride}.")
    data = np.asarray(x.data)
    offsets = seq_offsets(op, x, "X")
    m = data.shape[1]
    if filter.shape[0] != context_length * m:
        raise InvalidArgument(f"{op}: Filter's height should be context_length * input width "
                              f"({context_length * m}), got {filter.shape[0]}.")
    col = np.zeros((data.shape[0], context_length * m), data.dtype)
    for a, b in pairwise(offsets):
        for j in range(a, b):
            for k in range(context_length):
                r = j + context_start + k
                if a <= r < b:
                    col[j, k * m:(k + 1) * m] = data[r]
    out = col @ filter + bias.reshape(1, -1)
    return ctx.lod_tensor(np.maximum(out, out.dtype.type(0)), x.lod), col
