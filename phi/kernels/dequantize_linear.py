"""The ``dequantize_linear`` kernel."""

from __future__ import annotations

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument, PreconditionNotMet, Unimplemented
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import as_array, half_op, quiet
from phi.kernels.funcs.quant import round_half_away

__all__ = ["abs_max", "bin_count", "channel_abs_max", "channel_scale", "fake_quant",
           "moving_average_scale"]


def bin_count(bit_length: int) -> int:
    """2^(bit_length - 1) - 1 (127 for 8 bits)."""
    return (1 << (bit_length - 1)) - 1


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
