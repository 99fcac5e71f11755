"""Convolution kernels: conv2d, depthwise_conv2d, conv3d, their grads and the oneDNN
fused_conv2d / fused_conv3d, which share their computation (Paddle's
paddle/phi/kernels/cpu/conv_kernel.cc and impl/conv_kernel_impl.h).

Paddle computes a convolution as im2col + GEMM per group; so does this module, with numpy's
stride tricks in place of im2col's loops and one batched ``matmul`` over (batch, group) in place
of the per-group GEMM calls:

* the padded input is viewed (no copy) as windows [N, G, C/G, kh, kw, Ho, Wo];
* the view is copied once into columns [N, G, C/G*kh*kw, Ho*Wo] (that copy is im2col);
* filter [G, O/G, C/G*kh*kw] @ columns gives [N, G, O/G, Ho*Wo], i.e. NCHW output.

A depthwise convolution (one input channel per group, O = C * m) has per channel a GEMM of m
rows: one batched ``matmul`` of [C, m, kh*kw] filters by columns [C, kh*kw, L].  Its im2col
works on flattened rows: the padded input is split into its stride phases (phase (a, b) holds
padded rows a, a+sh, ... and columns b, b+sw, ...; one phase when the stride is 1) with each
phase's rows flattened, so that a filter tap's column is one contiguous slice per channel
whatever the spatial size; the output is computed on the phase's row width (a few columns past
Wo, dropped at the end).  Columns are built for blocks of channels of about 1 MB, so that they
are still in cache for the matmul.  (Measured against summing the taps with one multiply-add
each over the same slices: 1.8x faster over MobileNetV2's layers, up to 3x on the small ones;
splitting the taps over two threads gained nothing inside a CNN, where OpenBLAS's threads spin
on the cores after each GEMM.)

With numba installed (module ``jit``, ``FLAGS_kernel_numba``), two paths are compiled loops:

* a depthwise convolution sums its taps directly (``_jit_loops.depthwise``: per channel, the
  same flattened stride phases, then one contiguous multiply-add per tap into a local
  accumulator; no columns).  Over MobileNetV2's depthwise layers at 224, best of 30, one
  thread: 14.6 -> 8.6 ms in all, 1.7x on the large maps, equal on 28x28 stride 2 (the columns
  and batched matmul above remain the numpy path);
* a 3x3, stride-1, undilated, ungrouped convolution over a map large enough runs as Winograd's
  F(2x2, 3x3) (Lavin & Gray 2015; ``FLAGS_conv_winograd``): the padded input is cut into 4x4
  tiles two apart, each transformed by B^T d B into one [16, C, tiles] array, the filter into
  G g G^T [16, O, C], 16 GEMMs [O, C] @ [C, tiles] replace the im2col GEMM (4 multiplies per
  output instead of 9), and A^T m A gives each tile's 2x2 outputs.  The transforms'
  coefficients (0, +-1, +-1/2) are exact, only the order of the sums differs: results are
  within a few 1e-7 relative of im2col's in float32 (an input or filter holding inf or NaN
  keeps im2col, whose non-finite results the transforms would not reproduce).  The filter is
  transformed on every call (nothing is cached: a replaced or edited filter takes effect at
  once); so that this stays cheap beside the GEMMs, Winograd is used where the tiles are at
  least half the channels (``_winograd_pays``: ResNets' 56x56 and 28x28 stages).  Measured
  per layer, im2col -> Winograd, best of 30 on a busy 2-core machine: one BLAS thread
  56x56x64 6.3 -> 3.9 ms, 28x28x128 4.1 -> 2.8, 14x14x256 3.8 -> 3.7, 7x7x512 5.5 -> 10.5;
  two threads 4.1 -> 3.7, 3.6 -> 3.4, 3.1 -> 3.8 (the transforms run on one thread, and 16
  GEMMs mean 16 hand-offs between BLAS threads where im2col has one).  Its
  transforms written in numpy (strided adds over the tiles) took as long as the GEMMs saved,
  so the numpy path keeps im2col.

With ``FLAGS_kernel_scratch`` (off by default: module ``scratch``) large intermediates (padded
input, columns, Winograd's arrays) live in per-thread scratch buffers instead of fresh arrays.

NHWC inputs are computed through an NCHW view and the result is transposed back.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from phi import flags
from phi.common.data_type import DataType
from phi.common.layout import DataLayout
from phi.core.bound import binds
from phi.core.errors import InvalidArgument, Unimplemented
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.infermeta.funcs import (
    check_conv_groups,
    conv_out_size,
    is_channel_last,
    resolve_conv_padding,
)
from phi.kernels.funcs import jit, prod, quiet
from phi.kernels.funcs.conv import (channels_first, channels_last, col2im, conv_windows, im2col,
                                    pad_nchw)
from phi.kernels.funcs.onednn_post_ops import apply_activation
from phi.kernels.funcs.scratch import FLAG as _SCRATCH_FLAG, scratch
from phi.kernels.funcs.windows import overhang

__all__ = ["conv2d", "conv3d", "conv_grad_compute", "depthwise_conv2d", "fused_conv",
           "fused_conv2d", "fused_conv3d", "im2col"]


FLAGS = flags.FLAGS

# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json)
CONV2D_DTYPES = ["float32", "float64"]
DEPTHWISE_CONV2D_DTYPES = ["float32", "float64"]
CONV3D_DTYPES = ["float32", "float64"]

_COLS_BLOCK_BYTES = 1 << 20
"""Bytes of depthwise columns built per channel block."""


def _pad_into(x, pads):
    """x [N, C, *spatial] zero-padded by pads into the thread's scratch buffer (module
    ``scratch``: never returned); x itself when there is no padding and it is C-contiguous."""
    if not any(pads):
        return np.ascontiguousarray(x)
    spatial = x.shape[2:]
    shape = [size + pads[2 * i] + pads[2 * i + 1] for i, size in enumerate(spatial)]
    out = scratch("conv.padded", (*x.shape[:2], *shape), x.dtype)
    inner = tuple(slice(pads[2 * i], pads[2 * i] + size) for i, size in enumerate(spatial))
    # zero the border only: each padded side is a slab
    for i in range(len(spatial)):
        lead = (slice(None),) * (2 + i)
        if pads[2 * i]:
            out[(*lead, slice(0, pads[2 * i]))] = 0
        if pads[2 * i + 1]:
            out[(*lead, slice(pads[2 * i] + spatial[i], None))] = 0
    out[(slice(None), slice(None), *inner)] = x
    return out


_WINOGRAD_FLAG = "FLAGS_conv_winograd"

_GEMM_1X1_FLAG = "FLAGS_conv_1x1_gemm"

_BLOCK_FLAG = "FLAGS_conv_im2col_blocks"
_BLOCK_BYTES = 1 << 20
_BLOCK_MIN_COLUMNS = 1024

#: every switch of the convolution / pooling fast paths (all off: the plain numpy path)
FAST_PATH_FLAGS = (jit.FLAG, _WINOGRAD_FLAG, _SCRATCH_FLAG, _GEMM_1X1_FLAG, _BLOCK_FLAG)

def _winograd_pays(x, w, out_sizes) -> bool:
    """Whether F(2x2, 3x3) is worth it: the input is a float numpy array and its tiles are at
    least half the filter's input or output channels, whichever is larger (measured with two
    BLAS threads, where the GEMMs halve and the transforms do not: 56x56x64 and 28x28x128
    gain, 14x14x256 loses a fifth; on deeper, smaller maps reading the transformed filter, 16/9
    of the filter, costs more than the GEMMs save)."""
    tiles = x.shape[0] * ((out_sizes[0] + 1) // 2) * ((out_sizes[1] + 1) // 2)
    return (type(x) is np.ndarray and x.dtype in jit.DTYPES
            and 2 * tiles >= max(w.shape[0], w.shape[1]) and FLAGS[_WINOGRAD_FLAG])


def _finite(a) -> bool:
    """Whether every element of a is finite (one SIMD sum; an overflowing sum of finite values
    says no, which only costs Winograd): an inf in the input or filter would meet another in
    the transforms (inf - inf) and make NaN where im2col's products give +-inf."""
    with np.errstate(over="ignore", invalid="ignore"):
        return math.isfinite(np.add.reduce(a, axis=None))


