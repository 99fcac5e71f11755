"""The interp kernels (Paddle's paddle/phi/kernels/cpu/interpolate_kernel.cc): linear (3-D
x), bilinear and bicubic (4-D), trilinear (5-D), nearest (4-D and 5-D): the legacy *_interp_v2
ops, and through thin adapters the v1 ones (fluid_compat/operators/fluid_kernels/interpolate.py).

Source coordinates are computed as Paddle computes them, in float32 (the ratios, the weights)
and double (``ratio * (k + 0.5) - 0.5``), so that the chosen neighbours and the weights are
Paddle's bit for bit; the weighted sums run in x's dtype (float32 for uint8 / float16 /
bfloat16, whose elements meet float weights, converted back by Paddle's truncation).
"""

from __future__ import annotations

import itertools

import numpy as np

from phi.common.backend import Backend
from phi.common.data_type import DataType
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.infermeta.funcs import interp_channel_last, interp_out_sizes
from phi.kernels.funcs import cast_array

__all__ = ["bicubic_interp", "bilinear_interp", "interp_compute", "interp_grad_compute",
           "linear_interp", "nearest_interp", "trilinear_interp"]


# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json)
BILINEAR_DTYPES = ["float32", "float64", "float16", "bfloat16", "uint8"]
NEAREST_DTYPES = ["float32", "float64", "float16", "bfloat16", "int32", "int64", "uint8"]
LINEAR_DTYPES = ["float32", "float64", "float16", "bfloat16", "uint8"]
TRILINEAR_DTYPES = ["float32", "float64", "float16", "bfloat16", "uint8"]
BICUBIC_DTYPES = ["float32", "float64", "float16", "bfloat16"]
_HOST = {"dtype": DataType.ALL_DTYPE, "backend": Backend.ALL_BACKEND}
_SIZE_INPUTS = {"out_size": _HOST, "size_tensor": _HOST, "scale_tensor": _HOST}


def _ratio(in_size: int, out_size: int, scale: float, align_corners: bool) -> np.float32:
    if out_size <= 1:
        return np.float32(0.0)
    if align_corners:
        return np.float32(in_size - 1) / np.float32(out_size - 1)
    if scale > 0:
        return np.float32(1.0 / scale)
    return np.float32(in_size) / np.float32(out_size)


def _linear_axis(in_size, out_size, ratio, align_flag: bool):
    """(low index, high index, weight of low, weight of high) per output position."""
    k = np.arange(out_size)
    if align_flag:
        # ratio * (k + 0.5) - 0.5 in float: Paddle-made float64 cases with ratio 10 / 7
        # (linear, bilinear, trilinear _ratio_f64) match float arithmetic, not double
        half = np.float32(0.5)
        src = ratio * (k.astype(np.float32) + half) - half
        low = np.maximum(src.astype(np.int64), 0)
        idx = np.maximum(src, np.float32(0))
        d_low = idx - low.astype(np.float32)
    else:
        pos = ratio * k.astype(np.float32)  # float * int: in float
        low = np.maximum(pos.astype(np.int64), 0)
        d_low = pos - low.astype(np.float32)
    high = np.minimum(low + 1, in_size - 1)
    return low, high, np.float32(1) - d_low, d_low


def _gather(x, indices):
    """x[:, :, i0, i1, ...] with one index array per spatial axis (an outer product)."""
    nd = len(indices)
    where = []
    for i, idx in enumerate(indices):
        shape = [1] * nd
        shape[i] = -1
        where.append(np.reshape(idx, shape))
    return x[(slice(None), slice(None), *where)]


def _bcast(w, axis: int, nd: int):
    shape = [1] * nd
    shape[axis] = -1
    return np.reshape(w, shape)


