"""Scatter, put/take-along-axis and masking kernels (Paddle's paddle/phi/kernels/cpu/
{index_add,index_put,index_sample,masked_select,put_along_axis,take_along_axis,
repeat_interleave,scatter,scatter_nd_add,set_value,shard_index,nonzero,gather_tree,
unique_consecutive}_kernel.cc, funcs/{scatter.h,gather_scatter_functor.cc}).

Paddle's CPU kernels loop over the index in order, so duplicates reduce in index order:
``_reduce_into`` replays that loop (numpy's ``ufunc.at`` is sequential; float16 goes through
``half_op`` per addition, and max / min keep Paddle's ``src > self ? src : self`` on NaN).
Out-of-range indices raise the errors Paddle raises; where Paddle's kernel would read or write
outside the tensor without a check, an InvalidArgument is raised instead (**deviation**).
The host-side ops (unique_consecutive, gather_tree, nonzero) compute on the host as Paddle does.
"""

from __future__ import annotations

import numpy as np

from phi.common.data_type import DataType
from phi.common.layout import DataLayout
from phi.common.int_array import IntArray
from phi.common.scalar import Scalar
from phi.core.errors import InvalidArgument, OutOfRange
from phi.core.kernel import Int64, Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import half_op, scalar_as, trunc_divide

__all__ = [
    "gather_tree", "index_add", "index_put", "index_sample", "masked_select", "nonzero",
    "put_along_axis", "repeat_interleave", "repeat_interleave_with_tensor_index", "scatter",
    "scatter_nd_add", "set_value", "set_value_with_tensor", "set_value_bounds", "shard_index",
    "take_along_axis", "unique_consecutive", "index_select_strided",
]

# Paddle 2.6.2 CPU registrations (corpus cpu_ops.json)
INDEX_ADD_DTYPES = ["float16", "float32", "float64", "int32", "int64"]
ALL_12 = ["bfloat16", "bool", "complex128", "complex64", "float16", "float32", "float64",
          "int16", "int32", "int64", "int8", "uint8"]
INDEX_SAMPLE_DTYPES = ["complex128", "complex64", "float32", "float64", "int32", "int64"]
FIIL = ["float32", "float64", "int32", "int64"]
ALONG_DTYPES = ["float32", "float64", "int32", "int64", "uint8"]
REPEAT_DTYPES = ["bfloat16", "float32", "float64", "int32", "int64"]
NONZERO_DTYPES = ["bfloat16", "bool", "float32", "float64", "int16", "int32", "int64"]
INTS = ["int32", "int64"]

_ANY = {"dtype": DataType.ALL_DTYPE}
_HALF = (DataType.FLOAT16, DataType.BFLOAT16)


def _host(ctx, a):
    return a if ctx.xp is np or a is None else np.asarray(ctx.to_host(a))


def _back(ctx, a):
    return a if ctx.xp is np else ctx.from_host(np.ascontiguousarray(a))


def _check_range(index, low: int, high: int, make_error) -> None:
    """Raise ``make_error(bad)`` for the first index outside [low, high)."""
    if index.size == 0:
        return
    bad = index[(index < low) | (index >= high)]
    if bad.size:
        raise make_error(int(bad.reshape(-1)[0]))


def _last_occurrences(targets):
    """Positions of the last occurrence of each distinct target (an assigning loop's winners)."""
    _, first_rev = np.unique(targets[::-1], return_index=True)
    return targets.size - 1 - first_rev


def _rounds(targets):
    """Positions grouped by occurrence: round r holds the r-th occurrence of each target, so
    applying the rounds in order replays a sequential loop over the index."""
    n = targets.size
    order = np.argsort(targets, kind="stable")
    s = targets[order]
    starts = np.r_[0, np.nonzero(s[1:] != s[:-1])[0] + 1]
    first = np.repeat(starts, np.diff(np.r_[starts, n]))
    rank = np.empty(n, np.int64)
    rank[order] = np.arange(n) - first
    return [np.nonzero(rank == r)[0] for r in range(int(rank.max()) + 1)] if n else []


