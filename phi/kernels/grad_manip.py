"""Grad kernels of the shape / data-movement ops (Paddle's paddle/phi/kernels/*_grad_kernel*).

Most forward ops here only move elements, so their gradient is the adjoint of the move: the
forward kernel run on element numbers says which input element each output element came from
and the output gradient is summed back there (`adjoint`).  Sums of duplicates happen in the
gradient's dtype (float16 / bfloat16 in float32, converted back as Paddle's CPU does).
"""

from __future__ import annotations

import functools

import numpy as np

from phi.common.data_type import DataType
from phi.common.layout import DataLayout
from phi.common.int_array import IntArray
from phi.common.scalar import Scalar
from phi.core.errors import InvalidArgument, PhiError
from phi.core.kernel import Int64, Tensor
from phi.core.registry import register_kernel
from phi.kernels import broadcast, manip, manipulation, slicing, spectral
from phi.kernels.funcs import ALL_DTYPES, half_op, owned
from phi.kernels.grad_elementwise import reduce_to
from phi.kernels.reduce import _half_sum
from phi.kernels.scatter import set_value_target_dims

__all__ = ["adjoint", "grad_kernel", "sum_into", "typed_errors"]

_ANY = {"dtype": DataType.ALL_DTYPE}
ALL12 = list(ALL_DTYPES)
_HALF = (DataType.FLOAT16, DataType.BFLOAT16)
# Paddle also registers the view-like grads for the STRIDED layout (every dtype)
STRIDED = DataLayout.STRIDED


def typed_errors(where: str, fn):
    """fn with a raw exception from inputs that do not fit together (shapes, indices the
    forward op would have refused) turned into InvalidArgument naming ``where``."""
    @functools.wraps(fn)
    def run(*args):
        try:
            return fn(*args)
        except PhiError:
            raise
        except (ValueError, IndexError, TypeError, KeyError, ZeroDivisionError) as exc:
            raise InvalidArgument(f"{where}: the inputs do not fit this gradient "
                                  f"({type(exc).__name__}: {exc}).") from exc
    return run


def grad_kernel(name: str, *args, **kwargs):
    """register_kernel for a grad kernel whose bad inputs raise typed errors."""
    def decorate(fn):
        return register_kernel(name, *args, **kwargs)(typed_errors(name, fn))
    return decorate


def sum_into(ctx, size: int, positions, values, like):
    """A flat array of ``size`` zeros of like's dtype with ``values`` summed at ``positions``
    (positions < 0 take nothing): the scatter-add of every gradient here."""
    xp = ctx.xp
    dtype = ctx.data_type(like)
    positions = xp.reshape(xp.asarray(positions), (-1,))
    values = xp.reshape(xp.asarray(values), (-1,))
    keep = positions >= 0
    positions, values = positions[keep], values[keep]
    if dtype in _HALF:  # one half addition per element, in order (each truncated back)
        acc = xp.zeros(size, dtype=values.dtype)
        order = np.argsort(positions, kind="stable")
        ranks = np.empty(positions.size, np.int64)
        if positions.size:
            pos_sorted = positions[order]
            starts = np.r_[0, np.flatnonzero(pos_sorted[1:] != pos_sorted[:-1]) + 1]
            first = np.repeat(starts, np.diff(np.r_[starts, positions.size]))
            ranks[order] = np.arange(positions.size) - first
        for r in range(int(ranks.max()) + 1 if positions.size else 0):
            hit = ranks == r  # no position twice in one round
            acc[positions[hit]] = half_op(ctx, lambda a, b: a + b, acc[positions[hit]],
                                          values[hit])
        return acc
    if dtype is DataType.BOOL:
        acc = xp.zeros(size, dtype=np.int64)
        xp.add.at(acc, positions, values.astype(np.int64))
        return acc != 0
    acc = xp.zeros(size, dtype=like.dtype)
    xp.add.at(acc, positions, values)
    return acc


def adjoint(ctx, x_shape, dout, forward):
    """The gradient of a data-movement op: ``forward`` (the op on an array) run on the element
    numbers of an x of ``x_shape`` (-1 marks output elements that come from no element of x),
    dout summed into the elements they name."""
    xp = ctx.xp
    size = int(np.prod(x_shape, dtype=np.int64))
    ids = xp.reshape(xp.arange(size, dtype=np.int64), tuple(x_shape))
    picked = forward(ids)
    return xp.reshape(sum_into(ctx, size, picked, dout, dout), tuple(x_shape))


