"""Quantization arithmetic of Paddle 2.6.2's CPU kernels (paddle/fluid/operators/
fake_quantize_op.{h,cc}, quantize_linear_op.h, fake_dequantize_op.cc) and the phi kernel
``dequantize_linear``.

Most quantization ops run fluid (STRUCTURE) kernels in Paddle; they live in
``fluid_compat/operators/fluid_kernels/quant.py`` and share the functions here.  Everything is
computed in the input's float type, in Paddle's operation order (``bin_cnt * inv_s * x``, then
``* s / bin_cnt``), so that results agree to the bit:

* ``round_type`` 0 (``QuantTensorFunctor``): round half to even, then clip to
  [-bin_cnt - 1, bin_cnt];
* ``round_type`` 1 (``ClipFunctor`` + Eigen ``round``): clip to [-s, s] first, then round half
  away from zero;
* ``inverse(s)`` is ``1 / (s + 1e-6)`` for ``s <= 1e-30`` (a zero scale gives zeros).
"""

from __future__ import annotations

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument, PreconditionNotMet, Unimplemented
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import as_array, half_op, quiet, to_half

__all__ = [
    "abs_max",
    "bin_count",
    "channel_abs_max",
    "channel_scale",
    "fake_quant",
    "moving_average_scale",
    "round_half_away",
]


def bin_count(bit_length: int) -> int:
    """2^(bit_length - 1) - 1 (127 for 8 bits)."""
    return (1 << (bit_length - 1)) - 1


def round_half_away(xp, v):
    """std::round: halves away from zero (exact: ``a - floor(a)`` has no rounding error)."""
    a = xp.abs(v)
    f = xp.floor(a)
    r = xp.where(a - f >= 0.5, f + 1, f)
    return xp.where(v < 0, -r, r).astype(v.dtype)


def _first_max(xp, a, axis=None):
    """std::max_element with |a| < |b|: NaN wins only as the first element (comparisons with
    NaN are false, so a later NaN is never taken)."""
    first = xp.reshape(a, (-1,))[0] if axis is None else xp.take(a, 0, axis=axis)
    with quiet(xp):
        best = xp.nanmax(a, axis=axis) if hasattr(xp, "nanmax") else xp.max(a, axis=axis)
    return xp.where(xp.isnan(first), first, best)


def abs_max(xp, x):
    """FindAbsMaxFunctor: max |x| as a 1-element array of x's dtype."""
    if x.size == 0:
        raise InvalidArgument("quantization: the abs max of an empty tensor is undefined "
                              "(Paddle reads past its end).")
    return xp.reshape(_first_max(xp, xp.abs(x)), (1,)).astype(x.dtype)


def channel_abs_max(xp, x, quant_axis: int):
    """FindChannelAbsMaxFunctor: max |x| over everything but ``quant_axis`` (0 or 1)."""
    if quant_axis not in (0, 1):
        raise InvalidArgument(f"'quant_axis' should be 0 or 1, but the received is "
                              f"{quant_axis}")
    if x.ndim <= quant_axis:
        raise InvalidArgument(f"quantization: quant_axis {quant_axis} is out of range for X of "
                              f"rank {x.ndim}.")
    if x.size == 0:
        return xp.zeros((x.shape[quant_axis],), dtype=x.dtype)
    a = xp.abs(x)
    if quant_axis == 0:  # one max_element per channel slice
        return _first_max(xp, xp.reshape(a, (x.shape[0], -1)), axis=1).astype(x.dtype)
    # axis 1: std::max(acc, block max) from 0 drops a NaN block max
    blocks = _first_max(xp, xp.reshape(a, (x.shape[0], x.shape[1], -1)), axis=2)
    blocks = xp.where(xp.isnan(blocks), x.dtype.type(0), blocks)
    return xp.max(blocks, axis=0).astype(x.dtype)


