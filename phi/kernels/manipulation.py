"""Shape manipulation kernels: reshape, transpose, concat, split (Paddle's
paddle/phi/kernels/{reshape,transpose,concat,split}_kernel*).

Outputs are copies, never views of the inputs: Paddle's kernels write new memory (reshape
copies unless run in place), so writing into an output must not change an input.
"""

from __future__ import annotations

from phi.common.backend import Backend
from phi.common.int_array import IntArray
from phi.common.scalar import Scalar
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.infermeta.multiary import concat_axis
from phi.infermeta.unary import normalize_perm, reshape_out_dims, split_axis, split_sections
from phi.kernels.funcs import owned

__all__ = ["concat", "reshape", "reshape_infer", "split", "transpose"]

# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json); all four register the same 12
_ALL12 = ["float32", "float64", "int8", "uint8", "int16", "int32", "int64", "bool", "float16",
          "bfloat16", "complex64", "complex128"]
RESHAPE_DTYPES = TRANSPOSE_DTYPES = CONCAT_DTYPES = SPLIT_DTYPES = _ALL12


@register_kernel("reshape_infer", ("CPU", "GPU"), dtypes=RESHAPE_DTYPES)
def reshape_infer(ctx, x: Tensor, shape: IntArray) -> Tensor:
    """x with dims from ``shape`` (0 copies x's dim, one -1 is inferred), as a copy."""
    dims = reshape_out_dims(x.shape, shape.data)
    return ctx.xp.reshape(x, dims, copy=True)


# Paddle 2.6.2's `reshape` kernel also writes XShape ([0, *x.dims], metadata without data):
# the legacy reshape2 op's signature names both outputs.  XShape never moves between devices.
@register_kernel("reshape", ("CPU", "GPU"), dtypes=RESHAPE_DTYPES,
                 output_defs={1: {"backend": Backend.ALL_BACKEND}})
def reshape(ctx, x: Tensor, shape: IntArray) -> tuple[Tensor, Tensor]:
    """(x reshaped as ``reshape_infer``, an empty XShape of dims [0, *x.dims])."""
    out = reshape_infer(ctx, x, shape)
    return out, ctx.xp.empty((0, *tuple(x.shape)), dtype=x.dtype)


@register_kernel("transpose", ("CPU", "GPU"), dtypes=TRANSPOSE_DTYPES)
def transpose(ctx, x: Tensor, perm: list[int]) -> Tensor:
    """x with its axes permuted: out.dims[i] = x.dims[perm[i]] (negative entries allowed)."""
    xp = ctx.xp
    return owned(xp, xp.permute_dims(x, normalize_perm(x.ndim, perm)))


@register_kernel("concat", ("CPU", "GPU"), dtypes=CONCAT_DTYPES)
def concat(ctx, x: list[Tensor], axis: Scalar) -> Tensor:
    """The tensors of ``x`` joined along ``axis`` (size-0 inputs contribute nothing)."""
    return ctx.xp.concat(x, axis=concat_axis(x[0].ndim, axis))


@register_kernel("split", ("CPU", "GPU"), dtypes=SPLIT_DTYPES)
def split(ctx, x: Tensor, sections: IntArray, axis: Scalar) -> list[Tensor]:
    """x cut along ``axis`` into pieces of the given sizes (one -1 takes the rest)."""
    xp = ctx.xp
    ax = split_axis(x.shape, axis)
    outs = []
    start = 0
    for size in split_sections(x.shape, sections, ax):
        index = (slice(None),) * ax + (slice(start, start + size),)
        outs.append(owned(xp, x[index]))
        start += size
    return outs


@register_kernel("split_with_num", ("CPU", "GPU"),
                 dtypes=["float32", "float64", "int8", "uint8", "int32", "int64", "bool",
                         "float16", "bfloat16"])
def split_with_num(ctx, x: Tensor, num: int, axis: Scalar) -> list[Tensor]:
    """x cut along ``axis`` into ``num`` equal pieces."""
    xp = ctx.xp
    ax = split_axis(x.shape, axis)
    size = x.shape[ax] // num
    return [owned(xp, x[(slice(None),) * ax + (slice(i * size, (i + 1) * size),)])
            for i in range(num)]


__all__ += ["split_with_num"]
