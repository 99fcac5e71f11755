"""The fluid kernels of dequantize_abs_max, dequantize_log, fake_channel_wise_dequantize_max_abs,
fake_channel_wise_quantize_abs_max, fake_channel_wise_quantize_dequantize_abs_max,
fake_dequantize_max_abs, fake_quantize_abs_max, fake_quantize_dequantize_abs_max,
fake_quantize_dequantize_moving_average_abs_max, fake_quantize_moving_average_abs_max,
fake_quantize_range_abs_max, lookup_table_dequant, moving_average_abs_max_scale, quantize,
quantize_linear, requantize, stright_throuth_estimator_grad.
"""

from __future__ import annotations

import numpy as np

from fluid_compat.operators.fluid_kernels.funcs import wanted_first
from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument, Unimplemented
from phi.kernels.funcs import quiet
from phi.kernels.dequantize_linear import (
    abs_max,
    bin_count,
    channel_abs_max,
    channel_scale,
    fake_quant,
    moving_average_scale,
)

__all__: list[str] = []


@register_fluid_kernel("stright_throuth_estimator_grad", "CPU", ("float32",))
class StraightThroughEstimatorGradKernel(FluidKernel):
    """X@GRAD = a copy of Out@GRAD (the fake quantize-dequantize ops pass gradients through)."""

    dtype_tied_inputs = ("Out@GRAD",)

    def compute(self, ctx) -> None:
        if wanted_first(ctx, "X@GRAD"):
            ctx.set_output("X@GRAD", ctx.xp.array(ctx.input_array("Out@GRAD"), copy=True))


def _bits(ctx, name: str = "bit_length") -> int:
    bits = ctx.attr(name)
    if not 1 <= bits <= 16:
        raise InvalidArgument(f"{ctx.type}: '{name}' should be between 1 and 16, but the "
                              f"received is {bits}")
    return bin_count(bits)


def _round_type(ctx) -> int:
    return ctx.attr("round_type") if ctx.has_attr("round_type") else 1


def _first(ctx, slot: str):
    return ctx.xp.reshape(ctx.input_array(slot), (-1,))[:1]


class _AbsMax(FluidKernel):
    """fake_quantize(_dequantize)_abs_max: scale = max |X|, Out = quantized X."""

    dequant = False

    def compute(self, ctx) -> None:
        xp, x = ctx.xp, ctx.input_array("X")
        scale = abs_max(xp, x)
        ctx.set_output("Out", fake_quant(xp, x, scale, _bits(ctx), _round_type(ctx),
                                         self.dequant))
        ctx.set_output("OutScale", scale)


@register_fluid_kernel("fake_quantize_abs_max", "CPU", ("float32",))
class FakeQuantizeAbsMaxKernel(_AbsMax):
    pass


@register_fluid_kernel("fake_quantize_dequantize_abs_max", "CPU", ("float32",))
class FakeQuantizeDequantizeAbsMaxKernel(_AbsMax):
    dequant = True


class _ChannelAbsMax(FluidKernel):
    """fake_channel_wise_quantize(_dequantize)_abs_max: one scale per slice of quant_axis."""

    dequant = False

    def compute(self, ctx) -> None:
        xp, x = ctx.xp, ctx.input_array("X")
        axis = ctx.attr("quant_axis")
        scale = channel_abs_max(xp, x, axis)
        s = channel_scale(xp, scale, x, axis, "OutScale")
        ctx.set_output("Out", fake_quant(xp, x, s, _bits(ctx), _round_type(ctx), self.dequant))
        ctx.set_output("OutScale", scale)


@register_fluid_kernel("fake_channel_wise_quantize_abs_max", "CPU", ("float32",))
class FakeChannelWiseQuantizeAbsMaxKernel(_ChannelAbsMax):
    pass


@register_fluid_kernel("fake_channel_wise_quantize_dequantize_abs_max", "CPU", ("float32",))
class FakeChannelWiseQuantizeDequantizeAbsMaxKernel(_ChannelAbsMax):
    dequant = True


