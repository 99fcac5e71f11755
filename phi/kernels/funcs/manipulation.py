"""Helpers shared by the shape / data-movement kernels: broadcasting, the InferMeta metas the
kernels reuse, dims planning for the bound forms, slicing bounds."""

from __future__ import annotations


import numpy as np

from phi.core.bound import binds
from phi.core.errors import InvalidArgument
from phi.infermeta.funcs import decreased_dims
from phi.kernels.funcs import ALL_DTYPES

__all__ = ["CONCAT_DTYPES", "CROP_DTYPES", "DIAG_DTYPES", "DIAG_EMBED_DTYPES", "EMPTY_DTYPES",
           "EYE_DTYPES", "FILL_DTYPES", "IS_EMPTY_DTYPES", "LOGSPACE_DTYPES", "MESHGRID_DTYPES",
           "RESHAPE_DTYPES", "SPLIT_DTYPES", "ShapeMeta", "SinkMeta", "TRANSFER_LAYOUT_DTYPES",
           "TRANSPOSE_DTYPES", "bind_dims_copy", "bounds_index", "broadcast", "check_4d",
           "decrease_axes", "diag_index", "planned_dims"]


def broadcast(xp, x, dims):
    return xp.asarray(xp.broadcast_to(x, dims), copy=True)


# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json, the ALL_LAYOUT keys)
_ALL12 = list(ALL_DTYPES)
_F_I = ["float32", "float64", "int32", "int64"]


CROP_DTYPES = DIAG_EMBED_DTYPES = MESHGRID_DTYPES = LOGSPACE_DTYPES = IS_EMPTY_DTYPES = _F_I
DIAG_DTYPES = EYE_DTYPES = ["float16", *_F_I]


FILL_DTYPES = EMPTY_DTYPES = TRANSFER_LAYOUT_DTYPES = _ALL12


class SinkMeta:
    """A meta that accepts and ignores what InferMeta writes (kernels reuse its checks)."""

    def __getattr__(self, name):
        return lambda *a, **k: None


class ShapeMeta:
    """The meta of an array for the InferMeta checks kernels reuse."""

    def __init__(self, array) -> None:
        self.dims = tuple(array.shape)
        self.dtype = self.layout = None


def diag_index(xp, rows: int, cols: int, offset: int):
    n = min(rows, cols - offset) if offset >= 0 else min(rows + offset, cols)
    i = xp.arange(max(n, 0))
    return (i, i + offset) if offset >= 0 else (i - offset, i)


def check_4d(x, data_format: str, op: str) -> bool:
    if x.ndim != 4:
        raise InvalidArgument(f"Input should be a 4-D tensor of format [N, C, H, W] or "
                              f"[N, H, W, C], but got {list(x.shape)} ({op}).")
    if data_format not in ("NCHW", "NHWC"):
        raise InvalidArgument(f"{op}: data_format must be one of NCHW and NHWC, but got "
                              f"{data_format!r}.")
    return data_format == "NHWC"


RESHAPE_DTYPES = TRANSPOSE_DTYPES = CONCAT_DTYPES = SPLIT_DTYPES = _ALL12


# Bound forms (phi.core.bound): for a numpy input of the planned dims, the output dims (or the
# normalized perm) are worked out once; other inputs take the kernel's way.

def planned_dims(ctx, metas):
    """The planned dims of the one tensor input, or None when the bound form would not pay."""
    if ctx.xp is not np or metas[0] is None:
        return None
    return metas[0][1]


def bind_dims_copy(kernel, out_dims) -> None:
    """Bind ``kernel`` (x copied into ``out_dims(x.dims, attribute)``, and an empty XShape of
    dims [0, *x.dims]) with its output dims worked out once."""

    def binder(ctx, attrs, metas):
        dims_in = planned_dims(ctx, metas)
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


def decrease_axes(xp, out, decrease_axis):
    if not decrease_axis:
        return out
    return xp.reshape(out, decreased_dims(out.shape, decrease_axis, runtime=False))


def bounds_index(ndim: int, bounds: dict) -> tuple[slice, ...]:
    """The index of InferMeta's bounds (axis -> (start, end[, step]))."""
    index = [slice(None)] * ndim
    for axis, bound in bounds.items():
        index[axis] = slice(*bound)
    return tuple(index)