def _combine(ctx, op: str, cur, src):
    if op == "max":  # Paddle's reduce functors: src > self ? src : self (NaN src ignored)
        return np.where(src > cur, src, cur)
    if op == "min":
        return np.where(src < cur, src, cur)
    fn = np.add if op == "add" else np.multiply
    if ctx.data_type(cur) in _HALF:
        return half_op(ctx, fn, cur, src)
    return fn(cur, src)


def _reduce_into(ctx, out, targets, src, op: str) -> None:
    """out[targets[i]] = op(out[targets[i]], src[i]) for i in index order, in place (host
    arrays; targets 1-D over out's first axis, src [len(targets), ...])."""
    targets = targets.reshape(-1)
    if targets.size == 0:
        return
    if op == "assign":
        last = _last_occurrences(targets)
        out[targets[last]] = src[last]
        return
    if op in ("add", "mul") and ctx.data_type(out) not in _HALF:
        with np.errstate(all="ignore"):
            (np.add if op == "add" else np.multiply).at(out, targets, src)
        return
    with np.errstate(all="ignore"):
        for pos in _rounds(targets):
            t = targets[pos]
            out[t] = _combine(ctx, op, out[t], src[pos])


# -- index_add / index_put / index_sample / masked_select --------------------------------------

@register_kernel("index_add", ("CPU", "GPU"), dtypes=INDEX_ADD_DTYPES, input_defs={"index": _ANY})
def index_add(ctx, x: Tensor, index: Tensor, add_value: Tensor, axis: int) -> Tensor:
    """x with add_value's slices added at ``index`` along ``axis`` (duplicates add up)."""
    h_x, h_index, h_value = _host(ctx, x), _host(ctx, index), _host(ctx, add_value)
    ax = axis + x.ndim if axis < 0 else axis
    size = x.shape[ax]
    _check_range(h_index, 0, size, lambda bad: InvalidArgument(
        f"Variable value (index) of OP(index_add) expected >= 0 and < {size}, but got {bad}. "
        "Please check input value."))
    out = np.array(h_x, copy=True)
    _reduce_into(ctx, np.moveaxis(out, ax, 0), h_index.reshape(-1),
                 np.moveaxis(h_value, ax, 0), "add")
    return _back(ctx, out)


@register_kernel("index_put", ("CPU", "GPU"), dtypes=ALL_12, input_defs={"indices": _ANY})
def index_put(ctx, x: Tensor, indices: list[Tensor], value: Tensor, accumulate: bool) -> Tensor:
    """x[indices] = value (``accumulate``: +=, duplicates add up), numpy's advanced indexing:
    bool indices select their nonzero positions, int indices broadcast, negative ones count
    from the end; value broadcasts to the selection."""
    h_x, h_value = _host(ctx, x), _host(ctx, value)
    ints = []
    for t in indices:
        h = _host(ctx, t)
        if h.dtype == np.bool_:
            if h.ndim == 0:
                raise InvalidArgument("index_put: the bool tensor in indices should have at "
                                      "least one dimension.")
            ints.extend(np.nonzero(h))
        elif h.dtype in (np.int32, np.int64):
            ints.append(h.astype(np.int64))
        else:
            raise InvalidArgument("index_put: data type of tensor in indices must be int32, "
                                  f"int64 or bool, but received {h.dtype}.")
    if len(ints) > h_x.ndim:
        raise InvalidArgument(f"index_put: too many indices ({len(ints)}) for a tensor of "
                              f"rank {h_x.ndim}.")
    out = np.array(h_x, copy=True)
    if not ints or any(i.size == 0 for i in ints):
        return _back(ctx, out)
    try:
        ints = np.broadcast_arrays(*ints)
    except ValueError as exc:
        raise InvalidArgument(f"index_put: indices do not broadcast together: {exc}") from exc
    fixed = []
    for d, i in enumerate(ints):
        size = h_x.shape[d]
        _check_range(i, -size, size, lambda bad, d=d, size=size: InvalidArgument(
            f"index_put: index {bad} is out of bounds for axis {d} with size {size}."))
        fixed.append(np.where(i < 0, i + size, i).reshape(-1))
    sel_shape = (*ints[0].shape, *h_x.shape[len(ints):])
    try:
        vals = np.broadcast_to(h_value, sel_shape)
    except ValueError as exc:
        raise InvalidArgument(f"index_put: shape of value {list(h_value.shape)} can't be "
                              f"broadcast to shape of x[indices] {list(sel_shape)}.") from exc
    vals = vals.reshape((-1, *h_x.shape[len(ints):]))
    flat = np.ravel_multi_index(fixed, h_x.shape[:len(ints)])
    view = out.reshape((-1, *h_x.shape[len(ints):]))
    _reduce_into(ctx, view, flat, vals, "add" if accumulate else "assign")
    return _back(ctx, out)


