"""The ``put_along_axis`` and ``put_along_axis_grad`` kernels."""

from __future__ import annotations

import numpy as np

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import trunc_divide
from phi.kernels.funcs.backward import grad_kernel
from phi.kernels.funcs.indexing import (along_positions, check_along, check_flat, occurrence_rounds,
                                        reduce_into, to_device, to_host)

__all__ = ["put_along_axis"]


ALONG_DTYPES = ["float32", "float64", "int32", "int64", "uint8"]


_ANY = {"dtype": DataType.ALL_DTYPE}


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
    h_x, h_index, h_value = to_host(ctx, x), to_host(ctx, index), to_host(ctx, value)
    ax = check_along(h_x, h_index, axis, "put_along_axis")
    out = np.array(h_x, copy=True)
    if h_index.size == 0 or h_x.size == 0 or h_value.size == 0:
        return to_device(ctx, out)
    idx = h_index.astype(np.int64)
    if h_value.ndim != h_index.ndim:
        h_value = np.broadcast_to(h_value, h_index.shape)
    dst, _ = along_positions(h_index.shape, h_x.shape, ax, idx)
    _, src_pos = along_positions(h_index.shape, h_value.shape, ax, idx)
    check_flat(dst, h_x.size, "put_along_axis")
    src = h_value.reshape(-1)[src_pos]
    flat = out.reshape(-1)
    op = _PUT_REDUCE[reduce]
    if not include_self and op != "assign":
        # the first write to an element replaces it, later ones reduce into it
        order = occurrence_rounds(dst)
        first = order[0]
        flat[dst[first]] = src[first]
        rest = np.setdiff1d(np.arange(dst.size), first)
        reduce_into(ctx, flat, dst[rest], src[rest], op)
    else:
        reduce_into(ctx, flat, dst, src, op)
    if reduce == "mean":
        counts = np.bincount(dst, minlength=flat.size)
        hit = counts > 0
        div = (counts + (1 if include_self else 0))[hit].astype(flat.dtype)
        if np.issubdtype(flat.dtype, np.integer):
            flat[hit] = trunc_divide(np, flat[hit], div)
        else:
            flat[hit] = flat[hit] / div
    return to_device(ctx, out)


@grad_kernel("put_along_axis_grad", ("CPU", "GPU"),
                 dtypes=["float32", "float64", "int32", "int64", "uint8"],
                 input_defs={"index": _ANY})
def put_along_axis_grad(ctx, x: Tensor, index: Tensor, value: Tensor, out: Tensor,
                        out_grad: Tensor, axis: int, reduce: str, include_self: bool
                        ) -> tuple[Tensor, Tensor]:
    """Gradients of put_along_axis by its reduction (PutAlongAxisGradKernel): x's passes where
    nothing was written (scaled for mul / mean, shared among the equal extremes for amin /
    amax); value's is out_grad at its target (shared likewise; only the last write of an
    element gets it for assign)."""
    ax = axis + x.ndim if axis < 0 else axis
    idx = np.asarray(index).astype(np.int64)
    g = np.asarray(out_grad).reshape(-1)
    xs, outs = np.asarray(x).reshape(-1), np.asarray(out).reshape(-1)
    dst, _ = along_positions(idx.shape, x.shape, ax, idx)
    vpos = along_positions(idx.shape, value.shape, ax, idx)[1]
    vals = np.asarray(value).reshape(-1)
    dt = g.dtype.type
    x_grad = g.copy()
    if not include_self or reduce == "assign":
        x_grad[dst] = 0
    elif reduce in ("mul", "multiply"):
        first = np.unique(dst, return_index=True)[1]
        d = dst[first]
        x_grad[d] = (x_grad[d] * outs[d] / xs[d]).astype(g.dtype)
    elif reduce in ("amin", "amax"):
        count = np.zeros(g.size, np.int64)
        for d, v in zip(dst, vpos, strict=True):
            if outs[d] != xs[d]:
                x_grad[d] = 0
            elif outs[d] == vals[v]:
                count[d] += 1
        x_grad = (x_grad / (count + 1).astype(g.dtype)).astype(g.dtype)
    elif reduce == "mean":
        count = np.bincount(dst, minlength=g.size)
        hit = count > 0
        x_grad[hit] = (x_grad[hit] / (count[hit] + 1).astype(g.dtype)).astype(g.dtype)
    value_grad = np.zeros(idx.size, g.dtype)
    if reduce == "assign":
        used = np.zeros(g.size, bool)
        for n in range(idx.size - 1, -1, -1):
            if not used[dst[n]]:
                value_grad[n] = g[dst[n]]
                used[dst[n]] = True
    elif reduce in ("add", "mean"):
        value_grad = g[dst].copy()
        if reduce == "mean":
            count = np.bincount(dst, minlength=g.size) + (1 if include_self else 0)
            value_grad = (value_grad / count[dst].astype(g.dtype)).astype(g.dtype)
    elif reduce in ("mul", "multiply"):
        value_grad = (g[dst] * (outs[dst] / vals[vpos])).astype(g.dtype)
    elif reduce in ("amin", "amax"):
        hit = outs[dst] == vals[vpos]
        count = np.bincount(dst[hit], minlength=g.size)
        share = np.where(outs[dst] == xs[dst], count[dst] + 1, count[dst]).astype(g.dtype)
        with np.errstate(all="ignore"):
            value_grad = np.where(hit, g[dst] / np.where(hit, share, dt(1)), dt(0)).astype(
                g.dtype)
    return x_grad.reshape(x.shape), value_grad.reshape(idx.shape)
