"""sequence_mask (Paddle's paddle/phi/kernels/impl/sequence_mask_kernel_impl.h): Y[..., j] =
j < X[...], for j < maxlen (MaxLenTensor, else the attribute, else -1: the largest length)."""

from __future__ import annotations

import numpy as np

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel

__all__ = ["sequence_mask"]


@register_kernel("sequence_mask", "CPU", dtypes=["float32", "float64", "int32", "int64"],
                 input_defs={"max_len_tensor": {"dtype": DataType.ALL_DTYPE}},
                 output_defs={0: {"dtype": DataType.ALL_DTYPE}})
def sequence_mask(ctx, x: Tensor, max_len_tensor: Tensor | None, maxlen: int, out_dtype: int
                  ) -> Tensor:
    """A mask of lengths x: x's dims plus maxlen, 1 where the position is below the length."""
    if max_len_tensor is not None:
        maxlen = int(np.asarray(max_len_tensor).reshape(-1)[0])
        if maxlen <= 0:
            raise InvalidArgument(f"sequence_mask: Output(MaxLenTensor)'s value should be "
                                  f"greater than 0, but received {maxlen}.")
    if maxlen < 0:
        maxlen = int(x.max()) if x.size else 0
    mask = np.arange(maxlen) < np.asarray(x)[..., None]
    return mask.astype(DataType.from_proto(int(out_dtype)).to_numpy())
