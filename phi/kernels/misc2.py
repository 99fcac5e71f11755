"""Kernels of helper `misc2`: npu_identity, shadow_output and coalesce_tensor (Paddle's
paddle/phi/kernels/{npu_identity,coalesce_tensor}_kernel.cc, cpu/shadow_output_kernel.cc)."""

from __future__ import annotations

import math

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.core.kernel import Int64, Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import owned

__all__ = ["check_memory_continue", "coalesce_tensor", "coalesce_tensor_layout", "npu_identity",
           "shadow_output"]

# Paddle 2.6.2 CPU registrations (corpus cpu_ops.json)
NPU_IDENTITY_DTYPES = ["bool", "float16", "float32", "float64", "int16", "int32", "int64", "int8",
                       "uint8"]


@register_kernel("npu_identity", "CPU", dtypes=NPU_IDENTITY_DTYPES)
def npu_identity(ctx, x: Tensor, format: int) -> Tensor:
    """A copy of x: off NPU the storage `format` is ignored (NPUIdentityKernel copies)."""
    return owned(ctx.xp, x)


@register_kernel("shadow_output", "CPU", dtypes=["float32"])
def shadow_output(ctx, x: Tensor) -> Tensor:
    """Paddle's CPU kernel is empty and leaves out uninitialized (a fetch gives nothing); out
    is x's data here, the value the new-IR executor shares under `name`."""
    return owned(ctx.xp, x)


# CPU alignment of coalesce_tensor's chunks when align_size is -1 (phi::Alignment: 4 KiB pages)
CPU_ALIGNMENT = 4096


def coalesce_tensor_layout(shapes, dtype: DataType, use_align: bool, align_size: int,
                           size_of_dtype: int) -> tuple[list[int], int]:
    """(element offset of each chunk, total elements) of the fused buffer: each chunk's bytes
    rounded up to the alignment (phi::Alignment) when use_align."""
    if size_of_dtype == -1:
        size_of_dtype = dtype.itemsize
    alignment = align_size if align_size > 0 else CPU_ALIGNMENT
    offsets, total = [], 0
    for i, shape in enumerate(shapes):
        numel = 1
        for d in shape:
            numel *= int(d)
        if numel == 0:
            raise InvalidArgument(f"coalesce_tensor: The number of `{i}`-th tensor's elements "
                                  f"is 0.")
        nbytes = numel * size_of_dtype
        if use_align and nbytes % alignment:
            nbytes += alignment - nbytes % alignment
        offsets.append(total)
        total += nbytes // size_of_dtype
    return offsets, total


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
