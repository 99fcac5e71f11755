"""The ``weight_quantize`` kernel."""

from __future__ import annotations

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument, Unimplemented
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import to_half
from phi.kernels.funcs.quant import round_half_away


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