@register_fluid_kernel("fake_quantize_range_abs_max", "CPU", ("float32",))
class FakeQuantizeRangeAbsMaxKernel(FluidKernel):
    """Scale = max of the last ``window_size`` abs maxima (FindRangeAbsMaxFunctor); the window
    buffer OutScales starts as zeros (Paddle reuses the persistable variable's memory)."""

    def compute(self, ctx) -> None:
        xp, x = ctx.xp, ctx.input_array("X")
        bins = _bits(ctx)
        if ctx.attr("is_test"):
            ctx.set_output("Out", fake_quant(xp, x, _first(ctx, "InScale"), bins,
                                             _round_type(ctx)))
            return
        if not ctx.has_input("Iter"):
            raise InvalidArgument(f"{ctx.type}: input `Iter` is required for training "
                                  "(is_test=false).")
        window = ctx.attr("window_size")
        if window <= 0:
            raise InvalidArgument(f"{ctx.type}: window_size must be positive, got {window}.")
        it = int(np.asarray(ctx.input_array("Iter")).reshape(-1)[0])
        cur = abs_max(xp, x)
        scales = xp.zeros((window,), dtype=x.dtype)
        idx = it % window
        removed = scales[idx]
        scales[idx] = cur[0]
        best = _first(ctx, "InScale").astype(x.dtype)[0]
        if best < cur[0]:
            best = cur[0]
        elif abs(float(removed) - float(best)) < 1e-6:
            size = window if it > window else it
            best = xp.max(xp.abs(scales[:size])) if size > 0 else xp.abs(scales[0])
        scale = xp.reshape(xp.asarray(best, dtype=x.dtype), (1,))
        ctx.set_output("Out", fake_quant(xp, x, scale, bins, _round_type(ctx)))
        ctx.set_output("OutScale", scale)
        ctx.set_output("OutScales", scales)


class _MovingAverage(FluidKernel):
    """fake_quantize(_dequantize)_moving_average_abs_max and moving_average_abs_max_scale:
    scale = (rate * accum + max |X|) / (rate * state + 1) while training."""

    dequant: bool | None = False  # None: no quantization, Out is a copy of X

    def compute(self, ctx) -> None:
        xp, x = ctx.xp, ctx.input_array("X")
        if self.dequant is None:
            ctx.set_output("Out", xp.asarray(x, copy=True))
        if ctx.attr("is_test"):
            if self.dequant is not None:
                ctx.set_output("Out", fake_quant(xp, x, _first(ctx, "InScale"), _bits(ctx),
                                                 _round_type(ctx), self.dequant))
            return
        for slot in ("InAccum", "InState"):
            if not ctx.has_input(slot):
                raise InvalidArgument(f"{ctx.type}: input `{slot}` is required for training "
                                      "(is_test=false).")
        state, accum, scale = moving_average_scale(
            xp, _first(ctx, "InAccum"), _first(ctx, "InState"), abs_max(xp, x),
            ctx.attr("moving_rate"))
        ctx.set_output("OutState", state)
        ctx.set_output("OutAccum", accum)
        ctx.set_output("OutScale", scale)
        if self.dequant is not None:
            ctx.set_output("Out", fake_quant(xp, x, scale, _bits(ctx), _round_type(ctx),
                                             self.dequant))


@register_fluid_kernel("fake_quantize_moving_average_abs_max", "CPU", ("float32",))
class FakeQuantizeMovingAverageAbsMaxKernel(_MovingAverage):
    pass


@register_fluid_kernel("fake_quantize_dequantize_moving_average_abs_max", "CPU", ("float32",))
class FakeQuantizeDequantizeMovingAverageAbsMaxKernel(_MovingAverage):
    dequant = True


@register_fluid_kernel("moving_average_abs_max_scale", "CPU", ("float32",))
class MovingAverageAbsMaxScaleKernel(_MovingAverage):
    dequant = None


@register_fluid_kernel("quantize_linear", "CPU", ("float32",))
class QuantizeLinearKernel(FluidKernel):
    """Per tensor (quant_axis < 0: moving-average scale while training) or per channel (abs max
    per channel while training); ``only_observer`` passes X through."""

    def compute(self, ctx) -> None:
        xp, x = ctx.xp, ctx.input_array("X")
        bins, rt = _bits(ctx), ctx.attr("round_type")
        axis, observer = ctx.attr("quant_axis"), ctx.attr("only_observer")
        if axis < 0:
            if ctx.attr("is_test"):
                scale = _first(ctx, "Scale")
            else:
                for slot in ("InAccum", "InState"):
                    if not ctx.has_input(slot):
                        raise InvalidArgument(f"{ctx.type}: input `{slot}` is required for "
                                              "training (is_test=false, quant_axis < 0).")
                state, accum, scale = moving_average_scale(
                    xp, _first(ctx, "InAccum"), _first(ctx, "InState"), abs_max(xp, x),
                    ctx.attr("moving_rate") if ctx.has_attr("moving_rate") else 0.9)
                ctx.set_output("OutState", state)
                ctx.set_output("OutAccum", accum)
                ctx.set_output("OutScale", scale)
        else:
            if ctx.attr("is_test"):
                scale = xp.reshape(ctx.input_array("Scale"), (-1,))
            else:
                scale = channel_abs_max(xp, x, axis)
                ctx.set_output("OutScale", scale)
            scale = channel_scale(xp, scale, x, axis)
        y = xp.asarray(x, copy=True) if observer else fake_quant(xp, x, scale, bins, rt)
        ctx.set_output("Y", y)


