"""The fluid kernels of gru_unit, gru_unit_grad."""

from __future__ import annotations

import numpy as np

from fluid_compat.operators.fluid_kernels.funcs import FLOATS, rank, wanted
from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from phi.core.errors import InvalidArgument
from phi.kernels.funcs import quiet

__all__: list[str] = []


def _act_grad(kind: int, y, dy):
    """d act / d x from the activation's output y (identity, sigmoid, tanh, relu)."""
    t = y.dtype.type
    if kind == 1:
        return dy * y * (t(1) - y)
    if kind == 2:
        return dy * (t(1) - y * y)
    if kind == 3:
        return dy * (y > t(0)).astype(y.dtype)
    return dy


@register_fluid_kernel("gru_unit_grad", "CPU", FLOATS)
class GruUnitGradKernel(FluidKernel):
    """One GRU step backwards from Gate (u, r, c activated), ResetHiddenPrev and Hidden@GRAD;
    Weight's buffer holds [D, 2D] update / reset weights then [D, D] candidate weights."""

    def compute(self, ctx) -> None:
        hp, w = ctx.input_array("HiddenPrev"), ctx.input_array("Weight")
        gate, rhp = ctx.input_array("Gate"), ctx.input_array("ResetHiddenPrev")
        dh = ctx.input_array("Hidden@GRAD")
        d = hp.shape[1]
        t = hp.dtype.type
        flat = w.reshape(-1)
        w_ur, w_c = flat[:2 * d * d].reshape(d, 2 * d), flat[2 * d * d:].reshape(d, d)
        u, r, c = gate[:, :d], gate[:, d:2 * d], gate[:, 2 * d:]
        act, gate_act = int(ctx.attr("activation")), int(ctx.attr("gate_activation"))
        with quiet(np):
            if ctx.attr("origin_mode"):
                dc, du, dhp = dh * (t(1) - u), dh * (hp - c), dh * u
            else:
                dc, du, dhp = dh * u, dh * (c - hp), dh * (t(1) - u)
            dg = np.empty_like(gate)
            dg[:, :d] = _act_grad(gate_act, u, du)
            dg[:, 2 * d:] = _act_grad(act, c, dc)
            drhp = dg[:, 2 * d:] @ w_c.T
            dw_c = rhp.T @ dg[:, 2 * d:]
            dg[:, d:2 * d] = _act_grad(gate_act, r, drhp * hp)
            dhp = dhp + drhp * r + dg[:, :2 * d] @ w_ur.T
            dw_ur = hp.T @ dg[:, :2 * d]
        if wanted(ctx, "Input@GRAD"):
            ctx.set_output("Input@GRAD", dg)
        if wanted(ctx, "HiddenPrev@GRAD"):
            ctx.set_output("HiddenPrev@GRAD", dhp.astype(hp.dtype))
        if wanted(ctx, "Weight@GRAD"):
            dw = np.concatenate([dw_ur.reshape(-1), dw_c.reshape(-1)]).astype(w.dtype)
            ctx.set_output("Weight@GRAD", dw.reshape(w.shape))
        if wanted(ctx, "Bias@GRAD") and ctx.has_input("Bias"):
            bias = ctx.input_array("Bias")
            ctx.set_output("Bias@GRAD", dg.sum(axis=0, dtype=dg.dtype).reshape(bias.shape))


# gru_unit's activation enum (GRUUnitOpMaker): identity, sigmoid, tanh, relu (Eigen functors)
_GRU_ACTS = (lambda v: v, lambda v: 1 / (1 + np.exp(-v)), np.tanh, lambda v: np.maximum(v, 0))


@register_fluid_kernel("gru_unit", "CPU", ("float32", "float64"))
class GruUnitKernel(FluidKernel):
    """One GRU step.  Weight's buffer holds the update / reset weights as a [D, 2D] matrix
    followed by the candidate weights as [D, D] (not column blocks of a [D, 3D] matrix)."""

    def compute(self, ctx) -> None:
        for slot in ("Input", "HiddenPrev", "Weight"):
            rank(ctx, slot, (2,))
        x, hp, w = (ctx.input_array(s) for s in ("Input", "HiddenPrev", "Weight"))
        d = hp.shape[1]
        if ctx.has_input("Bias") and ctx.input_array("Bias").size != 3 * d:
            raise InvalidArgument(f"gru_unit: Bias must hold 3D = {3 * d} values, got "
                                  f"{ctx.input_array('Bias').size}.")
        if x.shape[1] != 3 * d or w.shape != (d, 3 * d):
            raise InvalidArgument(f"gru_unit: Input [B, 3D], HiddenPrev [B, D] and Weight "
                                  f"[D, 3D] disagree: {list(x.shape)}, {list(hp.shape)}, "
                                  f"{list(w.shape)}.")
        act, gate_act = (_GRU_ACTS[int(ctx.attr(a))] for a in ("activation", "gate_activation"))
        flat = w.reshape(-1)
        w_ur, w_c = flat[:2 * d * d].reshape(d, 2 * d), flat[2 * d * d:].reshape(d, d)
        g = x.copy()
        if ctx.has_input("Bias"):
            g = g + ctx.input_array("Bias").reshape(1, -1)
        g[:, :2 * d] = gate_act(g[:, :2 * d] + hp @ w_ur)
        u, r = g[:, :d], g[:, d:2 * d]
        rhp = r * hp
        g[:, 2 * d:] = act(g[:, 2 * d:] + rhp @ w_c)
        c = g[:, 2 * d:]
        h = c + u * (hp - c) if ctx.attr("origin_mode") else u * (c - hp) + hp
        ctx.set_output("Gate", g)
        ctx.set_output("ResetHiddenPrev", rhp)
        ctx.set_output("Hidden", h)