@register_kernel("index_sample", ("CPU", "GPU"), dtypes=INDEX_SAMPLE_DTYPES,
                 input_defs={"index": _ANY})
def index_sample(ctx, x: Tensor, index: Tensor) -> Tensor:
    """out[b, m] = x[b, index[b, m]]."""
    h_x, h_index = _host(ctx, x), _host(ctx, index)
    size = x.shape[1]
    _check_range(h_index, 0, size, lambda bad: InvalidArgument(
        f"Variable value (index) of OP(index_sample) expected >= 0 and < {size}, but got "
        f"{bad}. Please check input value."))
    return _back(ctx, np.take_along_axis(h_x, h_index.astype(np.int64), axis=1))


@register_kernel("masked_select", ("CPU", "GPU"), dtypes=FIIL,
                 input_defs={"mask": {"dtype": DataType.BOOL}})
def masked_select(ctx, x: Tensor, mask: Tensor) -> Tensor:
    """x's elements where mask (broadcast to x's dims) is true, as a 1-D tensor."""
    xp = ctx.xp
    if tuple(mask.shape) != tuple(x.shape):
        try:
            shape = np.broadcast_shapes(tuple(x.shape), tuple(mask.shape))
        except ValueError as exc:
            raise InvalidArgument(f"masked_select: Input(Mask) {list(mask.shape)} does not "
                                  f"broadcast with Input(X) {list(x.shape)}.") from exc
        if shape != tuple(x.shape):
            raise InvalidArgument(
                "The dim size of input and mask in OP(masked_selected) must be equal, but got "
                f"input dim:({list(x.shape)}), mask dim: ({list(shape)}). Please check input "
                "value.")
        mask = xp.broadcast_to(mask, shape)
    return xp.asarray(x[mask], copy=True)


# -- put_along_axis / take_along_axis -----------------------------------------------------------

def _along_positions(index_shape, target_shape, axis: int, idx):
    """Flat positions in a target of ``target_shape`` of each index element, computed as
    Paddle's gather/scatter functor does: (i, j, k) are the index's own coordinates before, at
    and after ``axis`` (flattened), mapped with the target's strides."""
    inner = int(np.prod(index_shape[:axis], dtype=np.int64))
    select = index_shape[axis]
    outer = int(np.prod(index_shape[axis + 1:], dtype=np.int64))
    t_outer = int(np.prod(target_shape[axis + 1:], dtype=np.int64))
    t_select = target_shape[axis]
    i = np.arange(inner).reshape(-1, 1, 1)
    j = np.arange(select).reshape(1, -1, 1)
    k = np.arange(outer).reshape(1, 1, -1)
    pick = idx.reshape(inner, select, outer)
    return (k + pick * t_outer + i * t_outer * t_select).reshape(-1), \
        (k + j * t_outer + i * t_outer * t_select).reshape(-1)


