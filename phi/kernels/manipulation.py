"""Shape manipulation kernels: reshape, transpose, concat, split, squeeze, unsqueeze, stack,
unstack (Paddle's paddle/phi/kernels/{reshape,transpose,concat,split,squeeze,unsqueeze,stack,
unstack}_kernel*).

Outputs are copies, never views of the inputs: Paddle's kernels write new memory (reshape
copies unless run in place), so writing into an output must not change an input.
"""

from __future__ import annotations

import functools

import numpy as np
from phi.common.backend import Backend
from phi.common.int_array import IntArray
from phi.common.scalar import Scalar
from phi.core.bound import binds
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.infermeta.funcs import (
    concat_axis,
    normalize_perm,
    reshape_out_dims,
    split_axis,
    split_sections,
    squeeze_out_dims,
    unsqueeze_out_dims,
)
from phi.kernels.funcs import ALL_DTYPES, owned

__all__ = ["concat", "reshape", "reshape_infer", "split", "transpose"]

# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json); all four register the same 12
_ALL12 = list(ALL_DTYPES)
RESHAPE_DTYPES = TRANSPOSE_DTYPES = CONCAT_DTYPES = SPLIT_DTYPES = _ALL12


@register_kernel("reshape_infer", ("CPU", "GPU"), dtypes=RESHAPE_DTYPES)
def reshape_infer(ctx, x: Tensor, shape: IntArray) -> Tensor:
    """x with dims from ``shape`` (0 copies x's dim, one -1 is inferred), as a copy."""
    dims = _reshape_dims(x.shape, tuple(shape.data))
    return ctx.xp.reshape(x, dims, copy=True)


# the dims of a reshape / the normalized perm of a transpose, per (dims, attribute): programs
# repeat the same few on every run (errors are raised, never kept)
_reshape_dims = functools.lru_cache(maxsize=1024)(reshape_out_dims)
_perm = functools.lru_cache(maxsize=1024)(normalize_perm)


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
    return owned(xp, xp.permute_dims(x, _perm(x.ndim, tuple(perm))))


# Bound forms (phi.core.bound): for a numpy input of the planned dims, the output dims (or the
# normalized perm) are worked out once; other inputs take the kernel's way.

def _planned(ctx, metas):
    """The planned dims of the one tensor input, or None when the bound form would not pay."""
    if ctx.xp is not np or metas[0] is None:
        return None
    return metas[0][1]


def _bind_dims_copy(kernel, out_dims) -> None:
    """Bind ``kernel`` (x copied into ``out_dims(x.dims, attribute)``, and an empty XShape of
    dims [0, *x.dims]) with its output dims worked out once."""

    def binder(ctx, attrs, metas):
        dims_in = _planned(ctx, metas)
        if dims_in is None:
            return None
        (arg,) = attrs
        dims = out_dims(dims_in, arg)  # a typed error: no bound form (phi.core.bound)
        xshape = (0, *dims_in)
        nd = np.ndarray

        def bound(x):
            if type(x) is nd and x.shape == dims_in:
                return x.reshape(dims, copy=True), np.empty(xshape, dtype=x.dtype)
            return kernel(ctx, x, arg)

        return bound

    binds(kernel)(binder)


_bind_dims_copy(reshape, lambda dims, shape: _reshape_dims(dims, tuple(shape.data)))


@binds(transpose)
def _bind_transpose(ctx, attrs, metas):
    dims_in = _planned(ctx, metas)
    if dims_in is None:
        return None
    (perm,) = attrs
    axes = _perm(len(dims_in), tuple(perm))
    rank = len(dims_in)
    nd = np.ndarray

    def bound(x):
        if type(x) is nd and x.ndim == rank:
            return np.asarray(x.transpose(axes), copy=True)
        return transpose(ctx, x, perm)

    return bound


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


# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json, ALL_LAYOUT keys)
SQUEEZE_DTYPES = _ALL12
UNSQUEEZE_DTYPES = [d for d in _ALL12 if d != "float16"]  # 2.6.2 registers no CPU float16
STACK_DTYPES = _ALL12
UNSTACK_DTYPES = ["float32", "float64", "int32", "int64", "complex64", "complex128"]
_XSHAPE_STAYS = {1: {"backend": Backend.ALL_BACKEND}}


@register_kernel("squeeze_infer", ("CPU", "GPU"), dtypes=SQUEEZE_DTYPES)
def squeeze_infer(ctx, x: Tensor, axes: IntArray) -> Tensor:
    """x without its size-1 axes (all of them, or those of ``axes`` that have size 1)."""
    return ctx.xp.reshape(x, squeeze_out_dims(x.shape, axes.data), copy=True)


@register_kernel("squeeze", ("CPU", "GPU"), dtypes=SQUEEZE_DTYPES, output_defs=_XSHAPE_STAYS)
def squeeze(ctx, x: Tensor, axes: IntArray) -> tuple[Tensor, Tensor]:
    """(``squeeze_infer``, an empty XShape of dims [0, *x.dims])."""
    return squeeze_infer(ctx, x, axes), ctx.xp.empty((0, *tuple(x.shape)), dtype=x.dtype)


@register_kernel("unsqueeze_infer", ("CPU", "GPU"), dtypes=UNSQUEEZE_DTYPES)
def unsqueeze_infer(ctx, x: Tensor, axes: IntArray) -> Tensor:
    """x with size-1 axes inserted at ``axes``."""
    return ctx.xp.reshape(x, unsqueeze_out_dims(x.shape, axes.data), copy=True)


@register_kernel("unsqueeze", ("CPU", "GPU"), dtypes=UNSQUEEZE_DTYPES,
                 output_defs=_XSHAPE_STAYS)
def unsqueeze(ctx, x: Tensor, axes: IntArray) -> tuple[Tensor, Tensor]:
    """(``unsqueeze_infer``, an empty XShape of dims [0, *x.dims])."""
    return unsqueeze_infer(ctx, x, axes), ctx.xp.empty((0, *tuple(x.shape)), dtype=x.dtype)


_bind_dims_copy(unsqueeze, lambda dims, axes: unsqueeze_out_dims(dims, axes.data))


@register_kernel("stack", ("CPU", "GPU"), dtypes=STACK_DTYPES)
def stack(ctx, x: list[Tensor], axis: int) -> Tensor:
    """The tensors of ``x`` (same dims) joined along a new axis ``axis``."""
    return ctx.xp.stack(x, axis=axis)


@register_kernel("unstack", ("CPU", "GPU"), dtypes=UNSTACK_DTYPES)
def unstack(ctx, x: Tensor, axis: int, num: int) -> list[Tensor]:
    """The slices of x along ``axis``, that axis removed."""
    xp = ctx.xp
    axis = axis + x.ndim if axis < 0 else axis
    return [owned(xp, xp.take(x, i, axis=axis)) for i in range(x.shape[axis])]


__all__ += ["squeeze", "squeeze_infer", "stack", "unsqueeze", "unsqueeze_infer", "unstack"]



TRIL_TRIU_DTYPES = ["bool", "float32", "float64", "int32", "int64", "float16", "complex64",
                    "complex128"]


@register_kernel("tril_triu", ("CPU", "GPU"), dtypes=TRIL_TRIU_DTYPES)
def tril_triu(ctx, x: Tensor, diagonal: int, lower: bool) -> Tensor:
    """The lower (``lower``) or upper triangle of the last two dims from ``diagonal`` on, the
    rest zeros."""
    xp = ctx.xp
    return xp.tril(x, k=diagonal) if lower else xp.triu(x, k=diagonal)


__all__ += ["tril_triu"]