class _Dequant(FluidKernel):
    """fake_dequantize_max_abs / dequantize_abs_max: Out = X * Scale / max_range in float."""

    def compute(self, ctx) -> None:
        xp = ctx.xp
        scale = _first(ctx, "Scale")
        x = ctx.input_array("X")
        dtype = x.dtype if x.dtype.kind == "f" else scale.dtype
        x = x.astype(dtype)
        max_range = dtype.type(ctx.attr("max_range"))
        with quiet(xp):
            out = self.formula(x, scale.astype(dtype)[0], max_range)
        ctx.set_output("Out", xp.asarray(out, dtype=dtype))


@register_fluid_kernel("fake_dequantize_max_abs", "CPU", ("float32", "float64"))
class FakeDequantizeMaxAbsKernel(_Dequant):
    @staticmethod
    def formula(x, s, max_range):
        return x * s / max_range


@register_fluid_kernel("dequantize_abs_max", "CPU", ("int8", "int16"))
class DequantizeAbsMaxKernel(_Dequant):
    @staticmethod
    def formula(x, s, max_range):
        return s * x / max_range


@register_fluid_kernel("fake_channel_wise_dequantize_max_abs", "CPU", ("float32", "float64"))
class FakeChannelWiseDequantizeMaxAbsKernel(FluidKernel):
    """One Scales tensor: X * scale[c] / max_range along quant_axis; two (after conv / mul):
    X * scale0[c] * scale1 / (max_range0 * max_range1) along axis 1."""

    def compute(self, ctx) -> None:
        xp, x = ctx.xp, ctx.input_array("X")
        scales = [xp.reshape(s.data, (-1,)).astype(x.dtype) for s in ctx.multi_input("Scales")]
        bits = ctx.attr("quant_bits")
        if not scales or len(scales) > 2 or len(bits) < len(scales):
            raise InvalidArgument(f"{ctx.type}: Scales holds {len(scales)} tensors and "
                                  f"quant_bits {list(bits)}: expected 1 or 2 scales with one "
                                  "bit count each.")
        max_range = x.dtype.type(1)
        for b in bits[:len(scales)]:
            max_range = max_range * x.dtype.type(bin_count(b))
        with quiet(xp):
            if len(scales) == 1:
                s = channel_scale(xp, scales[0], x, ctx.attr("quant_axis"), "Scales")
                out = x * s / max_range
            else:
                if x.ndim < 2 or scales[1].size != 1:
                    raise InvalidArgument(f"{ctx.type}: with two Scales, X must be at least 2-D "
                                          "and the second scale a single value.")
                s = channel_scale(xp, scales[0], x, 1, "Scales")
                out = x * s * scales[1][0] / max_range
        ctx.set_output("Out", xp.asarray(out, dtype=x.dtype))


@register_fluid_kernel("dequantize_log", "CPU", ("int8",))
class DequantizeLogKernel(FluidKernel):
    """Out = Dict[X] for X >= 0, -Dict[X + 128] for X < 0."""

    def compute(self, ctx) -> None:
        xp = ctx.xp
        x = ctx.input_array("X").astype(np.int64)
        table = xp.reshape(ctx.input_array("Dict"), (-1,))
        if table.size < 128:
            raise InvalidArgument(f"{ctx.type}: Dict must hold 128 values, got {table.size}.")
        neg = x < 0
        ctx.set_output("Out", xp.where(neg, -table[xp.where(neg, x + 128, 0)],
                                       table[xp.where(neg, 0, x)]))