def _check_flat(pos, total: int, op: str) -> None:
    """Paddle 2.6.2 checks no index against its axis: an index past the axis reaches the next
    row's elements (the flat position); one outside the whole tensor is refused here (Paddle
    reads or writes out of bounds: **deviation**)."""
    bad = pos[(pos < 0) | (pos >= total)]
    if bad.size:
        raise InvalidArgument(f"Variable value (index) of OP({op}) reaches element "
                              f"{int(bad[0])} of a tensor of {total} elements. Please check "
                              "the input value.")


def _check_along(x, index, axis: int, op: str) -> int:
    if index.ndim != x.ndim:
        raise InvalidArgument(f"{op}: Input(Index) must have the same rank as Input ({x.ndim}), "
                              f"but received rank {index.ndim}.")
    if not -max(x.ndim, 1) <= axis < max(x.ndim, 1):
        raise InvalidArgument(f"{op}: Attr(Axis) {axis} is out of range for rank {x.ndim}.")
    return axis + x.ndim if axis < 0 else axis


@register_kernel("take_along_axis", ("CPU", "GPU"), dtypes=ALONG_DTYPES,
                 input_defs={"index": _ANY})
def take_along_axis(ctx, x: Tensor, index: Tensor, axis: int) -> Tensor:
    """out[i][j][k] = x[i][index[i][j][k]][k] along ``axis`` (index's dims)."""
    h_x, h_index = _host(ctx, x), _host(ctx, index)
    ax = _check_along(h_x, h_index, axis, "take_along_axis")
    if h_index.size == 0 or h_x.size == 0:
        return _back(ctx, np.zeros(h_index.shape, h_x.dtype))
    src, _ = _along_positions(h_index.shape, h_x.shape, ax, h_index.astype(np.int64))
    _check_flat(src, h_x.size, "take_along_axis")
    return _back(ctx, h_x.reshape(-1)[src].reshape(h_index.shape))


_PUT_REDUCE = {"assign": "assign", "add": "add", "mul": "mul", "multiply": "mul",
               "mean": "add", "amax": "max", "amin": "min"}


@register_kernel("put_along_axis", ("CPU", "GPU"), dtypes=ALONG_DTYPES,
                 input_defs={"index": _ANY})
def put_along_axis(ctx, x: Tensor, index: Tensor, value: Tensor, axis: int, reduce: str,
                   include_self: bool) -> Tensor:
    """x with value scattered at ``index`` along ``axis``: assign / add / mul / mean / amax /
    amin in index order; without ``include_self`` x's values take no part where written."""
    if reduce not in _PUT_REDUCE:
        raise InvalidArgument(f"can not support reduce: '{reduce}' for scatter kernel, only "
                              "support reduce op: 'add', 'assign', 'mul', 'mean', 'amin', "
                              "'amax' and 'multiply', the default reduce op is 'assign' ")
    h_x, h_index, h_value = _host(ctx, x), _host(ctx, index), _host(ctx, value)
    ax = _check_along(h_x, h_index, axis, "put_along_axis")
    out = np.array(h_x, copy=True)
    if h_index.size == 0 or h_x.size == 0 or h_value.size == 0:
        return _back(ctx, out)
    idx = h_index.astype(np.int64)
    if h_value.ndim != h_index.ndim:
        h_value = np.broadcast_to(h_value, h_index.shape)
    dst, _ = _along_positions(h_index.shape, h_x.shape, ax, idx)
    _, src_pos = _along_positions(h_index.shape, h_value.shape, ax, idx)
    _check_flat(dst, h_x.size, "put_along_axis")
    src = h_value.reshape(-1)[src_pos]
    flat = out.reshape(-1)
    op = _PUT_REDUCE[reduce]
    if not include_self and op != "assign":
        # the first write to an element replaces it, later ones reduce into it
        order = _rounds(dst)
        first = order[0]
        flat[dst[first]] = src[first]
        rest = np.setdiff1d(np.arange(dst.size), first)
        _reduce_into(ctx, flat, dst[rest], src[rest], op)
    else:
        _reduce_into(ctx, flat, dst, src, op)
    if reduce == "mean":
        counts = np.bincount(dst, minlength=flat.size)
        hit = counts > 0
        div = (counts + (1 if include_self else 0))[hit].astype(flat.dtype)
        if np.issubdtype(flat.dtype, np.integer):
            flat[hit] = trunc_divide(np, flat[hit], div)
        else:
            flat[hit] = flat[hit] / div
    return _back(ctx, out)


