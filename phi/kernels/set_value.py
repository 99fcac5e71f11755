"""The ``set_value``, ``set_value_grad`` and ``set_value_with_tensor`` kernels."""

from __future__ import annotations


import numpy as np

from phi.common.int_array import IntArray
from phi.common.scalar import Scalar
from phi.core.errors import InvalidArgument
from phi.core.kernel import Int64, Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import ALL_DTYPES, scalar_as
from phi.kernels.funcs.backward import grad_kernel

__all__ = ["set_value", "set_value_bounds", "set_value_with_tensor"]


ALL_12 = ["bfloat16", "bool", "complex128", "complex64", "float16", "float32", "float64",
          "int16", "int32", "int64", "int8", "uint8"]


# -- set_value ------------------------------------------------------------------------------------

def set_value_bounds(dims, axes, starts, ends, steps) -> dict[int, tuple[int, int, int]]:
    """CheckAndUpdateSliceAttrs: axis -> (start, end, step), an end of -1 with a negative step
    meaning "through element 0"; errors as Paddle's."""
    out = {}
    for i, axis in enumerate(axes):
        if axis >= len(dims):
            raise InvalidArgument(f"The axis value should be less than the rank of input, but "
                                  f"received axes[{i}] = {axis}, rank of input is {len(dims)}.")
        size = dims[axis]
        step = int(steps[i]) if i < len(steps) else 1
        if size > 0:
            if step == 0:
                raise InvalidArgument(f"Step should not be 0, but received step = {step}.")
            start = int(starts[i])
            start = max(start + size if start < 0 else start, 0)
            end = int(ends[i])
            end = end + size if (step > 0 and end < 0) else end
            end = min(end, size)
            if step > 0:
                start, end = min(start, size), max(end, 0)
                if end < start:
                    raise InvalidArgument("When step > 0, end should be greater than start, but "
                                          f"received end = {end}, start = {start}.")
            else:
                start = min(start, size - 1)
                end = end + size if end < -1 else end
                end = max(end, -1)
                if start < end:
                    raise InvalidArgument("When step < 0, start should be greater than end, but "
                                          f"received start = {start}, end = {end}.")
            out[axis] = (start, end, step)
        elif size == 0:
            out[axis] = (0, 0, step)
    return out


def set_value_target_dims(dims, axes, starts, ends, steps, decrease_axes, none_axes):
    """(slice dims, dims the value must broadcast to) of set_value (SetValueImpl)."""
    bounds = set_value_bounds(dims, axes, starts, ends, steps)
    slice_dims = list(dims)
    for axis, (start, end, step) in bounds.items():
        num = end - start + (step - 1 if step > 0 else step + 1)
        slice_dims[axis] = abs(num) // abs(step) * (1 if (num < 0) == (step < 0) else -1)
    dec = set(decrease_axes)
    assign = [d for i, d in enumerate(slice_dims) if i not in dec]
    if none_axes:
        assign = []
        n = d = 0
        for i in range(len(slice_dims)):
            while n < len(none_axes) and none_axes[n] <= i:
                assign.append(1)
                n += 1
            if d < len(decrease_axes) and decrease_axes[d] == i:
                d += 1
            else:
                assign.append(slice_dims[i])
        assign += [1] * (len(none_axes) - n)
    return bounds, slice_dims, assign


def _set_value(ctx, x, value, starts, ends, steps, axes, decrease_axes, none_axes):
    xp = ctx.xp
    if not 1 <= x.ndim <= 6:
        raise InvalidArgument(f"The rank of input should be less than 7, but received "
                              f"{x.ndim}.")
    bounds, slice_dims, assign = set_value_target_dims(
        tuple(x.shape), axes, starts.data, ends.data, steps.data, decrease_axes, none_axes)
    vshape = list(value.shape)
    while vshape and vshape[0] == 1:  # CheckIsDimsMatch ignores leading ones on both sides
        vshape.pop(0)
    a = list(assign)
    while a and a[0] == 1:
        a.pop(0)
    if vshape and (len(a) < len(vshape) or any(
            v not in (1, t) for v, t in zip(reversed(vshape), reversed(a), strict=False))):
        raise InvalidArgument("The shape of tensor assigned value must match the shape of target "
                              f"shape: {list(value.shape)}, but now shape is {list(assign)}.")
    out = xp.asarray(x, copy=True)
    if any(s == e for s, e, _ in bounds.values()):
        return out  # an empty slice: nothing changes
    index = [slice(None)] * x.ndim
    for axis, (start, end, step) in bounds.items():
        index[axis] = slice(start, None if end == -1 else end, step)
    fill = xp.broadcast_to(xp.reshape(value, vshape or [1]), [max(d, 1) for d in assign] or [1])
    out[tuple(index)] = xp.reshape(fill, slice_dims)
    return out


@register_kernel("set_value_with_tensor", ("CPU", "GPU"), dtypes=ALL_12)
def set_value_with_tensor(ctx, x: Tensor, value: Tensor, starts: IntArray, ends: IntArray,
                          steps: IntArray, axes: list[Int64], decrease_axes: list[Int64],
                          none_axes: list[Int64]) -> Tensor:
    """x with x[starts:ends:steps] (along ``axes``) set to value, broadcast."""
    return _set_value(ctx, x, value, starts, ends, steps, axes, decrease_axes, none_axes)


@register_kernel("set_value", ("CPU", "GPU"), dtypes=ALL_12)
def set_value(ctx, x: Tensor, starts: IntArray, ends: IntArray, steps: IntArray,
              axes: list[Int64], decrease_axes: list[Int64], none_axes: list[Int64],
              shape: list[Int64], values: list[Scalar]) -> Tensor:
    """``set_value_with_tensor`` with the value given as Scalars of ``shape`` (each converted to
    x's dtype as Scalar::to<T>)."""
    dtype = ctx.data_type(x)
    vals = [scalar_as(ctx, v, dtype) for v in values]
    n = int(np.prod(shape, dtype=np.int64)) if shape else 1
    if len(vals) != n:
        raise InvalidArgument(f"set_value: {len(vals)} values do not fill the value shape "
                              f"{list(shape)}.")
    value = ctx.xp.reshape(ctx.xp.stack(vals) if vals else ctx.asarray([], dtype), shape)
    return _set_value(ctx, x, value, starts, ends, steps, axes, decrease_axes, none_axes)


ALL12 = list(ALL_DTYPES)


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