def channel_scale(xp, scale, x, quant_axis: int, what: str = "Scale"):
    """The per-channel ``scale`` shaped to broadcast along ``quant_axis`` of ``x``."""
    if quant_axis not in (0, 1):
        raise InvalidArgument(f"'quant_axis' should be 0 or 1, but the received is "
                              f"{quant_axis}")
    if x.ndim <= quant_axis or scale.size != x.shape[quant_axis]:
        raise PreconditionNotMet(
            f"The number of {what} values ({scale.size}) must equal the quant_axis dimension "
            f"of Input(X) (dims {list(x.shape)}, quant_axis {quant_axis}).")
    shape = [1] * x.ndim
    shape[quant_axis] = scale.size
    return xp.reshape(scale, shape)


def _inverse(xp, s):
    one = s.dtype.type(1)
    return xp.where(s <= s.dtype.type(1e-30), one / (s + s.dtype.type(1e-6)), one / s)


def fake_quant(xp, x, s, bin_cnt: int, round_type: int, dequant: bool = False):
    """ClipAndFakeQuant(Dequant)Functor with ``s`` a scalar array or a broadcastable one."""
    if round_type not in (0, 1):
        raise InvalidArgument(f"'round_type' should be between 0 or 1, but the received is "
                              f"{round_type}")
    t = x.dtype.type
    s = s.astype(x.dtype)
    bins = t(bin_cnt)
    with quiet(xp):
        inv_s = _inverse(xp, s)
        if round_type == 0:
            q = xp.rint(bins * inv_s * x)
            q = xp.clip(q, -bins - t(1), bins)
        else:
            q = round_half_away(xp, bins * inv_s * xp.clip(x, -s, s))
        if dequant:
            q = q * s / bins
    return as_array(xp, xp.reshape(q, x.shape).astype(x.dtype))  # a 0-d X stays 0-d


def moving_average_scale(xp, accum, state, cur, rate: float):
    """FindMovingAverageAbsMaxFunctor: (state, accum, scale) updated with the current abs max."""
    t = cur.dtype.type
    r = t(rate)
    state = r * state.astype(cur.dtype) + t(1)
    accum = r * accum.astype(cur.dtype) + cur
    return state, accum, accum / state


_SCALE_DTYPES = (DataType.FLOAT32, DataType.FLOAT64, DataType.FLOAT16)


# X may be int8 while Scale (which decides the output type) is float: only X sets the kernel
@register_kernel("dequantize_linear", ("CPU",), dtypes=["float32", "float64", "int8"],
                 input_defs={"scale": {"dtype": DataType.ALL_DTYPE},
                             "zero_point": {"dtype": DataType.ALL_DTYPE},
                             "in_accum": {"dtype": DataType.ALL_DTYPE},
                             "in_state": {"dtype": DataType.ALL_DTYPE}},
                 output_defs={i: {"dtype": DataType.ALL_DTYPE} for i in range(4)})
def dequantize_linear(ctx, x: Tensor, scale: Tensor | None, zero_point: Tensor,
                      in_accum: Tensor | None, in_state: Tensor | None, quant_axis: int,
                      bit_length: int, round_type: int, is_test: bool, only_observer: bool
                      ) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """Y = X * scale / (2^(bit_length-1) - 1) in Scale's float type, per tensor
    (quant_axis < 0) or per channel; only_observer copies X.  The observer outputs are left
    untouched by Paddle: zeros here."""
    xp = ctx.xp
    if scale is None:
        raise PreconditionNotMet("in_scale can't be nullptr in DeQuantizeLinearKernel")
    dtype = ctx.data_type(scale)
    if dtype not in _SCALE_DTYPES:
        raise Unimplemented(f"In DeQuantizeLinearKernel, data type {dtype} for scale/output is "
                            "not supported")
    unused = (xp.zeros((1,), dtype=ctx.xp_dtype(dtype)),) * 2 + (xp.zeros(
        (1,) if quant_axis < 0 else (x.shape[quant_axis],), dtype=ctx.xp_dtype(dtype)),)
    if only_observer:
        return (xp.asarray(x, copy=True), *unused)
    xf = ctx.astype(x, dtype)
    max_range = xf.dtype.type(bin_count(bit_length))
    if quant_axis < 0:
        s = xp.reshape(scale, (-1,))[:1]
    else:
        s = channel_scale(xp, xp.reshape(scale, (-1,)), xf, quant_axis)
    if dtype is DataType.FLOAT16:  # Eigen's half: each operation in float32, truncated back
        y = half_op(ctx, lambda a, b: a * b, xf, xp.broadcast_to(s, xf.shape))
        y = half_op(ctx, lambda a: a / max_range.astype("float32"), y)
    else:
        with quiet(xp):
            y = xf * s / max_range
    return (as_array(xp, y.astype(xf.dtype)), *unused)