def _linear(ctx, src, in_sizes, out_sizes, ratios, align_corners, align_mode, *, row_major):
    """Multi-linear interpolation of channel-first ``src``: one term per corner (low / high
    per axis), each ``x * w_axis0 * w_axis1 ...`` left to right, summed in Paddle's term order
    (trilinear and linear: row-major over the corners; bilinear: the first axis fastest)."""
    align_flag = align_mode == 0 and not align_corners
    nd = len(in_sizes)
    axes = [_linear_axis(i, o, r, align_flag) for i, o, r in
            zip(in_sizes, out_sizes, ratios, strict=True)]
    dtype = ctx.data_type(src)
    work = dtype if dtype in (DataType.FLOAT32, DataType.FLOAT64) else DataType.FLOAT32
    src = ctx.astype(src, work)
    weights = [(ctx.asarray(_bcast(a[2], i, nd), work), ctx.asarray(_bcast(a[3], i, nd), work))
               for i, a in enumerate(axes)]
    corners = list(itertools.product((0, 1), repeat=nd))
    if not row_major:
        corners.sort(key=lambda c: c[::-1])
    out = None
    for corner in corners:
        term = _gather(src, [axes[i][c] for i, c in enumerate(corner)])
        for i, c in enumerate(corner):
            term = term * weights[i][c]
        out = term if out is None else out + term
    return out if work is dtype else cast_array(ctx, out, dtype)


def _cubic_coefficients(t):
    """get_cubic_upsample_coefficients with A = -0.75: [cc2(t + 1), cc1(t), cc1(1 - t),
    cc2(2 - t)], cc1(x) = ((A + 2) x - (A + 3)) x x + 1, cc2(x) = ((A x - 5 A) x + 8 A) x - 4 A,
    in t's dtype."""
    a = t.dtype.type(-0.75)

    def cc1(x):
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def cc2(x):
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    one = t.dtype.type(1)
    return [cc2(t + one), cc1(t), cc1(one - t), cc2(one - t + one)]


def _cubic_axis(work, in_size: int, out_size: int, ratio, align_corners: bool):
    """(4 clamped source indices [out, 4], 4 coefficients [out] each) along one axis; the
    source position is static_cast<T>(ratio * k) or (ratio * (k + 0.5) - 0.5, in double),
    floored by floorf."""
    k = np.arange(out_size)
    if align_corners:
        pos = ratio * k.astype(np.float32)  # float * int: in float
    else:
        pos = ratio.astype(np.float64) * (k + 0.5) - 0.5
    pos = pos.astype(work)
    base = np.floor(pos.astype(np.float32)).astype(np.int64)  # floorf
    idx = np.clip(base[:, None] + np.arange(-1, 3)[None, :], 0, in_size - 1)
    return idx, _cubic_coefficients(pos - base.astype(work))


def _bicubic(ctx, src, in_sizes, out_sizes, ratios, align_corners):
    """BicubicInterpolation: 4 cubic interpolations along W, then one along H.  float and
    double compute in their type; float16 / bfloat16 in float, truncated once at the end (a
    Paddle-made float16 case matches that exactly, not per-operation truncation)."""
    dtype = ctx.data_type(src)
    work_t = dtype if dtype is DataType.FLOAT64 else DataType.FLOAT32
    work = np.float64 if work_t is DataType.FLOAT64 else np.float32
    x = ctx.astype(src, work_t)
    (iy, cy), (ix, cx) = (_cubic_axis(work, i, o, r, align_corners) for i, o, r in
                          zip(in_sizes, out_sizes, ratios, strict=True))
    out = None
    for ii in range(4):
        part = x[:, :, iy[:, ii], :]  # [N, C, Ho, W]
        row = None
        for jj in range(4):
            term = part[:, :, :, ix[:, jj]] * ctx.asarray(cx[jj], work_t)
            row = term if row is None else row + term
        term = row * ctx.asarray(cy[ii][:, None], work_t)
        out = term if out is None else out + term
    return out if work_t is dtype else cast_array(ctx, out, dtype)


def _nearest(src, in_sizes, out_sizes, ratios, align_corners):
    """NearestNeighbor(3D)Interpolate: src = int(ratio * dst) (+ 0.5 with align_corners)."""
    indices = []
    for in_size, n, ratio in zip(in_sizes, out_sizes, ratios, strict=True):
        pos = ratio * np.arange(n).astype(np.float32)
        if align_corners:
            pos = pos.astype(np.float64) + 0.5
        indices.append(np.minimum(pos.astype(np.int64), in_size - 1))
    return _gather(src, indices)