# -- repeat_interleave ----------------------------------------------------------------------------

@register_kernel("repeat_interleave", ("CPU", "GPU"), dtypes=REPEAT_DTYPES)
def repeat_interleave(ctx, x: Tensor, repeats: int, dim: int) -> Tensor:
    """Each slice of x along ``dim`` repeated ``repeats`` times in place."""
    if repeats <= 0:
        raise InvalidArgument(f"repeats must grater than 0, but got {repeats}")
    ax = dim + x.ndim if dim < 0 else dim
    return ctx.xp.repeat(x, repeats, axis=ax)


@register_kernel("repeat_interleave_with_tensor_index", ("CPU", "GPU"), dtypes=REPEAT_DTYPES,
                 input_defs={"repeats": _ANY})
def repeat_interleave_with_tensor_index(ctx, x: Tensor, repeats: Tensor, dim: int) -> Tensor:
    """Slice i of x along ``dim`` repeated repeats[i] times."""
    ax = dim + x.ndim if dim < 0 else dim
    reps = _host(ctx, repeats)
    if reps.dtype not in (np.int32, np.int64):
        raise InvalidArgument(f"Input(RepeatsTensor) holds the wrong type, it holds {reps.dtype},"
                              " but desires to be int32 or int64")
    reps = reps.reshape(-1)
    if reps.size != x.shape[ax]:
        raise InvalidArgument("The length of Input(RepeatsTensor) must be the same as length of "
                              f"Input(X) in axis. But received: [{reps.size}], required: "
                              f"[{x.shape[ax]}].")
    if reps.size and reps.min() < 0:
        raise InvalidArgument(f"repeats must grater or equal than 0, but got {int(reps.min())}")
    idx = np.repeat(np.arange(reps.size), reps)
    return ctx.xp.take(x, ctx.xp.asarray(idx), axis=ax)


# -- scatter / scatter_nd_add -----------------------------------------------------------------

def _scatter_oob(size: int):
    def make(bad: int) -> OutOfRange:
        if bad < 0:
            return OutOfRange("The index is out of bounds, please check whether the dimensions "
                              "of index and input meet the requirements. It should be greater "
                              f"than or equal to 0, but received [{bad}]")
        return OutOfRange("The index is out of bounds, please check whether the values of index "
                          "and dimensions of input meet the requirements. each index should be "
                          f"less than 1st-dim size ({size}) of input, but received [{bad}]")
    return make


@register_kernel("scatter", ("CPU", "GPU"), dtypes=FIIL, input_defs={"index": _ANY})
def scatter(ctx, x: Tensor, index: Tensor, updates: Tensor, overwrite: bool) -> Tensor:
    """x with rows ``index`` replaced by updates' rows (last duplicate wins); without
    ``overwrite`` the indexed rows are zeroed first, then every update is added in order."""
    h_x, h_index, h_upd = _host(ctx, x), _host(ctx, index), _host(ctx, updates)
    out = np.array(h_x, copy=True)
    if h_index.size == 0 or out.size == 0:
        return _back(ctx, out)
    if h_index.dtype not in (np.int32, np.int64):
        raise InvalidArgument(f"Index holds the wrong type, it holds [{h_index.dtype}],but "
                              "desires to be [int32] or [int64].")
    if not (h_index.ndim <= 1 or (h_index.ndim == 2 and h_index.shape[1] == 1)):
        raise InvalidArgument("index.dims().size() should be 0, 1 or 2 in scatter_op. But "
                              f"received value is [{h_index.ndim}]")
    flat = h_index.reshape(-1).astype(np.int64)
    _check_range(flat, 0, out.shape[0], _scatter_oob(out.shape[0]))
    src = h_upd.reshape((1, *h_upd.shape)) if h_index.ndim == 0 else h_upd
    if src.shape[1:] != out.shape[1:] or src.shape[0] < flat.size:
        raise InvalidArgument(f"scatter: Input(Updates) {list(h_upd.shape)} does not match "
                              f"Input(X) {list(out.shape)} and {flat.size} indices.")
    if overwrite:
        _reduce_into(ctx, out, flat, src[:flat.size], "assign")
    else:
        out[flat] = 0
        _reduce_into(ctx, out, flat, src[:flat.size], "add")
    return _back(ctx, out)


