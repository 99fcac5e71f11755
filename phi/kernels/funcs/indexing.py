"""Helpers shared by the gather / scatter / index / sort kernels and their grads: index range
checks, host <-> device copies, scatter reductions, positions along an axis, stable sorts."""

from __future__ import annotations

import numpy as np

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.kernels.funcs import half_op, stl_sort

__all__ = ["along_positions", "check_along", "check_flat", "check_index_range",
           "check_scatter_range", "flat_index", "nan_last_before", "occurrence_rounds", "put_at",
           "reduce_into", "stable_order", "stl_rows", "to_device", "to_host"]


def check_index_range(xp, index, size: int, what: str, allow_negative: bool = False) -> None:
    if index.size == 0:
        return
    lo, hi = int(xp.min(index)), int(xp.max(index))
    low = -size if allow_negative else 0
    if lo < low or hi >= size:
        bad = lo if lo < low else hi
        raise InvalidArgument(f"{what} expected >= {low} and < {size}, but got {bad}. Please "
                              "check input value.")


_HALF = (DataType.FLOAT16, DataType.BFLOAT16)


def to_host(ctx, a):
    return a if ctx.xp is np or a is None else np.asarray(ctx.to_host(a))


def to_device(ctx, a):
    return a if ctx.xp is np else ctx.from_host(np.ascontiguousarray(a))


def check_scatter_range(index, low: int, high: int, make_error) -> None:
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


def occurrence_rounds(targets):
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


def reduce_into(ctx, out, targets, src, op: str) -> None:
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
        for pos in occurrence_rounds(targets):
            t = targets[pos]
            out[t] = _combine(ctx, op, out[t], src[pos])


# -- put_along_axis / take_along_axis -----------------------------------------------------------

def along_positions(index_shape, target_shape, axis: int, idx):
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


def check_flat(pos, total: int, op: str) -> None:
    """Paddle 2.6.2 checks no index against its axis: an index past the axis reaches the next
    row's elements (the flat position); one outside the whole tensor is refused here (Paddle
    reads or writes out of bounds: **deviation**)."""
    bad = pos[(pos < 0) | (pos >= total)]
    if bad.size:
        raise InvalidArgument(f"Variable value (index) of OP({op}) reaches element "
                              f"{int(bad[0])} of a tensor of {total} elements. Please check "
                              "the input value.")


def check_along(x, index, axis: int, op: str) -> int:
    if index.ndim != x.ndim:
        raise InvalidArgument(f"{op}: Input(Index) must have the same rank as Input ({x.ndim}), "
                              f"but received rank {index.ndim}.")
    if not -max(x.ndim, 1) <= axis < max(x.ndim, 1):
        raise InvalidArgument(f"{op}: Attr(Axis) {axis} is out of range for rank {x.ndim}.")
    return axis + x.ndim if axis < 0 else axis


def stable_order(xp, x, axis: int, descending: bool):
    """Indices sorting ``x`` along ``axis``: equal values keep index order, NaN counts as the
    largest value (numpy's ascending order already puts NaN last)."""
    if not descending:
        return xp.argsort(x, axis=axis, kind="stable")
    # stable descending: sort the reversed axis ascending, reverse back, map the indices
    n = x.shape[axis]
    order = xp.flip(xp.argsort(xp.flip(x, axis=axis), axis=axis, kind="stable"), axis=axis)
    return (n - 1) - order


def nan_last_before(descending: bool):
    """Paddle's comparator of (value, index) pairs: NaN is the largest value."""
    if descending:
        return lambda a, b: (a[0] != a[0] and b[0] == b[0]) or a[0] > b[0]
    return lambda a, b: (a[0] == a[0] and b[0] != b[0]) or a[0] < b[0]


def stl_rows(ctx, x, order, axis: int, descending: bool, k: int | None, sorted_: bool):
    """Redo with libstdc++'s algorithms the rows whose result depends on them: rows with equal
    values (NaNs included) among those that decide the result (the whole row for a sort, the
    first k + 1 in the comparator's order for top-k / the k-th), every row when topk is
    unsorted.  numpy only (see the module doc)."""
    xp = ctx.xp
    if xp.__name__ != "numpy" or x.size == 0:
        return order
    rows = xp.moveaxis(x, axis, -1)
    flat = rows.reshape(-1, rows.shape[-1])
    if sorted_:
        s = xp.sort(flat, axis=-1)
        if k is not None and k < s.shape[1]:
            # only the first k + 1 in the comparator's order decide a top-k / k-th result: a
            # tie among the values below them changes nothing (numpy's order stands)
            s = s[:, s.shape[1] - k - 1:] if descending else s[:, :k + 1]
        redo = xp.nonzero((s[:, 1:] == s[:, :-1]).any(axis=-1)
                          | (xp.isnan(s).sum(axis=-1) >= 2 if s.dtype.kind == "f" else False))[0]
    else:
        redo = range(flat.shape[0])
    if len(redo) == 0:
        return order
    out = xp.moveaxis(order, axis, -1).copy()
    out2 = out.reshape(-1, out.shape[-1])
    comp = nan_last_before(descending)
    width = flat.shape[1]
    for r in redo:
        pairs = list(zip(flat[r].tolist(), range(width), strict=True))
        if k is None:
            stl_sort.sort(pairs, 0, width, comp)
        elif k * 64 < width:
            stl_sort.partial_sort(pairs, k, comp)
        else:
            stl_sort.nth_element(pairs, k - 1, comp)
            if sorted_:
                stl_sort.sort(pairs, 0, k - 1, comp)
        out2[r] = [i for _, i in pairs[:out2.shape[1]]]
    return xp.moveaxis(out, -1, axis)


def flat_index(ctx, index):
    return np.asarray(index).reshape(-1).astype(np.int64)


# -- sorts and selections: the gradient goes to the selected positions ---------------------------

def put_at(ctx, x, indices, out_grad, axis: int, keepdim: bool = True, ones_0d=False):
    """Zeros of x's dims with out_grad put at ``indices`` along ``axis`` (a 0-D x: out_grad,
    or ones where Paddle's kernel sets them: kthvalue, mode)."""
    if x.ndim == 0:
        if ones_0d:
            return ctx.xp.ones((), dtype=out_grad.dtype)
        return ctx.xp.asarray(out_grad, copy=True).reshape(())
    ax = axis + x.ndim if axis < 0 else axis
    idx = np.asarray(indices).astype(np.int64)
    g = np.asarray(out_grad)
    if not keepdim:
        idx, g = np.expand_dims(idx, ax), np.expand_dims(g, ax)
    x_grad = np.zeros(x.shape, g.dtype)
    np.put_along_axis(x_grad, idx, g, axis=ax)
    return x_grad