def _reduce_to(ctx, dout, shape):
    """dout summed over the broadcast dims down to ``shape`` (numpy broadcasting rules); half
    types in Eigen's half order, as Paddle's reduce (grad_elementwise.reduce_to otherwise)."""
    xp = ctx.xp
    shape = tuple(shape)
    dtype = ctx.data_type(dout)
    if dtype not in _HALF:
        return owned(xp, reduce_to(xp, dout, shape))
    lead = dout.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(lead + i for i, d in enumerate(shape)
                                     if d == 1 and dout.shape[lead + i] != 1)
    if not axes:
        return owned(xp, xp.reshape(dout, shape))
    return xp.reshape(_half_sum(ctx, dout, axes, True, dtype), shape)


# -- shape ops: the gradient is the output gradient with x's dims ------------------------------

@grad_kernel("reshape_grad", ("CPU", "GPU"), dtypes=ALL12)
@grad_kernel("reshape_grad", ("CPU", "GPU"), dtypes=ALL12, layout=STRIDED)
def reshape_grad(ctx, out_grad: Tensor) -> Tensor:
    """out_grad as it is: X@GRAD takes XShape's dims in the op (Paddle's grad InferShape)."""
    return owned(ctx.xp, out_grad)


@grad_kernel("squeeze_grad", ("CPU", "GPU"), dtypes=ALL12,
                 input_defs={"xshape": {"dtype": DataType.ALL_DTYPE}})
@grad_kernel("squeeze_grad", ("CPU", "GPU"), dtypes=ALL12, layout=STRIDED,
                 input_defs={"xshape": {"dtype": DataType.ALL_DTYPE}})
def squeeze_grad(ctx, xshape: Tensor, out_grad: Tensor, axes: IntArray) -> Tensor:
    """out_grad with x's dims (XShape's dims without the leading 0)."""
    return ctx.xp.reshape(owned(ctx.xp, out_grad), tuple(xshape.shape[1:]))


@grad_kernel("unsqueeze_grad", ("CPU", "GPU"), dtypes=ALL12,
                 input_defs={"xshape": {"dtype": DataType.ALL_DTYPE}})
@grad_kernel("unsqueeze_grad", ("CPU", "GPU"), dtypes=ALL12, layout=STRIDED,
                 input_defs={"xshape": {"dtype": DataType.ALL_DTYPE}})
def unsqueeze_grad(ctx, xshape: Tensor, out_grad: Tensor) -> Tensor:
    """out_grad with x's dims (XShape's dims without the leading 0)."""
    return ctx.xp.reshape(owned(ctx.xp, out_grad), tuple(xshape.shape[1:]))


@grad_kernel("flatten_grad", ("CPU", "GPU"),
                 dtypes=["float32", "float64", "int8", "uint8", "int32", "int64", "bfloat16"],
                 input_defs={"xshape": {"dtype": DataType.ALL_DTYPE}})
@grad_kernel("flatten_grad", ("CPU", "GPU"), dtypes=ALL12, layout=STRIDED,
                 input_defs={"xshape": {"dtype": DataType.ALL_DTYPE}})
def flatten_grad(ctx, xshape: Tensor, out_grad: Tensor) -> Tensor:
    """out_grad with x's dims (XShape's dims without the leading 0)."""
    return ctx.xp.reshape(owned(ctx.xp, out_grad), tuple(xshape.shape[1:]))


@grad_kernel("transpose_grad", ("CPU", "GPU"), dtypes=ALL12)
@grad_kernel("transpose_grad", ("CPU", "GPU"), dtypes=ALL12, layout=STRIDED)
def transpose_grad(ctx, out_grad: Tensor, axis: list[int]) -> Tensor:
    """out_grad permuted back by the inverse of ``axis``."""
    xp = ctx.xp
    perm = [a % max(out_grad.ndim, 1) for a in axis]
    return owned(xp, xp.permute_dims(out_grad, tuple(int(i) for i in np.argsort(perm))))


@grad_kernel("concat_grad", ("CPU", "GPU"),
                 dtypes=[d for d in ALL12 if d != "bfloat16"])
def concat_grad(ctx, x: list[Tensor], out_grad: Tensor, axis: Scalar) -> list[Tensor]:
    """out_grad cut along ``axis`` into pieces of x's sizes (an empty x's gradient is left
    unwritten, as Paddle's kernel skips it)."""
    xp = ctx.xp
    ax = int(axis)
    ax = ax + out_grad.ndim if ax < 0 else ax
    outs, start = [], 0
    for t in x:
        size = t.shape[ax]
        piece = out_grad[(slice(None),) * ax + (slice(start, start + size),)]
        outs.append(owned(xp, piece) if t.size else None)
        start += size
    return outs