def interp_compute(ctx, x, out_size, size_tensor, scale_tensor, data_layout: str, outs, scale,
                   method: str, align_corners: bool, align_mode: int, *, v1: bool = False):
    """Shared body of the interp kernels: output sizes (interp_out_sizes), ratios, then the
    method on a channel-first view.  ``v1`` takes the ratios from the sizes only, as the
    legacy v1 ops do."""
    xp = ctx.xp

    def host(a):
        return None if a is None else np.asarray(ctx.to_host(a)).reshape(-1).tolist()

    nd = x.ndim - 2
    channel_last = interp_channel_last(data_layout)
    in_sizes = x.shape[1:-1] if channel_last else x.shape[2:]
    sizes = [host(t)[0] for t in size_tensor] if size_tensor else None
    out_sizes, scales = interp_out_sizes(in_sizes, outs, scale, sizes, host(scale_tensor),
                                         host(out_size))
    if tuple(out_sizes) == tuple(in_sizes):
        return xp.asarray(x, copy=True)
    if v1:
        scales = [-1.0] * nd
    ratios = [_ratio(i, o, s, align_corners) for i, o, s in
              zip(in_sizes, out_sizes, scales, strict=True)]
    src = xp.permute_dims(x, (0, nd + 1, *range(1, nd + 1))) if channel_last else x
    if method == "nearest":
        out = _nearest(src, in_sizes, out_sizes, ratios, align_corners)
    elif method == "bicubic":
        out = _bicubic(ctx, src, in_sizes, out_sizes, ratios, align_corners)
    else:
        out = _linear(ctx, src, in_sizes, out_sizes, ratios, align_corners, align_mode,
                      row_major=method != "bilinear")
    if channel_last:
        out = xp.permute_dims(out, (0, *range(2, nd + 2), 1))
    return xp.asarray(out, copy=True)


def _register(name: str, dtypes, what: str):
    @register_kernel(name, ("CPU", "GPU"), dtypes=dtypes, input_defs=_SIZE_INPUTS)
    def kernel(ctx, x: Tensor, out_size: Tensor | None, size_tensor: list[Tensor],
               scale_tensor: Tensor | None, data_layout: str, out_d: int, out_h: int,
               out_w: int, scale: list[float], interp_method: str, align_corners: bool,
               align_mode: int) -> Tensor:
        nd = x.ndim - 2
        return interp_compute(ctx, x, out_size, size_tensor, scale_tensor, data_layout,
                              (out_d, out_h, out_w)[3 - nd:], scale, interp_method,
                              align_corners, align_mode)

    kernel.__name__ = kernel.__qualname__ = name
    kernel.__doc__ = what
    return kernel


# one table-driven definition: as Paddle's InterpolateKernel, every kernel computes the method
# its ``interp_method`` attribute names (InterpolateInferMeta checks it against x's rank), so
# bicubic_interp_v2 with the OpProto default "bilinear" is bilinear
linear_interp = _register("linear_interp", LINEAR_DTYPES,
                          "Linear resize of the W axis of a 3-D x.")
bilinear_interp = _register("bilinear_interp", BILINEAR_DTYPES,
                            "Bilinear resize of the H and W axes; align_mode 0 without "
                            "align_corners takes half-pixel centres, else src = ratio * dst.")
trilinear_interp = _register("trilinear_interp", TRILINEAR_DTYPES,
                             "Trilinear resize of the D, H and W axes of a 5-D x.")
bicubic_interp = _register("bicubic_interp", BICUBIC_DTYPES,
                           "Bicubic resize (A = -0.75, clamped borders) of the H and W axes.")
nearest_interp = _register("nearest_interp", NEAREST_DTYPES,
                           "Nearest-neighbour resize of the H, W (and D) axes: src = int(ratio "
                           "* dst) (+ 0.5 with align_corners).")


# -- interpolation -------------------------------------------------------------------------------
# Every interp method is separable and linear: out = x times one [out, in] matrix per axis (the
# forward's neighbours and weights, interpolate module); the gradient multiplies dOut by the
# transposed matrices.