def _planes(name: str, rows: int, cols: int, dtype):
    """A scratch [16, rows, cols] array whose 16 planes start 256 bytes apart modulo 4 KB: the
    transforms read or write the 16 planes together, and planes a multiple of 4 KB apart
    (56x56 maps: 64 x 784 floats) fall in the same cache sets (three times slower)."""
    itemsize = np.dtype(dtype).itemsize
    size = rows * cols
    pad = ((256 - size * itemsize) % 4096) // itemsize
    buf = scratch(name, (16, size + pad), dtype)
    return np.reshape(buf[:, :size], (16, rows, cols))


def _winograd(loops, x, w, pads, out_sizes):
    """3x3 stride-1 undilated ungrouped convolution of a C-contiguous NCHW x as F(2x2, 3x3)
    (module doc), its transforms in the compiled ``loops`` (input and output transforms split
    over channels by ``jit.split``) -> a fresh [N, O, Ho, Wo]."""
    n, c, h, wd = x.shape
    o = w.shape[0]
    ho, wo = out_sizes
    th, tw = (ho + 1) // 2, (wo + 1) // 2
    dt = x.dtype
    padded = scratch("winograd.padded", (c, n, 2 * th + 2, 2 * tw + 2), dt)
    top, left = pads[0], pads[2]
    padded[:, :, :top] = 0
    padded[:, :, top + h:] = 0
    padded[:, :, top:top + h, :left] = 0
    padded[:, :, top:top + h, left + wd:] = 0
    padded[:, :, top:top + h, left:left + wd] = np.permute_dims(x, (1, 0, 2, 3))
    v = _planes("winograd.v", c, n * th * tw, dt)
    tiles = n * th * tw
    jit.split(loops.winograd_input, c, 16 * c * tiles, padded, v, th, tw)
    u = _planes("winograd.u", o, c, dt)
    loops.winograd_weight(jit.contiguous(w), u)
    m = _planes("winograd.m", o, tiles, dt)
    np.matmul(u, v, out=m)
    y = np.empty((n, o, ho, wo), dtype=dt)
    jit.split(loops.winograd_output, o, 16 * o * tiles, m, y, th, tw)
    return y