@grad_kernel("stack_grad", ("CPU", "GPU"), dtypes=ALL12)
def stack_grad(ctx, out_grad: Tensor, axis: int) -> list[Tensor]:
    """out_grad unstacked along ``axis``."""
    xp = ctx.xp
    ax = axis + out_grad.ndim if axis < 0 else axis
    return [owned(xp, xp.take(out_grad, i, axis=ax)) for i in range(out_grad.shape[ax])]


@grad_kernel("unstack_grad", ("CPU", "GPU"),
                 dtypes=["float32", "float64", "int32", "int64", "complex64", "complex128"])
def unstack_grad(ctx, out_grad: list[Tensor], axis: int) -> Tensor:
    """The output gradients stacked along ``axis``."""
    xp = ctx.xp
    ax = axis + out_grad[0].ndim + 1 if axis < 0 else axis
    return xp.stack(out_grad, axis=ax)


# -- slicing ops: the adjoint of the forward kernel ------------------------------------------

@grad_kernel("slice_grad", ("CPU", "GPU"), dtypes=ALL12)
@grad_kernel("slice_grad", ("CPU", "GPU"), dtypes=ALL12, layout=STRIDED)
def slice_grad(ctx, input: Tensor, out_grad: Tensor, axes: list[Int64], starts: IntArray,
               ends: IntArray, infer_flags: list[Int64], decrease_axis: list[Int64]) -> Tensor:
    """out_grad put back where slice read it, zeros elsewhere."""
    return adjoint(ctx, input.shape, out_grad, lambda ids: slicing.slice_kernel(
        ctx, ids, axes, starts, ends, infer_flags, decrease_axis))


@grad_kernel("strided_slice_raw_grad", ("CPU", "GPU"),
                 dtypes=[d for d in ALL12 if d not in ("int8", "uint8")])
@grad_kernel("strided_slice_raw_grad", ("CPU", "GPU"), dtypes=ALL12, layout=STRIDED)
def strided_slice_raw_grad(ctx, x: Tensor, out_grad: Tensor, axes: list[int], starts: IntArray,
                           ends: IntArray, strides: IntArray, infer_flags: list[int],
                           decrease_axis: list[int]) -> Tensor:
    """out_grad put back where strided_slice read it, zeros elsewhere."""
    return adjoint(ctx, x.shape, out_grad, lambda ids: slicing.strided_slice_raw(
        ctx, ids, axes, starts, ends, strides, infer_flags, decrease_axis))


@grad_kernel("set_value_grad", ("CPU", "GPU"), dtypes=ALL12)
def set_value_grad(ctx, out_grad: Tensor, starts: IntArray, ends: IntArray, steps: IntArray,
                   axes: list[Int64], decrease_axes: list[Int64], none_axes: list[Int64]
                   ) -> tuple[Tensor, Tensor]:
    """(out_grad with the set slice zeroed, the slice's gradient with the value's broadcast
    dims: the op sums it down to ValueTensor's dims)."""
    xp = ctx.xp
    bounds, _slice_dims, assign = set_value_target_dims(
        tuple(out_grad.shape), axes, starts.data, ends.data, steps.data, decrease_axes,
        none_axes)
    index = [slice(None)] * out_grad.ndim
    for axis, (start, end, step) in bounds.items():
        index[axis] = slice(start, None if end == -1 else end, step)
    index = tuple(index)
    x_grad = xp.asarray(out_grad, copy=True)
    x_grad[index] = 0
    value_grad = xp.reshape(xp.asarray(out_grad[index], copy=True), assign)
    return x_grad, value_grad


@grad_kernel("crop_grad", ("CPU", "GPU"), dtypes=["float32", "float64", "int32", "int64"])
def crop_grad(ctx, x: Tensor, out_grad: Tensor, offsets: IntArray) -> Tensor:
    """Zeros of x's dims with out_grad at ``offsets``."""
    xp = ctx.xp
    offs = list(offsets.data) or [0] * x.ndim
    x_grad = xp.zeros(x.shape, dtype=out_grad.dtype)
    x_grad[tuple(slice(o, o + d) for o, d in zip(offs, out_grad.shape, strict=True))] = out_grad
    return x_grad


@grad_kernel("pad_grad", ("CPU", "GPU"),
                 dtypes=["float32", "float64", "int32", "int64", "complex64", "complex128",
                         "bfloat16"])
def pad_grad(ctx, out_grad: Tensor, paddings: list[int], pad_value: Scalar) -> Tensor:
    """out_grad without the padding."""
    index = tuple(slice(paddings[2 * i], d - paddings[2 * i + 1])
                  for i, d in enumerate(out_grad.shape))
    return owned(ctx.xp, out_grad[index])