def _interp_matrix(method: str, in_size: int, out_size: int, ratio, align_corners: bool,
                   align_mode: int, work):
    """The [out, in] matrix of one axis: the forward's indices and weights (in ``work``)."""
    mat = np.zeros((out_size, in_size), dtype=work)
    rows = np.arange(out_size)
    if method == "nearest":
        pos = ratio * rows.astype(np.float32)
        if align_corners:
            pos = pos.astype(np.float64) + 0.5
        np.add.at(mat, (rows, np.minimum(pos.astype(np.int64), in_size - 1)), work(1))
    elif method == "bicubic":
        idx, coefs = _cubic_axis(work, in_size, out_size, ratio, align_corners)
        for j in range(4):
            np.add.at(mat, (rows, idx[:, j]), coefs[j].astype(work))
    else:
        low, high, w_low, w_high = _linear_axis(in_size, out_size, ratio,
                                                align_mode == 0 and not align_corners)
        np.add.at(mat, (rows, low), w_low.astype(work))
        np.add.at(mat, (rows, high), w_high.astype(work))
    return mat


def interp_grad_compute(ctx, x, out_size, size_tensor, scale_tensor, out_grad,
                        data_layout: str, outs, scale, method: str, align_corners: bool,
                        align_mode: int, *, v1: bool = False):
    """Input gradient of every interp kernel (v2, and v1 with ratios from the sizes only):
    the output sizes are out_grad's, the scales Scale's or the ``scale`` attribute's."""
    xp = ctx.xp

    def host(a):
        return None if a is None else np.asarray(ctx.to_host(a)).reshape(-1).tolist()

    nd = x.ndim - 2
    cl = interp_channel_last(data_layout)
    in_sizes = x.shape[1:-1] if cl else x.shape[2:]
    out_sizes = out_grad.shape[1:-1] if cl else out_grad.shape[2:]
    if tuple(out_sizes) == tuple(in_sizes):
        return xp.asarray(out_grad, copy=True)
    scales = [-1.0] * nd
    if not v1:
        # the grad kernel takes the scales from Scale / ``scale`` even when SizeTensor gives
        # the sizes (the forward ignores them then): confb_bilinear_v2_sizetensor_and_scale
        _, scales = interp_out_sizes(in_sizes, outs, scale, None, host(scale_tensor),
                                     host(out_size))
    dtype = ctx.data_type(out_grad)
    work_t = dtype if dtype in (DataType.FLOAT32, DataType.FLOAT64) else DataType.FLOAT32
    work = np.float64 if work_t is DataType.FLOAT64 else np.float32
    g = ctx.astype(out_grad, work_t)
    if cl:
        g = xp.permute_dims(g, (0, nd + 1, *range(1, nd + 1)))
    for i, (n_in, n_out, s) in enumerate(zip(in_sizes, out_sizes, scales, strict=True)):
        mat = _interp_matrix(method, n_in, n_out, _ratio(n_in, n_out, s, align_corners),
                             align_corners, align_mode, work)
        g = xp.moveaxis(xp.tensordot(g, xp.asarray(mat), axes=([2 + i], [0])), -1, 2 + i)
    if cl:
        g = xp.permute_dims(g, (0, *range(2, nd + 2), 1))
    g = xp.ascontiguousarray(g)
    return g if work_t is dtype else cast_array(ctx, g, dtype)


def _register_interp_grad(name: str):
    @register_kernel(name, ("CPU", "GPU"), dtypes=INTERP_GRAD_DTYPES, input_defs=_SIZE_INPUTS)
    def kernel(ctx, x: Tensor, out_size: Tensor | None, size_tensor: list[Tensor],
               scale_tensor: Tensor | None, out_grad: Tensor, data_layout: str, out_d: int,
               out_h: int, out_w: int, scale: list[float], interp_method: str,
               align_corners: bool, align_mode: int) -> Tensor:
        nd = x.ndim - 2
        return interp_grad_compute(ctx, x, out_size, size_tensor, scale_tensor, out_grad,
                                   data_layout, (out_d, out_h, out_w)[3 - nd:], scale,
                                   interp_method, align_corners, align_mode)

    kernel.__name__ = kernel.__qualname__ = name
    kernel.__doc__ = f"Input gradient of {name[:-5]} (the method interp_method names)."
    return kernel


# Paddle 2.6.2 CPU registrations of the five interp grad kernels
INTERP_GRAD_DTYPES = ["float32", "float64", "float16", "bfloat16"]
for _name in ("linear_interp_grad", "bilinear_interp_grad", "trilinear_interp_grad",
              "bicubic_interp_grad", "nearest_interp_grad"):
    _register_interp_grad(_name)
