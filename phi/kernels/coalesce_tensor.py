"""The ``coalesce_tensor`` kernel."""

from __future__ import annotations

import math

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.core.kernel import Int64, Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import owned
from phi.kernels.funcs.memory import coalesce_tensor_layout

__all__ = ["coalesce_tensor"]


@register_kernel("coalesce_tensor", "CPU", dtypes=["float32", "float64", "int32"])
def coalesce_tensor(ctx, input: list[Tensor], dtype: DataType, copy_data: bool,
                    set_constant: bool, persist_output: bool, constant: float, use_align: bool,
                    align_size: int, user_defined_size_of_dtype: int, concated_shapes: list[Int64],
                    concated_ranks: list[int]) -> tuple[list[Tensor], Tensor]:
    """One buffer holding every input one after another (chunks aligned when use_align);
    Output[i] is its chunk.  copy_data copies the inputs in, else set_constant fills the whole
    buffer; otherwise the buffer is uninitialized in Paddle (zeros here)."""
    xp = ctx.xp
    shapes = [tuple(a.shape) for a in input]
    if concated_shapes:  # the inputs' shapes given by attribute (rank by rank)
        shapes, at = [], 0
        for rank in concated_ranks:
            shapes.append(tuple(int(d) for d in concated_shapes[at:at + int(rank)]))
            at += int(rank)
        if len(shapes) != len(input):
            raise InvalidArgument(f"coalesce_tensor: concated_ranks describes {len(shapes)} "
                                  f"tensors, but Input has {len(input)}.")
    offsets, total = coalesce_tensor_layout(shapes, dtype, use_align, align_size,
                                            user_defined_size_of_dtype)
    fused = ctx.full((total,), constant if set_constant else 0, dtype)
    if copy_data:
        for a, off in zip(input, offsets, strict=True):
            if ctx.data_type(a) != dtype:
                raise InvalidArgument(f"coalesce_tensor: The data type of Input must be {dtype}, "
                                      f"but received {ctx.data_type(a)}.")
            fused[off:off + a.size] = xp.reshape(a, (-1,))
    outs = [owned(xp, xp.reshape(fused[off:off + math.prod(shape)], shape))
            for shape, off in zip(shapes, offsets, strict=True)]
    return outs, fused
