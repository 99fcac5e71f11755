"""Helpers shared by coalesce_tensor and check_memory_continue: the layout of a coalesced
buffer."""

from __future__ import annotations


from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument

__all__ = ["CPU_ALIGNMENT", "coalesce_tensor_layout"]


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