def _block_rows(k: int, out_sizes, dtype) -> int:
    """Output rows per block for the compiled im2col and its GEMM taken a block of rows at a
    time (0: the whole map at once): blocks of columns of about ``_BLOCK_BYTES`` (they stay in
    the core's cache between the im2col that writes them and the GEMM that reads them), on
    maps wide enough that each block's GEMM keeps >= ``_BLOCK_MIN_COLUMNS`` columns."""
    if not FLAGS[_BLOCK_FLAG] or len(out_sizes) != 2:
        return 0
    ho, wo = out_sizes
    rows = _BLOCK_BYTES // max(1, k * wo * np.dtype(dtype).itemsize)
    if rows * wo < _BLOCK_MIN_COLUMNS or 2 * rows > ho:
        return 0
    return rows


def _im2col_gemm_by_rows(loops, x, wmat, rows: int, pads, ksize, strides, dilations,
                         out_sizes):
    """One image's ungrouped convolution as compiled im2col + GEMM per block of ``rows``
    output rows, each block's columns in one scratch buffer, its GEMM writing straight into
    the output's columns -> [1, O, Ho, Wo].  Each output is the same dot product over the
    same columns as the whole-map GEMM; BLAS may group its sum differently by block width
    (ulp-level differences to the whole-map path, the same bits on every run)."""
    ho, wo = out_sizes
    k = wmat.shape[1]
    out = np.empty((wmat.shape[0], ho * wo), dtype=x.dtype)
    buf = scratch("conv.cols", (k * rows * wo,), x.dtype)
    for oy0 in range(0, ho, rows):
        oy1 = min(ho, oy0 + rows)
        width = (oy1 - oy0) * wo
        cols = np.reshape(buf[:k * width], (k, width))
        loops.im2col(x, np.reshape(cols, (1, k, width)), oy0, oy1, wo, *ksize, *strides,
                     *dilations, pads[0], pads[2])
        np.matmul(wmat, cols, out=out[:, oy0 * wo:oy1 * wo])
    return np.reshape(out, (1, wmat.shape[0], ho, wo))


_DEPTHWISE_SMALL = 16
"""Output positions up to which a 3x3 depthwise convolution is vectorised over channels
(``_jit_loops.depthwise_3x3_small``): per layer, one thread, 960 channels at 2x2 3.5x faster
than the per-channel loop, 384 at 4x4 1.4x, 576 at 4x4 1.15x, 192 at 8x8 2x slower, 144 at
16x16 3x slower (MobileNetV2@64 -5% against a bound of 8, A/B in one process)."""


def _depthwise_compiled(loops, x, w, pads, strides, dilations, out_dims):
    """The compiled depthwise loop (channels split over threads by ``jit.split``) -> a fresh
    ``out_dims`` array."""
    out = np.empty(out_dims, dtype=x.dtype)
    o, kh, kw = w.shape[0], w.shape[2], w.shape[3]
    small = kh == kw == 3 and out_dims[2] * out_dims[3] <= _DEPTHWISE_SMALL
    jit.split(loops.depthwise_3x3_small if small else loops.depthwise, x.shape[1],
              math.prod(out_dims) * kh * kw,
              jit.contiguous(x), jit.contiguous(w).reshape(o, kh, kw), out,
              pads[0], pads[2], *strides, *dilations)
    return out


def _is_1x1(groups: int, ksize, strides, pads) -> bool:
    """1x1, stride 1, no padding, ungrouped: one GEMM on x's own view (``_gemm_1x1``)."""
    return (groups == 1 and all(k == 1 for k in ksize) and all(s == 1 for s in strides)
            and not any(pads))


def _is_depthwise(c: int, cg: int, groups: int) -> bool:
    """One input channel per group (O = C * multiplier): the depthwise loops."""
    return cg == 1 and groups == c


def _gemm_1x1(xp, x, w, out_dims, length: int):
    """A 1x1 convolution (``_is_1x1``) as one GEMM on x's own [N, C, L] view (the im2col
    path's BLAS calls, without building the window view; ``length``: L) -> ``out_dims``."""
    # ndarray's own reshape: np.reshape's wrapper costs ~3 us a call, as much as a tiny GEMM
    reshape = np.ndarray.reshape if xp is np else xp.reshape
    n, o = out_dims[:2]
    c = x.shape[1]
    xm = reshape(x, (c, length) if n == 1 else (n, c, length))
    return reshape(xp.matmul(reshape(w, (o, c)), xm), out_dims)