# ---- weight_quantize (paddle/phi/kernels/cpu/weight_quantize_kernel.cc and its impl header):
# per-column scale max|w| / bound in the weight's half type, round half away, then CUTLASS's
# mixed-GEMM layout for arch 75 / 80 / 86, row-major + bias for arch 70, a transpose for llm.int8

_ARCHS = (70, 75, 80, 86)
_ALGOS = ("weight_only_int8", "weight_only_int4", "llm.int8")


def _nibbles(np_, packed, n):
    """[rows, n/2] int8 bytes -> [rows, n] signed 4-bit values (low nibble first)."""
    b = packed.view(np_.uint8)
    lo = (b & 0xF).astype(np_.int8)
    hi = (b >> 4).astype(np_.int8)
    out = np_.empty((b.shape[0], n), np_.int8)
    out[:, 0::2], out[:, 1::2] = lo, hi
    return np_.where(out > 7, out - 16, out).astype(np_.int8)


def _pack_nibbles(np_, vals):
    """[rows, n] values (low 4 bits used) -> [rows, n/2] bytes, element 2j in the low nibble."""
    v = vals.astype(np_.uint8) & 0xF
    return (v[:, 0::2] | (v[:, 1::2] << 4)).view(np_.int8)


def _permute_b_rows(np_, q, bits):
    """permute_B_rows_for_mixed_gemm: rows permuted within blocks of 8 * 16 / bits rows."""
    block, per_reg = 8 * (16 // bits), 32 // bits
    t = np_.arange(block)
    read = 8 * ((t % per_reg) // 2) + t % 2 + 2 * (t // per_reg)
    r = np_.arange(q.shape[0])
    return q[r // block * block + read[r % block]]


def _interleave_column_major(np_, words, n, m, bits):
    """interleave_column_major_tensor on the transposed [n, m] tensor as uint32 words."""
    per_word = 32 // bits
    vec_rows, tile = m // per_word, 64 // per_word
    inter = 128 * 8 // bits // 64
    col = np_.arange(n)[:, None]
    vr = np_.arange(vec_rows)[None, :]
    write_row = inter * (vr // tile * tile) + tile * (col % inter) + vr % tile
    out = np_.empty_like(words)
    out[(col // inter) * vec_rows * inter + write_row] = words[col * vec_rows + vr]
    return out


def _add_bias_interleave(np_, data, bits):
    """add_bias_and_interleave_inplace: signed -> biased unsigned codes, then the register
    shuffle the mixed GEMM expects."""
    b = data.reshape(-1).view(np_.int8)
    if bits == 8:
        b = (b.astype(np_.int16) + 128).astype(np_.uint8).view(np_.int8).reshape(-1, 4)
        return b[:, [0, 2, 1, 3]].reshape(-1)
    lo = (b.view(np_.uint8) & 0xF) ^ 8  # the sign-extended low nibble + 8
    hi = (b >> 4) + 8  # arithmetic shift: the sign-extended high nibble
    packed = (lo.astype(np_.uint32) | (hi.astype(np_.uint32) << 4)) & 0xFF
    regs = packed.astype(np_.uint8).view(np_.uint32)
    out = np_.zeros_like(regs)
    for dst in range(8):
        src = 2 * dst if dst < 4 else 2 * (dst - 4) + 1
        out |= ((regs >> np_.uint32(4 * src)) & np_.uint32(0xF)) << np_.uint32(4 * dst)
    return out.view(np_.int8)


def _weight_quant_host(np_, w32, scale32, algo: str, arch: int):
    """The int8 output of weight_quantize from float32 weights [m, n] and half scales."""
    m, n = w32.shape
    bits = 4 if algo == "weight_only_int4" else 8
    bound = 7 if bits == 4 else 127
    with np_.errstate(all="ignore"):
        q = round_half_away(np_, w32 / scale32[None, :])
    if bits == 8:  # std::max(-127.f, std::min(127.f, v)): NaN (a zero column) gives 127
        q = np_.where(np_.isnan(q), 127, np_.clip(q, -bound, bound))
    else:  # static_cast<int> first: NaN / inf become INT_MIN on x86, clipped to -7
        q = np_.where(np_.isfinite(q), np_.clip(q, -bound, bound), -bound)
    q = q.astype(np_.int8)
    if algo == "llm.int8":
        return np_.ascontiguousarray(q.T)
    packed = _pack_nibbles(np_, q) if bits == 4 else q
    if arch == 70:
        return _add_bias_interleave(np_, packed, bits).reshape(-1)
    permuted = _permute_b_rows(np_, packed, bits)
    vals = _nibbles(np_, permuted, n) if bits == 4 else permuted
    trans = np_.ascontiguousarray(vals.T)  # subbyte_transpose_impl: [n, m] elements
    trans = _pack_nibbles(np_, trans) if bits == 4 else trans
    words = np_.ascontiguousarray(trans).reshape(-1).view(np_.uint32)
    inter = _interleave_column_major(np_, words, n, m, bits)
    return _add_bias_interleave(np_, inter.view(np_.int8), bits)


@register_kernel("weight_quantize", ("CPU",), dtypes=["float16", "bfloat16"],
                 output_defs={0: {"dtype": DataType.INT8}})
def weight_quantize(ctx, x: Tensor, algo: str, arch: int) -> tuple[Tensor, Tensor]:
    """(out int8 [n, k] ([n/2, k] for int4), scale [n] in x's dtype) of weights x [k, n]."""
    import numpy as np_

    if algo not in _ALGOS:
        raise Unimplemented(f"weight_quantize: attribute `algo` must be in {list(_ALGOS)}, but "
                            f"got [{algo}]")
    if arch not in _ARCHS:
        raise InvalidArgument(f"weight_quantize: attribute `arch` only supports 70, 75, 80, "
                              f"86, got {arch}.")
    if x.ndim != 2:
        raise InvalidArgument(f"weight_quantize: Input(x) must be 2-D, but got [{x.ndim}]-D")
    dtype = ctx.data_type(x)
    w32 = np_.asarray(ctx.to_host(ctx.astype(x, DataType.FLOAT32)))
    m, n = w32.shape
    bits = 4 if algo == "weight_only_int4" else 8
    out_shape = (n // 2 if bits == 4 else n, m)
    if w32.size == 0:
        return (xp_zeros(ctx, out_shape, DataType.INT8), xp_zeros(ctx, (n,), dtype))
    col_max = np_.max(np_.abs(w32), axis=0)
    scale = to_half(ctx, ctx.from_host(col_max / np_.float32(7 if bits == 4 else 127)), dtype)
    scale32 = np_.asarray(ctx.to_host(ctx.astype(scale, DataType.FLOAT32)))
    out = _weight_quant_host(np_, w32, scale32, algo, arch)
    return ctx.from_host(np_.ascontiguousarray(out).reshape(out_shape)), scale


def xp_zeros(ctx, shape, dtype: DataType):
    return ctx.xp.zeros(tuple(shape), dtype=ctx.xp_dtype(dtype))
