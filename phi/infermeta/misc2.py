"""InferMeta of helper `misc2`'s ops (Paddle's paddle/phi/infermeta/multiary.cc)."""

from __future__ import annotations

from phi.infermeta._utils import UNKNOWN

__all__ = ["check_memory_continue_infer_meta", "coalesce_tensor_infer_meta"]


def coalesce_tensor_infer_meta(input: list, dtype, copy_data: bool, set_constant: bool,
                               persist_output: bool, constant: float, use_align: bool,
                               align_size: int, user_defined_size_of_dtype: int,
                               concated_shapes: list, concated_ranks: list, output: list,
                               fused_output) -> None:
    """CoalesceTensorInferMeta: Output[i] as Input[i] (or as concated_shapes says); FusedOutput
    1-D with every chunk, aligned as the kernel aligns them (-1 while a dim is unknown)."""
    from phi.kernels.funcs.memory import coalesce_tensor_layout

    shapes = [tuple(m.dims) for m in input]
    if concated_shapes:
        shapes, at = [], 0
        for rank in concated_ranks:
            shapes.append(tuple(int(d) for d in concated_shapes[at:at + int(rank)]))
            at += int(rank)
    for o, shape in zip(output, shapes, strict=False):
        if o is not None:
            o.set_dims(shape)
            o.set_dtype(dtype)
    if any(d == UNKNOWN or d < 0 for s in shapes for d in s):
        total = UNKNOWN
    else:
        total = coalesce_tensor_layout(shapes, dtype, use_align, align_size,
                                       user_defined_size_of_dtype)[1]
    fused_output.set_dims((total,))
    fused_output.set_dtype(dtype)


def check_memory_continue_infer_meta(x: list, out: list, xout) -> None:
    """Out[i] as X[i]; XOut 1-D of the chunks aligned to the CPU's 4096 bytes, in X's dtype."""
    from phi.kernels.funcs.memory import coalesce_tensor_layout

    for src, o in zip(x, out, strict=False):
        if o is not None:
            o.set_dims(tuple(src.dims))
            o.set_dtype(src.dtype)
    shapes = [tuple(m.dims) for m in x]
    dtype = x[0].dtype
    if any(d == UNKNOWN or d < 0 for s in shapes for d in s):
        total = UNKNOWN
    else:
        total = coalesce_tensor_layout(shapes, dtype, True, -1, -1)[1]
    xout.set_dims((total,))
    xout.set_dtype(dtype)