@grad_kernel("roll_grad", ("CPU", "GPU"),
                 dtypes=["float32", "float64", "int32", "int64", "complex64", "complex128"])
def roll_grad(ctx, x: Tensor, out_grad: Tensor, shifts: IntArray, axis: list[Int64]) -> Tensor:
    """out_grad rolled back."""
    return manip.roll(ctx, out_grad, IntArray([-int(s) for s in shifts.data]), axis)


@grad_kernel("tril_triu_grad", ("CPU", "GPU"),
                 dtypes=["bool", "float32", "float64", "int32", "int64", "float16", "complex64",
                         "complex128"])
def tril_triu_grad(ctx, out_grad: Tensor, diagonal: int, lower: bool) -> Tensor:
    """out_grad's lower (upper) triangle."""
    return manipulation.tril_triu(ctx, out_grad, diagonal, lower)


@grad_kernel("diag_grad", ("CPU", "GPU"),
                 dtypes=["float32", "float64", "int32", "int64", "float16"])
def diag_grad(ctx, x: Tensor, out_grad: Tensor, offset: int) -> Tensor:
    """out_grad's elements that diag took from x."""
    return adjoint(ctx, x.shape, out_grad, lambda ids: manip.diag(ctx, ids, offset, -1.0))


@grad_kernel("diagonal_grad", ("CPU", "GPU"),
                 dtypes=["bool", "float32", "float64", "int32", "int64", "complex64",
                         "complex128"])
@grad_kernel("diagonal_grad", ("CPU", "GPU"), dtypes=ALL12, layout=STRIDED)
def diagonal_grad(ctx, input: Tensor, out_grad: Tensor, offset: int, axis1: int,
                  axis2: int) -> Tensor:
    """Zeros with out_grad on the diagonal that diagonal read."""
    return adjoint(ctx, input.shape, out_grad,
                   lambda ids: manip.diagonal(ctx, ids, offset, axis1, axis2))


@grad_kernel("fill_diagonal_tensor_grad", ("CPU", "GPU"),
                 dtypes=["bool", "float32", "float64", "int8", "uint8", "int16", "int32",
                         "int64", "float16", "complex64", "complex128"])
def fill_diagonal_tensor_grad(ctx, out_grad: Tensor, offset: int, dim1: int,
                              dim2: int) -> Tensor:
    """out_grad with the filled diagonal zeroed."""
    xp = ctx.xp
    ids = xp.reshape(xp.arange(out_grad.size, dtype=np.int64), out_grad.shape)
    hit = manip.diagonal(ctx, ids, offset, dim1, dim2)
    x_grad = xp.reshape(xp.asarray(out_grad, copy=True), (-1,))
    x_grad[xp.reshape(hit, (-1,))] = 0
    return xp.reshape(x_grad, out_grad.shape)


@grad_kernel("fill_diagonal_grad", ("CPU", "GPU"),
                 dtypes=["bool", "float32", "float64", "int32", "int64", "float16"])
def fill_diagonal_grad(ctx, out_grad: Tensor, value: float, offset: int, wrap: bool) -> Tensor:
    """out_grad with the filled diagonal zeroed."""
    return manip.fill_diagonal(ctx, out_grad, 0.0, offset, wrap)


# -- broadcasting ops: the gradient summed back ---------------------------------------------

@grad_kernel("expand_grad", ("CPU", "GPU"), dtypes=ALL12)
def expand_grad(ctx, x: Tensor, out_grad: Tensor, shape: IntArray) -> Tensor:
    """out_grad summed over the expanded dims to x's dims."""
    return _reduce_to(ctx, out_grad, x.shape)


@grad_kernel("expand_as_grad", ("CPU", "GPU"), dtypes=["float32", "float64", "int32",
                                                           "int64"])
def expand_as_grad(ctx, x: Tensor, out_grad: Tensor, target_shape: list[int]) -> Tensor:
    """out_grad summed over the expanded dims to x's dims."""
    return _reduce_to(ctx, out_grad, x.shape)


@grad_kernel("tile_grad", ("CPU", "GPU"),
                 dtypes=["bool", "float32", "float64", "int32", "int64"])
def tile_grad(ctx, x: Tensor, out_grad: Tensor, repeat_times: IntArray) -> Tensor:
    """out_grad summed over the repeats."""
    return adjoint(ctx, x.shape, out_grad, lambda ids: broadcast.tile(ctx, ids, repeat_times))


@grad_kernel("broadcast_tensors_grad", ("CPU", "GPU"),
                 dtypes=["float32", "float64", "int32", "int64", "float16", "complex64",
                         "complex128"])