@register_kernel("scatter_nd_add", ("CPU", "GPU"), dtypes=ALONG_DTYPES,
                 input_defs={"index": _ANY})
def scatter_nd_add(ctx, x: Tensor, index: Tensor, updates: Tensor) -> Tensor:
    """x with updates added at the coordinates index[..., :] (slices of the remaining dims),
    in index order."""
    h_x, h_index, h_upd = _host(ctx, x), _host(ctx, index), _host(ctx, updates)
    out = np.array(h_x, copy=True)
    depth = h_index.shape[-1] if h_index.ndim else 0
    n = int(np.prod(h_index.shape[:-1], dtype=np.int64)) if h_index.ndim else 1
    if n == 0 or (h_index.size == 0 and depth):
        return _back(ctx, out)
    coords = h_index.reshape(n, depth).astype(np.int64)
    for j in range(depth):
        size = h_x.shape[j]
        _check_range(coords[:, j], 0, size, lambda bad, size=size: OutOfRange(
            "The index is out of bounds, please check whether the dimensions of index and input "
            f"meet the requirements. It should be less than [{size}] and greater or equal to 0, "
            f"but received [{bad}]"))
    flat = np.ravel_multi_index(coords.T, h_x.shape[:depth]) if depth else np.zeros(n, np.int64)
    view = out.reshape((-1, *h_x.shape[depth:]))
    _reduce_into(ctx, view, flat, h_upd.reshape((n, *h_x.shape[depth:])), "add")
    return _back(ctx, out)


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


# -- small index kernels ------------------------------------------------------------------------