def _conv_nchw(ctx, x, w, strides, pads, dilations, groups: int, out_sizes):
    """Grouped convolution of an [N, C, *spatial] input (pads resolved and holding every
    window) -> [N, O, *out]."""
    xp = ctx.xp
    n, c = x.shape[:2]
    o, cg = w.shape[:2]
    ksize = w.shape[2:]
    if _is_1x1(groups, ksize, strides, pads) and FLAGS[_GEMM_1X1_FLAG]:
        return _gemm_1x1(xp, x, w, (n, o, *out_sizes), prod(out_sizes))
    loops = (jit.kernels() if xp is np and x.dtype in jit.DTYPES and w.dtype == x.dtype
             else None)
    if _is_depthwise(c, cg, groups) and len(ksize) == 2:
        if loops is not None:
            return _depthwise_compiled(loops, x, w, pads, strides, dilations,
                                       (n, o, *out_sizes))
        return _depthwise(xp, x, w, pads, strides, dilations, out_sizes)
    if (loops is not None and groups == 1 and tuple(ksize) == (3, 3)
            and tuple(strides) == (1, 1) and tuple(dilations) == (1, 1)
            and _winograd_pays(x, w, out_sizes) and _finite(x) and _finite(w)):
        return _winograd(loops, np.ascontiguousarray(x), w, pads, out_sizes)
    k = cg * prod(ksize)
    length = prod(out_sizes)
    if loops is not None and len(ksize) == 2:  # the compiled im2col: no padded copy
        x = jit.contiguous(x)
        rows = _block_rows(k, out_sizes, x.dtype) if n * groups == 1 else 0
        if rows:
            return _im2col_gemm_by_rows(loops, x, np.reshape(w, (o, k)), rows, pads, ksize,
                                        strides, dilations, out_sizes)
        cols = scratch("conv.cols", (n, groups, k, length), x.dtype)
        loops.im2col(x, np.reshape(cols, (n, groups * k, length)), 0, out_sizes[0],
                     out_sizes[1], *ksize, *strides, *dilations, pads[0], pads[2])
    elif xp is np and FLAGS[_SCRATCH_FLAG]:  # the padded input and the columns in scratch
        xpad = _pad_into(x, pads)
        view = conv_windows(xp, xpad, groups, ksize, dilations, strides, out_sizes)
        if k == cg and view.strides[-1] == x.itemsize and tuple(strides) == (1,) * len(ksize):
            cols = xp.reshape(view, (n, groups, k, length))  # 1x1: a view, no copy
        else:
            cols = scratch("conv.cols", (n, groups, k, length), x.dtype)
            np.copyto(np.reshape(cols, view.shape), view)  # the im2col copy
    else:
        xpad = pad_nchw(xp, x, pads)
        view = conv_windows(xp, xpad, groups, ksize, dilations, strides, out_sizes)
        cols = xp.reshape(view, (n, groups, k, length))  # the im2col copy
    wmat = xp.reshape(w, (groups, o // groups, k))
    if n * groups == 1:  # one plain GEMM (numpy's stacked matmul path is slower)
        return xp.reshape(xp.matmul(wmat[0], cols[0, 0]), (n, o, *out_sizes))
    out = xp.matmul(wmat, cols)  # [N, G, O/G, prod(out)]
    return xp.reshape(out, (n, o, *out_sizes))


def _depthwise_phases(xp, x, pads, ksize, strides, dilations, out_hw):
    """x [N, C, H, W] zero-padded by ``pads`` and split into its stride phases, rows flattened:
    ([sh * sw, N, C, hq * wq], wq), phase a * sw + b at [r, q] = padded x[r*sh + a, q*sw + b];
    hq, wq are just enough for every tap of every output position, plus one zero row so that
    every tap's slice of ho * wq positions lies inside the phase."""
    n, c, h, w = x.shape
    top, left = pads[0], pads[2]
    sh, sw = strides
    ho, wo = out_hw
    hq = ho + (ksize[0] - 1) * dilations[0] // sh
    wq = wo + (ksize[1] - 1) * dilations[1] // sw
    phases = xp.zeros((sh, sw, n, c, hq + 1, wq), dtype=x.dtype)
    for a in range(sh):
        r0 = max(0, -(-(top - a) // sh))  # first phase row inside x, and its row in x
        s0 = r0 * sh + a - top
        nr = min(hq - r0, -(-(h - s0) // sh)) if s0 < h else 0
        for b in range(sw):
            q0 = max(0, -(-(left - b) // sw))
            t0 = q0 * sw + b - left
            nq = min(wq - q0, -(-(w - t0) // sw)) if t0 < w else 0
            if nr > 0 and nq > 0:
                phases[a, b, :, :, r0:r0 + nr, q0:q0 + nq] = \
                    x[:, :, s0:s0 + (nr - 1) * sh + 1:sh, t0:t0 + (nq - 1) * sw + 1:sw]
    return xp.reshape(phases, (sh * sw, n, c, (hq + 1) * wq)), wq


def _depthwise(xp, x, w, pads, strides, dilations, out_hw):
    """Depthwise convolution (groups == C, O = C * m) of an NCHW x: per channel block, columns
    from the flattened stride phases, then one batched matmul (module doc).  Returns an
    [N, O, Ho, Wo] view."""
    n, c = x.shape[:2]
    o, _, kh, kw = w.shape
    m, k = o // c, kh * kw
    ho, wo = out_hw
    sh, sw = strides
    dh, dw = dilations
    phases, wq = _depthwise_phases(xp, x, pads, (kh, kw), strides, dilations, out_hw)
    length = ho * wq  # flat output positions on the phase's row width
    taps = [((i * dh) % sh * sw + (j * dw) % sw, (i * dh) // sh * wq + (j * dw) // sw, i * kw + j)
            for i in range(kh) for j in range(kw)]
    wt = xp.reshape(w, (c, m, k))
    out = xp.empty((n, c, m, length), dtype=x.dtype)
    block = max(1, _COLS_BLOCK_BYTES // max(1, n * k * length * x.itemsize))
    cols = xp.empty((n, min(block, c), k, length), dtype=x.dtype)
    for c0 in range(0, c, block):
        c1 = min(c, c0 + block)
        part = cols[:, :c1 - c0]
        for phase, off, t in taps:
            part[:, :, t] = phases[phase, :, c0:c1, off:off + length]
        xp.matmul(wt[c0:c1], part, out=out[:, c0:c1])
    return xp.reshape(out, (n, o, ho, wq))[..., :wo]


def conv_geometry(spatial, ksize, strides, paddings, padding_algorithm: str, dilations):
    """(pads, dilations, output sizes) of a convolution (``_conv_geometry``), memoised per
    geometry (pure integer arithmetic, ~7 us a call: a tenth of a small layer's time); fresh
    lists on every call."""
    pads, dils, out = _conv_geometry_memo(tuple(spatial), tuple(ksize), tuple(strides),
                                          tuple(paddings), padding_algorithm, tuple(dilations))
    return list(pads), list(dils), out


@functools.lru_cache(maxsize=1024)
def _conv_geometry_memo(spatial, ksize, strides, paddings, padding_algorithm, dilations):
    pads, dils, out = conv_geometry_uncached(spatial, ksize, strides, paddings, padding_algorithm,
                                     dilations)
    return tuple(pads), tuple(dils), out


def conv_geometry_uncached(spatial, ksize, strides, paddings, padding_algorithm: str, dilations):
    """(pads, dilations, output sizes) of a convolution over ``spatial`` sizes, as Paddle's
    kernel sees them: sizes by ConvOutSize (C++ truncation), and pads whose trailing sides are
    grown where the last window overhangs the padded input (an input smaller than its window:
    Paddle's im2col reads those taps as zero; module ``windows``)."""
    pads, dils = resolve_conv_padding(paddings, dilations, padding_algorithm, spatial, strides,
                                      ksize)
    out = tuple(conv_out_size(spatial[i], ksize[i], dils[i], pads[2 * i], pads[2 * i + 1],
                              strides[i]) for i in range(len(spatial)))
    for i, size in enumerate(spatial):  # rare: a few int operations per call otherwise
        pads[2 * i + 1] += overhang(size, pads[2 * i], pads[2 * i + 1], out[i], strides[i],
                                    dils[i] * (ksize[i] - 1) + 1)
    return pads, dils, out


def conv_compute(ctx, input, filter, strides, paddings, padding_algorithm: str, dilations,
                 groups: int, data_format: str, bias=None):
    """Shared body of conv2d, depthwise_conv2d and conv3d; ``bias`` ([O], optional) is added
    to each output channel in the pass that makes the result contiguous (callers that fuse an
    affine epilogue: fluid_compat.operators.fusion)."""
    xp = ctx.xp
    nd = input.ndim - 2
    check_conv_groups(input.shape, filter.shape, groups, data_format)  # (a direct call)
    channel_last = is_channel_last(data_format)
    x = xp.permute_dims(input, (0, nd + 1, *range(1, nd + 1))) if channel_last else input
    pads, dils, out_sizes = conv_geometry(x.shape[2:], filter.shape[2:], strides, paddings,
                                          padding_algorithm, dilations)
    if 0 in out_sizes or x.shape[0] == 0:  # ConvOutSize 0: Paddle returns an empty output
        out = xp.zeros((x.shape[0], filter.shape[0], *out_sizes), dtype=x.dtype)
    else:
        out = _conv_nchw(ctx, x, filter, strides, pads, dils, groups, out_sizes)  # fresh
    if bias is not None:
        b = xp.reshape(bias, (1, -1) + (1,) * nd)
        out = xp.add(out, b, out=out) if out.flags.c_contiguous else xp.add(out, b)
    if channel_last:
        out = xp.permute_dims(out, (0, *range(2, nd + 2), 1))
    return xp.ascontiguousarray(out)


conv2d_compute = conv_compute  # the name fluid_compat.operators.fusion imports


@register_kernel("conv2d", ("CPU", "GPU"), dtypes=CONV2D_DTYPES)
def conv2d(ctx, input: Tensor, filter: Tensor, strides: list[int], paddings: list[int],
           padding_algorithm: str, dilations: list[int], groups: int,
           data_format: str) -> Tensor:
    """2-D (grouped, dilated) cross-correlation of NCHW/NHWC input with an [O, C/G, kh, kw]
    filter; paddings of 2 values (both sides) or 4 (top, bottom, left, right)."""
    return conv_compute(ctx, input, filter, strides, paddings, padding_algorithm, dilations,
                        groups, data_format)


@register_kernel("depthwise_conv2d", ("CPU", "GPU"), dtypes=DEPTHWISE_CONV2D_DTYPES)
def depthwise_conv2d(ctx, input: Tensor, filter: Tensor, strides: list[int],
                     paddings: list[int], padding_algorithm: str, groups: int,
                     dilations: list[int], data_format: str) -> Tensor:
    """conv2d with depthwise_conv2d's attribute order (groups before dilations); Paddle's CPU
    kernel is the grouped conv, so any ``groups`` is accepted."""
    return conv_compute(ctx, input, filter, strides, paddings, padding_algorithm, dilations,
                        groups, data_format)


def _bind_conv(kernel, order: tuple[str, ...]):
    """The binder of a 2-D conv kernel whose attributes come in ``order`` (phi.core.bound):
    for NCHW float numpy inputs of the planned dims, the geometry (pads, output sizes) worked
    out once and the path picked once where it depends on the dims alone; the 1x1 GEMM and
    the compiled depthwise loop are called directly (their flags read on every call), other
    convolutions go to ``_conv_nchw`` with the geometry ready.  The same operations as
    ``conv_compute`` on those inputs: the same bits."""

    def binder(ctx, attrs, metas):
        named = dict(zip(order, attrs, strict=True))
        if (ctx.xp is not np or named["data_format"] != "NCHW" or len(metas) != 2
                or None in metas):
            return None
        (xt, xdims), (wt, wdims) = metas
        if xt is not wt or len(xdims) != 4 or len(wdims) != 4:
            return None
        dtype = np.dtype(xt.to_numpy())
        if dtype not in jit.DTYPES:
            return None
        xdims, wdims = tuple(xdims), tuple(wdims)
        n, c = xdims[:2]
        o, cg, kh, kw = wdims
        strides, dilations = named["strides"], named["dilations"]
        groups = named["groups"]
        if n == 0:
            return None
        try:
            check_conv_groups(xdims, wdims, groups, "NCHW")
        except InvalidArgument:
            return None  # the kernel raises it on the call, as InferMeta words it
        pads, dils, out_sizes = conv_geometry(xdims[2:], wdims[2:], strides,
                                              named["paddings"], named["padding_algorithm"],
                                              dilations)
        if 0 in out_sizes:
            return None
        out_dims = (n, o, *out_sizes)
        length = out_sizes[0] * out_sizes[1]
        nd = np.ndarray
        strides = list(strides)

        def planned(x, w):
            return (type(x) is nd and type(w) is nd and x.shape == xdims and w.shape == wdims
                    and x.dtype is dtype and w.dtype is dtype)

        if _is_1x1(groups, (kh, kw), strides, pads):
            def bound(x, w):
                if planned(x, w) and FLAGS[_GEMM_1X1_FLAG]:
                    return _gemm_1x1(np, x, w, out_dims, length)
                return kernel(ctx, x, w, *attrs)
        elif _is_depthwise(c, cg, groups):
            def bound(x, w):
                if planned(x, w):
                    loops = jit.kernels()
                    if loops is not None:
                        return _depthwise_compiled(loops, x, w, pads, strides, dils,
                                                   out_dims)
                return kernel(ctx, x, w, *attrs)
        else:
            def bound(x, w):
                if planned(x, w):
                    return np.ascontiguousarray(_conv_nchw(ctx, x, w, strides, list(pads),
                                                           dils, groups, out_sizes))
                return kernel(ctx, x, w, *attrs)

        return bound

    binds(kernel)(binder)


_bind_conv(conv2d, ("strides", "paddings", "padding_algorithm", "dilations", "groups",
                    "data_format"))
_bind_conv(depthwise_conv2d, ("strides", "paddings", "padding_algorithm", "groups",
                              "dilations", "data_format"))


@register_kernel("conv3d", ("CPU", "GPU"), dtypes=CONV3D_DTYPES)
def conv3d(ctx, input: Tensor, filter: Tensor, strides: list[int], paddings: list[int],
           padding_algorithm: str, groups: int, dilations: list[int],
           data_format: str) -> Tensor:
    """3-D (grouped, dilated) cross-correlation of NCDHW/NDHWC input with an [O, C/G, kd, kh,
    kw] filter; paddings of 3 values (both sides) or 6 (before, after per axis)."""
    return conv_compute(ctx, input, filter, strides, paddings, padding_algorithm, dilations,
                        groups, data_format)


# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json): float and double for all six
CONV_GRAD_DTYPES = ["float32", "float64"]


def conv_grad_compute(ctx, input, filter, out_grad, strides, paddings, padding_algorithm: str,
                      dilations, groups: int, data_format: str):
    """(input gradient, filter gradient) of conv2d / depthwise_conv2d / conv3d."""
    xp = ctx.xp
    nd = input.ndim - 2
    cl = is_channel_last(data_format)
    x = channels_first(xp, input, nd, cl)
    dout = channels_first(xp, out_grad, nd, cl)
    ksize = filter.shape[2:]
    pads, dils, out_sizes = conv_geometry(x.shape[2:], ksize, strides, paddings,
                                          padding_algorithm, dilations)
    n, c = x.shape[:2]
    o = filter.shape[0]
    if 0 in out_sizes or 0 in x.shape or 0 in filter.shape:
        return channels_last(xp, xp.zeros_like(x), nd, cl), xp.zeros_like(filter)
    k = (c // groups) * prod(ksize)
    length = prod(out_sizes)
    cols = xp.reshape(conv_windows(xp, pad_nchw(xp, x, pads), groups, ksize, dils, strides,
                               out_sizes), (n, groups, k, length))
    dg = xp.reshape(xp.ascontiguousarray(dout), (n, groups, o // groups, length))
    dw = xp.sum(xp.matmul(dg, xp.swapaxes(cols, -1, -2)), axis=0)  # [G, O/G, K]
    wmat = xp.reshape(filter, (groups, o // groups, k))
    dcols = xp.matmul(xp.swapaxes(wmat, -1, -2), dg)  # [N, G, K, L]
    dx = col2im(xp, xp.reshape(dcols, (n, c, *ksize, *out_sizes)), strides, dils, pads[::2],
                x.shape[2:])
    return channels_last(xp, dx, nd, cl), xp.reshape(dw, filter.shape).astype(filter.dtype)


def _conv_grad(name: str, groups_first: bool):
    """Register ``name``: the conv grad signature, attributes in Paddle's order (conv2d_grad
    has dilations before groups, the other two groups first)."""
    if groups_first:
        def kernel(ctx, input: Tensor, filter: Tensor, out_grad: Tensor, strides: list[int],
                   paddings: list[int], padding_algorithm: str, groups: int,
                   dilations: list[int], data_format: str) -> tuple[Tensor, Tensor]:
            return conv_grad_compute(ctx, input, filter, out_grad, strides, paddings,
                                     padding_algorithm, dilations, groups, data_format)
    else:
        def kernel(ctx, input: Tensor, filter: Tensor, out_grad: Tensor, strides: list[int],
                   paddings: list[int], padding_algorithm: str, dilations: list[int],
                   groups: int, data_format: str) -> tuple[Tensor, Tensor]:
            return conv_grad_compute(ctx, input, filter, out_grad, strides, paddings,
                                     padding_algorithm, dilations, groups, data_format)
    kernel.__name__ = kernel.__qualname__ = name
    kernel.__doc__ = f"{name}: (input gradient, filter gradient) of {name[:-5]}."
    return register_kernel(name, ("CPU", "GPU"), dtypes=CONV_GRAD_DTYPES)(kernel)


conv2d_grad = _conv_grad("conv2d_grad", groups_first=False)
depthwise_conv2d_grad = _conv_grad("depthwise_conv2d_grad", groups_first=True)
conv3d_grad = _conv_grad("conv3d_grad", groups_first=True)


def _bf16():
    return DataType.BFLOAT16.to_numpy()  # ml_dtypes' bfloat16, imported when first needed


def _dnn(ctx, name: str, default):
    """An attribute Paddle reads from the OneDNNContext (``default`` without one)."""
    has = getattr(ctx, "has_dnn_attr", None)
    return ctx.dnn_attr(name, default) if has is not None and has(name) else default


def fused_conv(ctx, op_type: str, input, filter, bias, residual_param, strides, paddings,
               padding_algorithm: str, dilations, groups: int, data_format: str,
               mkldnn_data_type: str, fuse_activation: str, fuse_residual_connection: bool,
               force_fp32_output: bool):
    """The shared body of fused_conv2d and fused_conv3d."""
    xp = ctx.xp
    rank = 5 if op_type == "fused_conv3d" else 4
    if input.ndim != rank or filter.ndim != rank:
        raise InvalidArgument(f"{op_type}: Input and Filter must be {rank}-D, got "
                              f"{list(input.shape)} and {list(filter.shape)}.")
    if mkldnn_data_type not in ("float32", "int8", "bfloat16", ""):
        raise InvalidArgument(f"{op_type}: mkldnn_data_type must be float32, int8 or "
                              f"bfloat16, got {mkldnn_data_type!r}.")
    if input.dtype in (np.int8, np.uint8):
        return _int8_conv(ctx, op_type, input, filter, bias, residual_param, strides, paddings,
                          padding_algorithm, dilations, groups, data_format, fuse_activation,
                          fuse_residual_connection, force_fp32_output)
    bf16 = mkldnn_data_type == "bfloat16" or input.dtype == _bf16()
    if bf16:  # oneDNN's bfloat16 conv: bf16 operands, float32 accumulation and post-ops
        input = input.astype(_bf16()).astype(np.float32)
        filter = filter.astype(_bf16()).astype(np.float32)
    if bias is not None and bias.ndim != 1:
        raise InvalidArgument(f"{op_type}: Bias must be 1-D, got shape {list(bias.shape)}.")
    out = conv_compute(ctx, input, filter, strides, paddings, padding_algorithm, dilations,
                       groups, data_format, bias=bias)
    if fuse_residual_connection:
        if residual_param is None:
            raise InvalidArgument(f"{op_type}: fuse_residual_connection is true but "
                                  "ResidualData is missing.")
        if tuple(residual_param.shape) != tuple(out.shape):
            raise InvalidArgument(
                f"{op_type}: Output and residual param must have the same dimension sizes, "
                f"got Output {list(out.shape)} and ResidualData "
                f"{list(residual_param.shape)}.")
        out = xp.add(out, residual_param.astype(out.dtype))
    out = apply_activation(xp, out, fuse_activation, float(_dnn(ctx, "fuse_alpha", 0.0)),
                           float(_dnn(ctx, "fuse_beta", 0.0)), op_type)
    if bf16 and not force_fp32_output:
        out = out.astype(_bf16())  # round to nearest even
    return xp.ascontiguousarray(out)


def _int8_conv(ctx, op_type, input, filter, bias, residual_param, strides, paddings,
               padding_algorithm, dilations, groups, data_format, fuse_activation,
               fuse_residual_connection, force_fp32_output):
    xp = ctx.xp
    if fuse_residual_connection:
        raise Unimplemented(f"{op_type}: the int8 residual sum (Scale_in_eltwise) is not "
                            "implemented.")
    scale_in = np.float32(_dnn(ctx, "Scale_in", 1.0))
    weights = np.asarray(_dnn(ctx, "Scale_weights", [1.0]), np.float32).reshape(-1)
    out_ch = filter.shape[0]
    if weights.size not in (1, out_ch):
        raise InvalidArgument(f"{op_type}: Scale_weights has {weights.size} values; expected 1 "
                              f"or one per output channel ({out_ch}).")
    weights = np.broadcast_to(weights, (out_ch,))
    shape = (out_ch,) + (1,) * (filter.ndim - 1)
    with quiet(xp):
        wq = xp.clip(xp.rint(filter.astype(np.float32) * xp.reshape(weights, shape)), -128, 127)
        # integer products summed exactly (|acc| < 2^53 in float64)
        acc = conv_compute(ctx, input.astype(np.float64), wq.astype(np.float64), strides,
                           paddings, padding_algorithm, dilations, groups, data_format)
        channel_axis = acc.ndim - 1 if data_format in ("NHWC", "NDHWC") else 1
        bshape = [1] * acc.ndim
        bshape[channel_axis] = out_ch
        back = (np.float32(1) / (scale_in * weights)).astype(np.float32)
        v = acc.astype(np.float32) * xp.reshape(back, bshape)
        if bias is not None:
            v = v + xp.reshape(bias.astype(np.float32), bshape)
    v = apply_activation(xp, v.astype(np.float32), fuse_activation,
                         float(_dnn(ctx, "fuse_alpha", 0.0)), float(_dnn(ctx, "fuse_beta", 0.0)),
                         op_type)
    if force_fp32_output:
        return xp.ascontiguousarray(v)
    target = np.uint8 if fuse_activation in ("relu", "relu6") else np.int8
    info = np.iinfo(target)
    with quiet(xp):
        q = xp.clip(xp.rint(v * np.float32(_dnn(ctx, "Scale_out", 1.0))), info.min, info.max)
    return xp.ascontiguousarray(q.astype(target))


_CONV_DEFS = {"filter": {"dtype": DataType.ALL_DTYPE}, "bias": {"dtype": DataType.ALL_DTYPE},
              "residual_param": {"dtype": DataType.ALL_DTYPE}}


@register_kernel("fused_conv2d", ("ONEDNN",), dtypes=["float32", "bfloat16", "int8", "uint8"],
                 layout=DataLayout.ONEDNN, input_defs=_CONV_DEFS,
                 output_defs={0: {"dtype": DataType.ALL_DTYPE}})
def fused_conv2d(ctx, input: Tensor, filter: Tensor, bias: Tensor | None,
                 residual_param: Tensor | None, strides: list[int], paddings: list[int],
                 padding_algorithm: str, dilations: list[int], groups: int, data_format: str,
                 mkldnn_data_type: str, fuse_activation: str, fuse_residual_connection: bool,
                 force_fp32_output: bool) -> Tensor:
    """conv2d + Bias, then + ResidualData, then the activation."""
    return fused_conv(ctx, "fused_conv2d", input, filter, bias, residual_param, strides,
                      paddings, padding_algorithm, dilations, groups, data_format,
                      mkldnn_data_type, fuse_activation, fuse_residual_connection,
                      force_fp32_output)


@register_kernel("fused_conv3d", ("ONEDNN",), dtypes=["float32"], layout=DataLayout.ONEDNN)
def fused_conv3d(ctx, input: Tensor, filter: Tensor, bias: Tensor | None,
                 residual_param: Tensor | None, strides: list[int], paddings: list[int],
                 padding_algorithm: str, dilations: list[int], groups: int, data_format: str,
                 mkldnn_data_type: str, fuse_activation: str, fuse_residual_connection: bool,
                 force_fp32_output: bool) -> Tensor:
    """conv3d + Bias, then + ResidualData, then the activation."""
    return fused_conv(ctx, "fused_conv3d", input, filter, bias, residual_param, strides,
                      paddings, padding_algorithm, dilations, groups, data_format,
                      mkldnn_data_type, fuse_activation, fuse_residual_connection,
                      force_fp32_output)
