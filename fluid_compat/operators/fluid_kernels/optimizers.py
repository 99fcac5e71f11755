"""The fluid kernels of dgc_clip_by_norm, dpsgd, ftrl, proximal_gd, sparse_momentum."""

from __future__ import annotations

import time

import numpy as np

from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from phi.core.errors import InvalidArgument
from phi.kernels.clip_by_norm import clip_by_norm

__all__ = ["MinstdRand", "canonical"]


def _lr(ctx, dtype):
    lr = ctx.input_array("LearningRate")
    if lr.size != 1:
        raise InvalidArgument(f"{ctx.type}: LearningRate must hold one value, got shape "
                              f"{list(lr.shape)}.")
    return np.dtype(dtype).type(lr.reshape(-1)[0])


@register_fluid_kernel("proximal_gd", "CPU", ("float32",))
class ProximalGdKernel(FluidKernel):
    """prox = p - lr g; p = sign(prox) max(|prox| - lr l1, 0) / (1 + lr l2) (no shrink
    without l1)."""

    def compute(self, ctx) -> None:
        p, g = ctx.input_array("Param"), ctx.input_array("Grad")
        t = p.dtype.type
        lr = _lr(ctx, p.dtype)
        l1, l2 = t(ctx.attr("l1")), t(ctx.attr("l2"))
        prox = p - lr * g
        if l1 > 0:
            out = np.sign(prox) * np.maximum(np.abs(prox) - lr * l1, t(0)) / (t(1) + lr * l2)
        else:
            out = prox / (t(1) + lr * l2)
        ctx.set_output("ParamOut", out.astype(p.dtype))


@register_fluid_kernel("ftrl", "CPU", ("float32",))
class FtrlKernel(FluidKernel):
    """Follow-the-regularized-leader with l1 / l2 and a learning-rate power."""

    def compute(self, ctx) -> None:
        p, g = ctx.input_array("Param"), ctx.input_array("Grad")
        sq, lin = ctx.input_array("SquaredAccumulator"), ctx.input_array("LinearAccumulator")
        t = p.dtype.type
        lr = _lr(ctx, p.dtype)
        l1, l2 = t(ctx.attr("l1")) + t(1e-10), t(ctx.attr("l2")) + t(1e-10)
        lr_power = t(ctx.attr("lr_power"))
        new_sq = sq + g * g
        if lr_power == t(-0.5):
            lin_out = lin + g - (np.sqrt(new_sq) - np.sqrt(sq)) / lr * p
            y = np.sqrt(new_sq) / lr + t(2) * l2
        else:
            lin_out = lin + g - (new_sq ** -lr_power - sq ** -lr_power) / lr * p
            y = new_sq ** -lr_power / lr + t(2) * l2
        x = l1 * np.sign(lin_out) - lin_out
        out = np.where(np.abs(lin_out) > l1, x / y, t(0))
        ctx.set_output("ParamOut", out.astype(p.dtype))
        ctx.set_output("SquaredAccumOut", new_sq.astype(p.dtype))
        ctx.set_output("LinearAccumOut", lin_out.astype(p.dtype))


_MINSTD_M = 2147483647


class MinstdRand:
    """``std::minstd_rand`` (x = 48271 x mod 2^31 - 1), seeded as libstdc++ does (0 -> 1)."""

    def __init__(self, seed: int) -> None:
        self.x = (seed % _MINSTD_M) or 1

    def __call__(self) -> int:
        self.x = self.x * 48271 % _MINSTD_M
        return self.x


def canonical(engine: MinstdRand, dtype) -> np.generic:
    """libstdc++'s ``generate_canonical<T, digits>`` over minstd_rand (range R = 2^31 - 2,
    log2 R = 30 bits a draw): one draw for float, two for double, summed in T."""
    t = np.dtype(dtype).type
    r = _MINSTD_M - 1
    draws = 1 if t is np.float32 else 2
    total, scale = t(0), t(1)
    for _ in range(draws):
        total = t(total + t(engine() - 1) * scale)
        scale = t(scale * r)  # (float: the product rounds to 2^31; double: r*r rounds too)
    out = t(total / scale)
    return np.nextafter(t(1), t(0)) if out >= t(1) else out


def _dpsgd_noise(seed: int, sigma, dtype) -> np.float32:
    """The one gaussian draw of Paddle's DpsgdOpKernel: Marsaglia's polar method on
    uniform_real_distribution<T>(0, 1) values kept in float, seeded with ``seed`` (0: the time
    in seconds, as Paddle)."""
    f = np.float32
    engine = MinstdRand((seed & 0xFFFFFFFF) or int(time.time()) & 0xFFFFFFFF)
    while True:
        u1, u2 = f(canonical(engine, dtype)), f(canonical(engine, dtype))
        v1, v2 = f(2) * u1 - f(1), f(2) * u2 - f(1)
        s = v1 * v1 + v2 * v2
        if not (s >= 1 or s == 0):
            break
    x = v1 * np.sqrt(f(-2) * f(np.log(np.float64(s))) / s)
    t = np.dtype(dtype).type
    return f(t(x) * t(sigma))  # mu (0) + X * sigma, in T, kept in float