@register_fluid_kernel("lookup_table_dequant", "CPU", ("float32",))
class LookupTableDequantKernel(FluidKernel):
    """Rows of W = [min, max, uint8 codes packed 4 per float]: Out = (max - min) / 256 * code
    + min; padding_idx rows are zeros."""

    def compute(self, ctx) -> None:
        xp = ctx.xp
        w, ids = ctx.input_array("W"), ctx.input_array("Ids")
        if w.ndim != 2 or w.shape[1] < 2:
            raise InvalidArgument(f"{ctx.type}: W must be 2-D with at least 2 columns, got "
                                  f"{list(w.shape)}.")
        flat = xp.reshape(ids, (-1,)).astype(np.int64)
        pad = ctx.attr("padding_idx")
        bad = [int(i) for i in flat if (i < 0 or i >= w.shape[0]) and i != pad]
        if bad:
            raise InvalidArgument(f"{ctx.type}: Ids {bad[:3]} out of range [0, {w.shape[0]}).")
        rows = w[xp.where(flat == pad, 0, flat)] if flat.size else w[:0]
        lo, hi = rows[:, :1], rows[:, 1:2]
        codes = xp.ascontiguousarray(rows[:, 2:]).view(np.uint8).astype(np.float32)
        with quiet(xp):
            out = (hi - lo) / np.float32(256) * codes + lo
        out = xp.where((flat == pad)[:, None], np.float32(0), out).astype(np.float32)
        shape = tuple(ids.shape[:-1]) if ids.ndim > 1 and ids.shape[-1] == 1 else tuple(
            ids.shape)
        ctx.set_output("Out", xp.reshape(out, (*shape, codes.shape[1])))


def _saturate(xp, v, dtype):
    info = np.iinfo(dtype)
    return xp.clip(xp.rint(v), info.min, info.max).astype(dtype)


# quantize / requantize exist only as oneDNN kernels (MKLDNN library, ONEDNN layout): oneDNN
# reorders round half to even in float32 and saturate
@register_fluid_kernel("quantize", "CPU", ("float32",), library="MKLDNN")
class QuantizeOneDNNKernel(FluidKernel):
    """Output = saturate(round(Input * Scale + Shift)): int8 for a signed input without shift,
    uint8 otherwise; bfloat16=true gives Input * Scale rounded to the nearest bfloat16 (oneDNN's
    conversion, not Paddle's truncating one)."""

    def compute(self, ctx) -> None:
        xp, x = ctx.xp, ctx.input_array("Input")
        scale, shift = np.float32(ctx.attr("Scale")), np.float32(ctx.attr("Shift"))
        if ctx.attr("bfloat16"):
            with quiet(xp):
                v = x * scale
            ctx.set_output("Output", v.astype(ctx.dev_ctx.xp_dtype(DataType.BFLOAT16)),
                           DataType.BFLOAT16)
            return
        with quiet(xp):
            v = x * scale + shift if shift != 0 else x * scale
        signed = ctx.attr("is_negative_input") and shift == 0
        ctx.set_output("Output", _saturate(xp, v, np.int8 if signed else np.uint8))


@register_fluid_kernel("requantize", "CPU", ("int8", "uint8", "bfloat16"), library="MKLDNN")
class RequantizeOneDNNKernel(FluidKernel):
    """Output = saturate(round((Input - Shift_in) * Scale_out / Scale_in + Shift_out)); a
    bfloat16 Input is rescaled in float32 and rounded back to nearest even (oneDNN's
    conversion, unlike Paddle's own truncating one)."""

    def compute(self, ctx) -> None:
        xp, x = ctx.xp, ctx.input_array("Input")
        scale_in, scale_out = ctx.attr("Scale_in"), ctx.attr("Scale_out")
        shift_in, shift_out = ctx.attr("Shift_in"), ctx.attr("Shift_out")
        if scale_in == 0:
            raise InvalidArgument(f"{ctx.type}: Scale of input cannot be 0.0")
        if x.dtype.kind != "u" and (shift_in != 0 or shift_out != 0):
            raise Unimplemented(f"{ctx.type}: Requantize does not support nonzero shift for "
                                "signed input.")
        ratio = np.float32(np.float32(scale_out) / np.float32(scale_in))
        with quiet(xp):
            v = (x.astype(np.float32) - np.float32(shift_in)) * ratio + np.float32(shift_out)
        if x.dtype.kind not in "iu":  # bfloat16
            ctx.set_output("Output", v.astype(x.dtype), DataType.BFLOAT16)
            return
        ctx.set_output("Output", _saturate(xp, v, x.dtype))