def broadcast_tensors_grad(ctx, input: list[Tensor], out_grad: list[Tensor]) -> list[Tensor]:
    """Each output gradient summed back to its input's dims."""
    return [_reduce_to(ctx, g, x.shape) for x, g in zip(input, out_grad, strict=True)]


@grad_kernel("meshgrid_grad", ("CPU", "GPU"), dtypes=["float32", "float64", "int32",
                                                          "int64"])
def meshgrid_grad(ctx, inputs: list[Tensor], outputs_grad: list[Tensor]) -> list[Tensor]:
    """Gradient i: output gradient i summed over every axis but i."""
    xp = ctx.xp
    outs = []
    for i, (x, g) in enumerate(zip(inputs, outputs_grad, strict=True)):
        axes = tuple(a for a in range(g.ndim) if a != i)
        outs.append(xp.reshape(xp.sum(g, axis=axes, dtype=g.dtype), x.shape))
    return outs


# -- windows ---------------------------------------------------------------------------------

_WINDOW = ["float32", "float64", "int32", "int64", "complex64", "complex128"]


@grad_kernel("frame_grad", ("CPU", "GPU"), dtypes=_WINDOW)
def frame_grad(ctx, x: Tensor, out_grad: Tensor, frame_length: int, hop_length: int,
               axis: int) -> Tensor:
    """The frames' gradients summed back into the signal (overlap-add)."""
    return adjoint(ctx, x.shape, out_grad,
                   lambda ids: spectral.frame(ctx, ids, frame_length, hop_length, axis))


@grad_kernel("overlap_add_grad", ("CPU", "GPU"), dtypes=_WINDOW)
def overlap_add_grad(ctx, x: Tensor, out_grad: Tensor, hop_length: int, axis: int) -> Tensor:
    """out_grad cut into x's frames."""
    frame_length = x.shape[-2] if axis in (-1, x.ndim - 1) else x.shape[1]
    return spectral.frame(ctx, out_grad, frame_length, hop_length, axis)


# -- random / fill ops: no gradient reaches x ----------------------------------------------------

def _zeros(ctx, out_grad):
    return ctx.xp.zeros(out_grad.shape, dtype=out_grad.dtype)


@grad_kernel("fill_grad", ("CPU", "GPU"),
                 dtypes=["float32", "float64", "int32", "int64", "float16", "bfloat16", "bool"])
def fill_grad(ctx, out_grad: Tensor, value: Scalar) -> Tensor:
    """Zeros: the filled output does not depend on x."""
    return _zeros(ctx, out_grad)


@grad_kernel("gaussian_inplace_grad", ("CPU", "GPU"), dtypes=["float32", "float64"])
def gaussian_inplace_grad(ctx, out_grad: Tensor, mean: float, std: float, seed: int) -> Tensor:
    """Zeros: the random output does not depend on x."""
    return _zeros(ctx, out_grad)


@grad_kernel("uniform_inplace_grad", ("CPU", "GPU"), dtypes=["float32", "float64"])
def uniform_inplace_grad(ctx, out_grad: Tensor, min: float, max: float, seed: int,
                         diag_num: int, diag_step: int, diag_val: float) -> Tensor:
    """Zeros: the random output does not depend on x."""
    return _zeros(ctx, out_grad)


@grad_kernel("poisson_grad", ("CPU", "GPU"), dtypes=["float32", "float64"])
def poisson_grad(ctx, out_grad: Tensor) -> Tensor:
    """Zeros: Paddle treats the Poisson sample as independent of its rate."""
    return _zeros(ctx, out_grad)


@grad_kernel("rrelu_grad", ("CPU", "GPU"), dtypes=["float32", "float64"])
def rrelu_grad(ctx, x: Tensor, noise: Tensor, out_grad: Tensor) -> Tensor:
    """out_grad where x > 0, out_grad * noise elsewhere."""
    xp = ctx.xp
    return xp.where(x > 0, out_grad, noise * out_grad)



@grad_kernel("multiplex_grad", ("CPU", "GPU"),
                 dtypes=["float32", "float64", "int32", "int64", "complex64", "complex128"],
                 input_defs={"ids": {"dtype": DataType.ALL_DTYPE}})
def multiplex_grad(ctx, ids: Tensor, out_grad: Tensor) -> list[Tensor]:
    """Nothing here: X@GRAD[i] (out_grad's rows where Ids is i) needs the op's count of X,
    which Paddle's kernel reads from its output vector; the multiplex_grad op writes them
    (fluid_compat/operators/grad_manip_ops.py)."""
    return None