@register_fluid_kernel("dpsgd", "CPU", ("float32", "float64"))
class DpsgdKernel(FluidKernel):
    """p - lr (g / scale + noise / batch_size): scale = |g| / clip when |g| > clip (|g| summed
    in float), one N(0, sigma) draw for the whole tensor (CCS16's DP-SGD)."""

    def compute(self, ctx) -> None:
        p, g = ctx.input_array("Param"), ctx.input_array("Grad")
        if p.size != g.size:
            raise InvalidArgument(f"dpsgd: Input(Grad) must have as many elements as "
                                  f"Input(Param), expected {p.size}, but received {g.size}.")
        t, f = p.dtype.type, np.float32
        clip, batch = t(f(ctx.attr("clip"))), t(f(ctx.attr("batch_size")))
        norm = f(0)
        for v in g.reshape(-1):  # float accumulator, as Paddle's loop
            norm = f(norm + v * v)
        norm = np.sqrt(norm)
        scale = f(norm / clip) if norm > clip else f(1)
        noise = _dpsgd_noise(int(ctx.attr("seed")), f(ctx.attr("sigma")), p.dtype)
        out = p - _lr(ctx, p.dtype) * (g / t(scale) + t(noise) / batch)
        ctx.set_output("ParamOut", out.astype(p.dtype))


@register_fluid_kernel("dgc_clip_by_norm", "CPU", ("float32",))
class DgcClipByNormKernel(FluidKernel):
    """clip_by_norm from rampup_begin_step on; before it (or with rampup_begin_step < 0) Out
    is left unwritten, as Paddle's kernel leaves it."""

    def compute(self, ctx) -> None:
        begin = int(ctx.attr("rampup_begin_step"))
        if begin < 0:
            return
        step = ctx.input_array("current_step")
        if step.size < 1:
            raise InvalidArgument("dgc_clip_by_norm: Input(current_step) holds no value.")
        if int(step.reshape(-1)[0]) < begin:
            return
        ctx.set_output("Out", clip_by_norm(None, ctx.input_array("X"), ctx.attr("max_norm")))


def _sparse_axis(ctx) -> int:
    axis = ctx.attr("axis")
    if ctx.input("Axis") is not None:  # the Axis tensor (int32 or int64) wins
        axis = int(ctx.input_array("Axis").reshape(-1)[0])
    if axis not in (0, 1):
        raise InvalidArgument(f"sparse_momentum: The axis of sparse_momentum_op only support "
                              f"axis=0 or axis=1 now, got {axis}.")
    return axis


@register_fluid_kernel("sparse_momentum", "CPU", ("float32", "float64"))
class SparseMomentumKernel(FluidKernel):
    """momentum on a [rows, cols] Param whose gradient comes as rows (axis 0) or columns
    (axis 1) of Grad for the positions in Index: a position's gradient is the sum, times
    rescale_grad, of Grad's slices whose Index equals it (in Index order), 0 elsewhere; an
    Index outside Param matches no position (Paddle's binary search skips it).  With
    multi_precision the master copy is the parameter updated (and MasterParamOut written)."""

    def compute(self, ctx) -> None:
        p, g, v = (ctx.input_array(s) for s in ("Param", "Grad", "Velocity"))
        index = ctx.input_array("Index")
        axis = _sparse_axis(ctx)
        if index.ndim == 1 and index.shape[0] == 0:
            raise InvalidArgument("sparse_momentum: The index of sparse_momentum_op should not "
                                  "be empty when the index's rank is 1.")
        if index.ndim == 2 and index.shape[1] != 1:
            raise InvalidArgument(f"sparse_momentum: If the index's rank of sparse_momentum_op "
                                  f"is 2, the second dimension should be 1, got "
                                  f"{list(index.shape)}.")
        for slot, arr in (("Param", p), ("Grad", g)):
            if arr.ndim != 2:
                raise InvalidArgument(f"sparse_momentum: The {slot}'s rank of "
                                      f"sparse_momentum_op must be 2 now, got {arr.ndim}.")
        master = None
        if ctx.attr("multi_precision"):
            if ctx.input("MasterParam") is None:
                raise InvalidArgument("sparse_momentum: The Input(MasterParam) and "
                                      "Output(MasterParamOut) should not be null when the attr "
                                      "`multi_precision` is true")
            master = ctx.input_array("MasterParam")
        idx = index.reshape(-1).astype(np.int64)
        if idx.size > g.shape[axis] or g.shape[1 - axis] != p.shape[1 - axis]:
            raise InvalidArgument(f"sparse_momentum: Input(Grad) must hold one slice on axis "
                                  f"{axis} per Index ({idx.size}) and Param's other dim, got "
                                  f"Grad {list(g.shape)}, Param {list(p.shape)}.")
        param = p if master is None else master
        t = param.dtype.type
        rescale = t(np.float32(ctx.attr("rescale_grad")))
        dense = np.zeros(param.shape, param.dtype)
        for k in np.argsort(idx, kind="stable"):  # Paddle sums in sorted-Index order
            if not 0 <= idx[k] < p.shape[axis]:
                continue
            if axis == 0:
                dense[idx[k]] += g[k] * rescale
            else:
                dense[:, idx[k]] += g[:, k] * rescale
        mu = t(np.float32(ctx.attr("mu")))
        if ctx.attr("regularization_method") == "l2_decay":
            dense = dense + t(np.float32(ctx.attr("regularization_coeff"))) * param
        v_out = v * mu + dense
        step = dense + v_out * mu if ctx.attr("use_nesterov") else v_out
        new = (param - step * _lr(ctx, param.dtype)).astype(param.dtype)
        ctx.set_output("ParamOut", new.astype(p.dtype))
        ctx.set_output("VelocityOut", v_out.astype(param.dtype))
        if master is not None and ctx.has_output("MasterParamOut"):
            ctx.set_output("MasterParamOut", new)