@register_kernel("shard_index", ("CPU", "GPU"), dtypes=INTS)
def shard_index(ctx, x: Tensor, index_num: int, nshards: int, shard_id: int,
                ignore_value: int) -> Tensor:
    """x - shard_id * shard_size where x falls in shard ``shard_id`` (shard_size =
    ceil(index_num / nshards)), else ``ignore_value``."""
    xp = ctx.xp
    if not 0 <= shard_id < nshards:
        raise InvalidArgument(f"The value 'shard_id' for Op(shard_index) must be greater than or "
                              f"equal to 0 and less than nshards ({nshards}), but the value "
                              f"given is {shard_id}.")
    h = _host(ctx, x)
    bad = h[(h < 0) | (h >= index_num)]
    if bad.size:
        v = int(bad.reshape(-1)[0])
        side = "greater than or equal to 0" if v < 0 else f"less than index_num ({index_num})"
        raise InvalidArgument(f"The input_index for Op(shard_index) must be {side}, but the "
                              f"value given is {v}.")
    size = (index_num + nshards - 1) // nshards
    own = (x // size) == shard_id
    return xp.where(own, x - shard_id * size, x.dtype.type(ignore_value))


@register_kernel("nonzero", ("CPU", "GPU"), dtypes=NONZERO_DTYPES,
                 output_defs={0: {"dtype": DataType.INT64}})
def nonzero(ctx, condition: Tensor) -> Tensor:
    """[N, rank] int64 coordinates of the non-zero elements in row-major order."""
    h = _host(ctx, condition)
    if h.ndim == 0:
        return _back(ctx, np.zeros((int(h != 0), 0), np.int64))
    return _back(ctx, np.stack(np.nonzero(h), axis=1).astype(np.int64))


@register_kernel("gather_tree", ("CPU", "GPU"), dtypes=INTS)
def gather_tree(ctx, ids: Tensor, parents: Tensor) -> Tensor:
    """Full beam-search paths: walk back from the last step through ``parents`` ([max_time,
    batch, beam])."""
    h_ids, h_par = _host(ctx, ids), _host(ctx, parents)
    if h_ids.ndim != 3 or h_ids.shape != h_par.shape:
        raise InvalidArgument(f"gather_tree: Ids {list(h_ids.shape)} and Parents "
                              f"{list(h_par.shape)} must be 3-D tensors of the same shape.")
    steps, batch, beam = h_ids.shape
    out = np.empty_like(h_ids)
    if steps == 0:
        return _back(ctx, out)
    b = np.arange(batch).reshape(-1, 1)
    out[steps - 1] = h_ids[steps - 1]
    parent = h_par[steps - 1].astype(np.int64)
    for t in range(steps - 2, -1, -1):
        if parent.size and (parent.min() < 0 or parent.max() >= beam):
            bad = int(parent[(parent < 0) | (parent >= beam)][0])
            raise InvalidArgument(f"The parents must be less than beam size ({beam}) and >= 0, "
                                  f"but received {bad}.")
        out[t] = h_ids[t][b, parent]
        parent = h_par[t][b, parent].astype(np.int64)
    return _back(ctx, out)


@register_kernel("unique_consecutive", ("CPU", "GPU"), dtypes=FIIL,
                 output_defs={1: {"dtype": DataType.UNDEFINED}, 2: {"dtype": DataType.UNDEFINED}})
def unique_consecutive(ctx, x: Tensor, return_inverse: bool, return_counts: bool,
                       axis: list[int], dtype: DataType) -> tuple[Tensor, Tensor, Tensor]:
    """(x without consecutive repeats, each element's group index, each group's size), of x
    flattened or of its slices along ``axis``; index outputs of ``dtype``."""
    h = _host(ctx, x)
    idx_dtype = np.int32 if dtype is DataType.INT32 else np.int64
    if axis:
        ax = axis[0] + h.ndim if axis[0] < 0 else axis[0]
        if not 0 <= ax < h.ndim:
            raise InvalidArgument(f"unique_consecutive: axis {axis[0]} is out of range for rank "
                                  f"{h.ndim}.")
        moved = np.moveaxis(h, ax, 0).reshape(h.shape[ax], -1)
        change = (moved[1:] != moved[:-1]).any(axis=1) if moved.shape[1] else \
            np.zeros(max(moved.shape[0] - 1, 0), bool)
    else:
        moved = h.reshape(-1)
        change = moved[1:] != moved[:-1]
    n = moved.shape[0]
    starts = np.r_[0, np.nonzero(change)[0] + 1] if n else np.zeros(0, np.int64)
    counts = np.diff(np.r_[starts, n]).astype(idx_dtype)
    inverse = (np.cumsum(np.r_[0, change.astype(np.int64)]) if n else
               np.zeros(0, np.int64)).astype(idx_dtype)
    out = np.take(h, starts, axis=ax) if axis else moved[starts]
    return _back(ctx, out), _back(ctx, inverse), _back(ctx, counts)


@register_kernel("index_select_strided", "CPU", dtypes=ALL_12, layout=DataLayout.STRIDED)
def index_select_strided(ctx, x: Tensor, index: Int64, axis: int) -> Tensor:
    """x[..., index, ...] along ``axis`` (the axis removed).  Registered, as in Paddle 2.6.2,
    only under the STRIDED layout: a legacy program, whose kernel key is never STRIDED, finds
    no kernel for it, as Paddle reports."""
    ax = axis + x.ndim if axis < 0 else axis
    if not 0 <= ax < x.ndim or not -x.shape[ax] <= index < x.shape[ax]:
        raise InvalidArgument(f"index_select_strided: index {index} / axis {axis} out of range "
                              f"for shape {list(x.shape)}.")
    return ctx.xp.asarray(ctx.xp.take(x, index, axis=ax), copy=True)
