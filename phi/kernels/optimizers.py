"""Optimizer update rules of issue 13 (Paddle's paddle/phi/kernels/cpu/*_kernel.cc and
impl/*_kernel_impl.h): one step of sgd, momentum, merged_momentum, lars_momentum, adam, adamw,
lamb, adagrad, decayed_adagrad, adamax, adadelta, rmsprop, plus clip_by_norm,
check_finite_and_unscale, update_loss_scaling and average_accumulates.

Every rule computes in the parameter's dtype in Paddle's order of operations.  Outputs that the
program does not hold (MasterParamOut without MasterParam) are left as they are (None).
"""

from __future__ import annotations

import numpy as np

from phi.common.data_type import DataType
from phi.common.scalar import Scalar
from phi.core.errors import InvalidArgument
from phi.core.kernel import Int64, Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import half_op, to_bfloat16

__all__ = ["adadelta", "adagrad", "adam", "adamax", "adamw", "average_accumulates",
           "check_finite_and_unscale", "clip_by_norm", "decayed_adagrad", "lamb",
           "lars_momentum", "merged_momentum", "momentum", "rmsprop", "sgd",
           "update_loss_scaling"]

_F = ["float32", "float64"]
_ANY_DTYPE = {"dtype": DataType.ALL_DTYPE}


def _s(x, dtype, what: str) -> np.generic:
    """A scalar (a 1-element tensor) in ``dtype``."""
    if isinstance(x, np.ndarray):
        if x.size != 1:
            raise InvalidArgument(f"Input({what}) must hold one value, got shape "
                              f"{list(x.shape)}.")
        x = x.reshape(-1)[0]
    return np.dtype(dtype).type(x)


def _count(x, what: str) -> int:
    """An integer counter held by a 1-element tensor."""
    return int(_s(x, np.int64, what))


def _f(x, dtype) -> np.generic:
    """A float attribute (or a Scalar made from one) as Paddle's kernels see it:
    static_cast<T>(float), so a float64 kernel gets the float32 value widened."""
    if isinstance(x, Scalar):
        x = x.value
    if isinstance(x, np.ndarray):
        x = x.reshape(-1)[0]
    return np.dtype(dtype).type(np.float32(x))


def _lr(lr, dtype) -> np.generic:
    return _s(lr, dtype, "LearningRate")


def _same_shape(op: str, param, **others) -> None:
    for name, t in others.items():
        if t is not None and t.shape != param.shape:
            raise InvalidArgument(f"{op}: Param and {name} must have the same dims, got "
                                  f"{list(param.shape)} and {list(t.shape)}.")


def _master(param, master, multi_precision: bool):
    """The tensor the rule updates: the float32 master copy when multi_precision holds one."""
    return master if (multi_precision and master is not None) else param


def _finish(param, new, master, multi_precision: bool):
    """(ParamOut, MasterParamOut)."""
    if multi_precision and master is not None:
        return new.astype(param.dtype), new
    return new.astype(param.dtype), None


@register_kernel("sgd", "CPU", dtypes=["bfloat16", *_F],
                 input_defs={"learning_rate": _ANY_DTYPE, "master_param": _ANY_DTYPE})
def sgd(ctx, param: Tensor, learning_rate: Tensor, grad: Tensor, master_param: Tensor | None,
        multi_precision: bool) -> tuple[Tensor, Tensor]:
    """param - lr * grad."""
    _same_shape("sgd", param, Grad=grad)
    if ctx.data_type(param) is DataType.BFLOAT16:
        return _sgd_bf16(ctx, param, learning_rate, grad)
    p = _master(param, master_param, multi_precision)
    new = (p - _lr(learning_rate, p.dtype) * grad.astype(p.dtype)).astype(p.dtype)
    return _finish(param, new, master_param, multi_precision)


def _sgd_bf16(ctx, param, learning_rate, grad):
    """Paddle's CPU bfloat16 sgd (Paddle-made cases hb_sgd_*bf16): the learning rate as
    bfloat16, then two bfloat16 operations, param - (lr * grad), each truncated; the master
    copy is neither read nor written (MasterParamOut stays as it was)."""
    lr = to_bfloat16(ctx, np.asarray(_lr(learning_rate, np.float32)))
    step = half_op(ctx, lambda a, b: a * b, lr, grad)
    return half_op(ctx, lambda a, b: a - b, param, step), None


def _momentum_step(p, g, v, lr, mu, use_nesterov, reg_method, reg_coeff, rescale):
    # Paddle 2.6.2's CPU momentum ignores rescale_grad (Paddle-made cases show it)
    mu = _f(mu, p.dtype)
    if reg_method == "l2_decay":
        g = g + p * _f(reg_coeff, p.dtype)
    v_out = v * mu + g
    p_out = p - (g + v_out * mu) * lr if use_nesterov else p - lr * v_out
    return p_out.astype(p.dtype), v_out.astype(p.dtype)


@register_kernel("momentum", "CPU", dtypes=_F,
                 input_defs={"learning_rate": _ANY_DTYPE, "master_param": _ANY_DTYPE})
def momentum(ctx, param: Tensor, grad: Tensor, velocity: Tensor, learning_rate: Tensor,
             master_param: Tensor | None, mu: float, use_nesterov: bool,
             regularization_method: str, regularization_coeff: float, multi_precision: bool,
             rescale_grad: float) -> tuple[Tensor, Tensor, Tensor]:
    """v = mu v + g (plus coeff * p under l2_decay); p -= lr v (Nesterov: p -= lr (g + mu v));
    rescale_grad is ignored, as Paddle's CPU kernel ignores it."""
    _same_shape("momentum", param, Grad=grad, Velocity=velocity)
    p = _master(param, master_param, multi_precision)
    p_out, v_out = _momentum_step(p, grad.astype(p.dtype), velocity, _lr(learning_rate, p.dtype),
                                  mu, use_nesterov, regularization_method,
                                  regularization_coeff, rescale_grad)
    param_out, master_out = _finish(param, p_out, master_param, multi_precision)
    return param_out, v_out, master_out


@register_kernel("merged_momentum", "CPU", dtypes=_F,
                 input_defs={"learning_rate": _ANY_DTYPE, "master_param": _ANY_DTYPE})
def merged_momentum(ctx, param: list[Tensor], grad: list[Tensor], velocity: list[Tensor],
                    learning_rate: list[Tensor], master_param: list[Tensor], mu: float,
                    use_nesterov: bool, regularization_method: list[str],
                    regularization_coeff: list[float], multi_precision: bool,
                    rescale_grad: float) -> tuple[list[Tensor], list[Tensor], list[Tensor]]:
    """``momentum`` on every parameter (one learning rate for all, or one each)."""
    n = len(param)
    if len(grad) != n or len(velocity) != n:
        raise InvalidArgument(f"merged_momentum: Param, Grad and Velocity must have the same "
                              f"count, got {n}, {len(grad)}, {len(velocity)}.")
    if len(learning_rate) not in (1, n):
        raise InvalidArgument(f"merged_momentum: LearningRate holds {len(learning_rate)} "
                              f"tensors; expected 1 or {n}.")
    outs_p, outs_v = [], []
    for i in range(n):
        lr = learning_rate[0 if len(learning_rate) == 1 else i]
        method = regularization_method[i] if regularization_method else ""
        coeff = regularization_coeff[i] if regularization_coeff else 0.0
        p_out, v_out = _momentum_step(param[i], grad[i].astype(param[i].dtype), velocity[i],
                                      _lr(lr, param[i].dtype), mu, use_nesterov, method, coeff,
                                      rescale_grad)
        outs_p.append(p_out)
        outs_v.append(v_out)
    return outs_p, outs_v, None


@register_kernel("lars_momentum", "CPU", dtypes=_F,
                 input_defs={"learning_rate": _ANY_DTYPE, "master_param": _ANY_DTYPE})
def lars_momentum(ctx, param: list[Tensor], velocity: list[Tensor], learning_rate: list[Tensor],
                  grad: list[Tensor], master_param: list[Tensor],
                  lars_weight_decay: list[float], mu: float, lars_coeff: float, epsilon: float,
                  multi_precision: bool, rescale_grad: float
                  ) -> tuple[list[Tensor], list[Tensor], list[Tensor]]:
    """Layer-wise adaptive rate: local_lr = lr * coeff * |p| / (|g| + wd |p| + eps) when wd,
    |p| and |g| are positive; v = mu v + local_lr (g + wd p); p -= v."""
    outs_p, outs_v = [], []
    for i, p in enumerate(param):
        t = p.dtype.type
        p_dtype = p.dtype
        g = t(rescale_grad) * grad[i].astype(p.dtype)
        wd = _f(lars_weight_decay[i] if i < len(lars_weight_decay) else lars_weight_decay[0],
                p_dtype)
        lr = _lr(learning_rate[i if len(learning_rate) > i else 0], p.dtype)
        p_norm = np.sqrt(np.sum(p * p, dtype=p.dtype))
        g_norm = np.sqrt(np.sum(g * g, dtype=p.dtype))
        local_lr = lr
        if wd > 0 and p_norm > 0 and g_norm > 0:
            local_lr = lr * _f(lars_coeff, p_dtype) * p_norm / (
                g_norm + wd * p_norm + _f(epsilon, p_dtype))
        v_out = velocity[i] * _f(mu, p_dtype) + local_lr * (g + wd * p)
        outs_p.append((p - v_out).astype(p.dtype))
        outs_v.append(v_out.astype(p.dtype))
    return outs_p, outs_v, None


def _skip(skip_update) -> bool:
    return skip_update is not None and bool(_s(skip_update, np.bool_, "SkipUpdate"))


def _adam_core(p, g, lr, m1, m2, b1pow, b2pow, beta1, beta2, eps, decay=None):
    """Paddle's jit Adam / AdamW refer kernels: lr_t = lr * (sqrt(1 - b2^t) / (1 - b1^t)),
    eps_t = eps * sqrt(1 - b2^t); AdamW first decays p by lr * lr_ratio * coeff."""
    t = p.dtype.type
    one = t(1)
    lr_t = lr * (np.sqrt(one - b2pow) / (one - b1pow))
    eps_t = eps * np.sqrt(one - b2pow)
    m1_out = beta1 * m1 + (one - beta1) * g
    m2_out = beta2 * m2 + (one - beta2) * g * g
    step = m1_out / (np.sqrt(m2_out) + eps_t)
    if decay is None:
        p_out = p + (-lr_t) * step
    else:
        coeff, lr_ratio = decay
        p_tmp = p - lr * lr_ratio * coeff * p
        p_out = p_tmp + (-lr_t) * lr_ratio * step
    return p_out.astype(p.dtype), m1_out.astype(p.dtype), m2_out.astype(p.dtype)


def _adam(op, param, grad, learning_rate, m1, m2, b1pow, b2pow, master_param, skip_update,
          beta1, beta2, epsilon, multi_precision, use_global_beta_pow, decay=None):
    _same_shape(op, param, Grad=grad, Moment1=m1, Moment2=m2)
    if _skip(skip_update):
        return param.copy(), m1.copy(), m2.copy(), b1pow.copy(), b2pow.copy(), None
    p = _master(param, master_param, multi_precision)
    t = p.dtype
    beta1, beta2, eps = _f(beta1, t), _f(beta2, t), _f(epsilon, t)
    lr = _lr(learning_rate, t)
    if decay is not None:
        decay = (_f(decay[0], t), _f(decay[1], t))
    p_out, m1_out, m2_out = _adam_core(p, grad.astype(t), lr, m1, m2, _s(b1pow, t, "Beta1Pow"),
                                       _s(b2pow, t, "Beta2Pow"), beta1, beta2, eps, decay)
    if use_global_beta_pow:
        b1_out, b2_out = None, None
    else:
        b1_out = (b1pow * beta1.astype(b1pow.dtype)).astype(b1pow.dtype)
        b2_out = (b2pow * beta2.astype(b2pow.dtype)).astype(b2pow.dtype)
    param_out, master_out = _finish(param, p_out, master_param, multi_precision)
    return param_out, m1_out, m2_out, b1_out, b2_out, master_out


_ADAM_INPUTS = {"learning_rate": _ANY_DTYPE, "beta1_pow": _ANY_DTYPE, "beta2_pow": _ANY_DTYPE,
                "master_param": _ANY_DTYPE, "skip_update": _ANY_DTYPE}
_ADAM_OUTPUTS = {3: {"dtype": DataType.ALL_DTYPE}, 4: {"dtype": DataType.ALL_DTYPE}}


@register_kernel("adam", "CPU", dtypes=_F, input_defs=_ADAM_INPUTS, output_defs=_ADAM_OUTPUTS)
def adam(ctx, param: Tensor, grad: Tensor, learning_rate: Tensor, moment1: Tensor,
         moment2: Tensor, beta1_pow: Tensor, beta2_pow: Tensor, master_param: Tensor | None,
         skip_update: Tensor | None, beta1: Scalar, beta2: Scalar, epsilon: Scalar,
         lazy_mode: bool, min_row_size_to_use_multithread: Int64, multi_precision: bool,
         use_global_beta_pow: bool
         ) -> tuple[Tensor, Tensor, Tensor, Tensor, Tensor, Tensor]:
    """lr_t = lr sqrt(1 - b2^t) / (1 - b1^t); m1, m2 moving averages of g, g^2;
    p -= lr_t m1 / (sqrt(m2) + eps sqrt(1 - b2^t)); the beta powers advance."""
    return _adam("adam", param, grad, learning_rate, moment1, moment2, beta1_pow, beta2_pow,
                 master_param, skip_update, beta1, beta2, epsilon, multi_precision,
                 use_global_beta_pow)


@register_kernel("adamw", "CPU", dtypes=_F, input_defs=_ADAM_INPUTS, output_defs=_ADAM_OUTPUTS)
def adamw(ctx, param: Tensor, grad: Tensor, learning_rate: Tensor, moment1: Tensor,
          moment2: Tensor, beta1_pow: Tensor, beta2_pow: Tensor, master_param: Tensor | None,
          skip_update: Tensor | None, beta1: Scalar, beta2: Scalar, epsilon: Scalar,
          lr_ratio: float, coeff: float, with_decay: bool, lazy_mode: bool,
          min_row_size_to_use_multithread: Int64, multi_precision: bool,
          use_global_beta_pow: bool
          ) -> tuple[Tensor, Tensor, Tensor, Tensor, Tensor, Tensor]:
    """adam with decoupled weight decay: p -= lr * lr_ratio * coeff * p first, then the adam
    step scaled by lr_ratio; without with_decay, plain adam."""
    # without with_decay Paddle runs the adam kernel itself (lr_ratio unused)
    return _adam("adamw", param, grad, learning_rate, moment1, moment2, beta1_pow, beta2_pow,
                 master_param, skip_update, beta1, beta2, epsilon, multi_precision,
                 use_global_beta_pow, decay=(coeff, lr_ratio) if with_decay else None)


@register_kernel("lamb", "CPU", dtypes=_F, input_defs=_ADAM_INPUTS, output_defs=_ADAM_OUTPUTS)
def lamb(ctx, param: Tensor, grad: Tensor, learning_rate: Tensor, moment1: Tensor,
         moment2: Tensor, beta1_pow: Tensor, beta2_pow: Tensor, master_param: Tensor | None,
         skip_update: Tensor | None, weight_decay: float, beta1: float, beta2: float,
         epsilon: float, always_adapt: bool, multi_precision: bool
         ) -> tuple[Tensor, Tensor, Tensor, Tensor, Tensor, Tensor]:
    """r = m1_hat / (sqrt(m2_hat) + eps) + wd p; p -= lr * (|p| / |r|) r (ratio 1 when a norm
    is 0); the beta powers advance."""
    _same_shape("lamb", param, Grad=grad, Moment1=moment1, Moment2=moment2)
    if _skip(skip_update):
        return (param.copy(), moment1.copy(), moment2.copy(), beta1_pow.copy(),
                beta2_pow.copy(), None)
    p = _master(param, master_param, multi_precision)
    t = p.dtype.type
    p_dtype = p.dtype
    g = grad.astype(p.dtype)
    b1, b2 = _f(beta1, p_dtype), _f(beta2, p_dtype)
    b1pow = _s(beta1_pow, p.dtype, "Beta1Pow")
    b2pow = _s(beta2_pow, p.dtype, "Beta2Pow")
    m1 = b1 * moment1 + (t(1) - b1) * g
    m2 = b2 * moment2 + (t(1) - b2) * g * g
    eps = _f(epsilon, p_dtype)
    r = (m1 / (t(1) - b1pow)) / (np.sqrt(m2 / (t(1) - b2pow)) + eps) \
        + _f(weight_decay, p_dtype) * p
    p_norm = np.sqrt(np.sum(p * p, dtype=p.dtype))
    r_norm = np.sqrt(np.sum(r * r, dtype=p.dtype))
    ratio = p_norm / r_norm if (p_norm != 0 and r_norm != 0) else t(1)
    if weight_decay == 0 and not always_adapt:
        ratio = t(1)
    p_out = (p - _lr(learning_rate, p.dtype) * ratio * r).astype(p.dtype)
    b1_out = (beta1_pow * beta1_pow.dtype.type(beta1)).astype(beta1_pow.dtype)
    b2_out = (beta2_pow * beta2_pow.dtype.type(beta2)).astype(beta2_pow.dtype)
    param_out, master_out = _finish(param, p_out, master_param, multi_precision)
    return param_out, m1.astype(p.dtype), m2.astype(p.dtype), b1_out, b2_out, master_out


@register_kernel("adagrad", "CPU", dtypes=_F,
                 input_defs={"learning_rate": _ANY_DTYPE, "master_param": _ANY_DTYPE})
def adagrad(ctx, param: Tensor, grad: Tensor, moment: Tensor, learning_rate: Tensor,
            master_param: Tensor | None, epsilon: float, multi_precision: bool
            ) -> tuple[Tensor, Tensor, Tensor]:
    """moment += g^2; p -= lr g / (sqrt(moment) + eps)."""
    _same_shape("adagrad", param, Grad=grad, Moment=moment)
    p_dtype = param.dtype
    m = moment + grad * grad
    p = param - _lr(learning_rate, param.dtype) * grad / (np.sqrt(m) + _f(epsilon, p_dtype))
    return p.astype(param.dtype), m.astype(param.dtype), None


@register_kernel("decayed_adagrad", "CPU", dtypes=["float32"],
                 input_defs={"learning_rate": _ANY_DTYPE})
def decayed_adagrad(ctx, param: Tensor, grad: Tensor, moment: Tensor, learning_rate: Tensor,
                    decay: float, epsilon: float) -> tuple[Tensor, Tensor]:
    """moment = decay moment + (1 - decay) g^2; p -= lr g / (sqrt(moment) + eps)."""
    _same_shape("decayed_adagrad", param, Grad=grad, Moment=moment)
    t = param.dtype.type
    p_dtype = param.dtype
    m = _f(decay, p_dtype) * moment + (t(1) - _f(decay, p_dtype)) * grad * grad
    p = param - _lr(learning_rate, param.dtype) * grad / (np.sqrt(m) + _f(epsilon, p_dtype))
    return p.astype(param.dtype), m.astype(param.dtype)


@register_kernel("adamax", "CPU", dtypes=_F,
                 input_defs={"learning_rate": _ANY_DTYPE, "beta1_pow": _ANY_DTYPE,
                             "master_param": _ANY_DTYPE})
def adamax(ctx, param: Tensor, grad: Tensor, learning_rate: Tensor, moment: Tensor,
           inf_norm: Tensor, beta1_pow: Tensor, master_param: Tensor | None, beta1: float,
           beta2: float, epsilon: float, multi_precision: bool
           ) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """m = b1 m + (1 - b1) g; u = max(b2 u + eps, |g|); p -= lr / (1 - b1^t) * m / u."""
    _same_shape("adamax", param, Grad=grad, Moment=moment, InfNorm=inf_norm)
    t = param.dtype.type
    p_dtype = param.dtype
    m = _f(beta1, p_dtype) * moment + (t(1) - _f(beta1, p_dtype)) * grad
    # Eigen's |g|.cwiseMax(b2 u + eps): |g| < a ? a : |g| (a NaN on the right loses)
    a = _f(beta2, p_dtype) * inf_norm + _f(epsilon, p_dtype)
    absg = np.abs(grad)
    u = np.where(absg < a, a, absg)
    lr_t = _lr(learning_rate, param.dtype) / (t(1) - _s(beta1_pow, param.dtype, "Beta1Pow"))
    p = param - lr_t * (m / u)
    return p.astype(param.dtype), m.astype(param.dtype), u.astype(param.dtype), None


@register_kernel("adadelta", "CPU", dtypes=_F,
                 input_defs={"learning_rate": _ANY_DTYPE, "master_param": _ANY_DTYPE})
def adadelta(ctx, param: Tensor, grad: Tensor, avg_squared_grad: Tensor,
             avg_squared_update: Tensor, learning_rate: Tensor, master_param: Tensor | None,
             rho: float, epsilon: float, multi_precision: bool
             ) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """E[g^2] = rho E[g^2] + (1 - rho) g^2; d = -sqrt((E[dx^2] + eps) / (E[g^2] + eps)) g;
    E[dx^2] = rho E[dx^2] + (1 - rho) d^2; p += lr d."""
    t = param.dtype.type
    p_dtype = param.dtype
    rho_, eps = _f(rho, p_dtype), _f(epsilon, p_dtype)
    asg = rho_ * avg_squared_grad + (t(1) - rho_) * grad * grad
    update = -np.sqrt((avg_squared_update + eps) / (asg + eps)) * grad
    asu = rho_ * avg_squared_update + (t(1) - rho_) * update * update
    p = param + _lr(learning_rate, param.dtype) * update
    return p.astype(param.dtype), asg.astype(param.dtype), asu.astype(param.dtype), None


@register_kernel("rmsprop", "CPU", dtypes=_F,
                 input_defs={"learning_rate": _ANY_DTYPE, "master_param": _ANY_DTYPE})
def rmsprop(ctx, param: Tensor, mean_square: Tensor, grad: Tensor, moment: Tensor,
            learning_rate: Tensor, mean_grad: Tensor | None, master_param: Tensor | None,
            epsilon: float, decay: float, momentum: float, centered: bool,
            multi_precision: bool) -> tuple[Tensor, Tensor, Tensor, Tensor, Tensor]:
    """ms = decay ms + (1 - decay) g^2; (centered: mg likewise, ms - mg^2 below);
    mom = momentum mom + lr g / sqrt(ms + eps); p -= mom."""
    t = param.dtype.type
    p_dtype = param.dtype
    rho, eps = _f(decay, p_dtype), _f(epsilon, p_dtype)
    lr = _lr(learning_rate, param.dtype)
    ms = rho * mean_square + (t(1) - rho) * grad * grad
    mg = None
    if centered:
        if mean_grad is None:
            raise InvalidArgument("rmsprop: centered needs Input(MeanGrad).")
        mg = (rho * mean_grad + (t(1) - rho) * grad).astype(param.dtype)
        mom = _f(momentum, p_dtype) * moment + lr * grad / np.sqrt(ms - mg * mg + eps)
    else:
        mom = _f(momentum, p_dtype) * moment + lr * grad / np.sqrt(ms + eps)
    p = param - mom
    return (p.astype(param.dtype), mom.astype(param.dtype), ms.astype(param.dtype), mg, None)


@register_kernel("clip_by_norm", "CPU", dtypes=["float32"])
def clip_by_norm(ctx, x: Tensor, max_norm: float) -> Tensor:
    """x * s with Paddle's s = [n <= m] + (1 - [n <= m]) * m / (n + eps), n = ||x||, m =
    max_norm, eps = 1e-6 when n <= 1e-30 (so a NaN norm gives NaN everywhere, as in Paddle)."""
    t = x.dtype.type
    with np.errstate(all="ignore"):
        norm = np.sqrt(np.sum(x * x, dtype=x.dtype))
        m = _f(max_norm, x.dtype)
        inside = t(1) if norm <= m else t(0)
        eps = t(1e-6) if norm <= t(1e-30) else t(0)
        scale = inside + (t(1) - inside) * m / (norm + eps)
        return (x * scale).astype(x.dtype)


@register_kernel("check_finite_and_unscale", "CPU", dtypes=_F,
                 output_defs={1: {"dtype": DataType.BOOL}})
def check_finite_and_unscale(ctx, x: list[Tensor], scale: Tensor
                             ) -> tuple[list[Tensor], Tensor]:
    """Out[i] = X[i] * (1 / scale); FoundInfinite: any NaN or Inf in X.  As Paddle's CPU kernel
    checks tensor by tensor, the tensor holding the first NaN / Inf and every later one are
    multiplied by 0 instead (an Inf gives NaN), the earlier ones are unscaled."""
    t = scale.dtype.type
    inverse = t(1) / _s(scale, scale.dtype, "Scale")
    found = False
    outs = []
    for v in x:
        found = found or not bool(np.all(np.isfinite(v)))
        factor = v.dtype.type(0) if found else v.dtype.type(inverse)
        with np.errstate(invalid="ignore"):
            outs.append((v * factor).astype(v.dtype))
    return outs, np.array([found])


@register_kernel("update_loss_scaling", "CPU", dtypes=_F,
                 input_defs={"found_infinite": _ANY_DTYPE, "in_good_steps": _ANY_DTYPE,
                             "in_bad_steps": _ANY_DTYPE},
                 output_defs={2: {"dtype": DataType.INT32}, 3: {"dtype": DataType.INT32}})
def update_loss_scaling(ctx, x: list[Tensor], found_infinite: Tensor,
                        prev_loss_scaling: Tensor, in_good_steps: Tensor, in_bad_steps: Tensor,
                        incr_every_n_steps: int, decr_every_n_nan_or_inf: int,
                        incr_ratio: float, decr_ratio: float, stop_update: Scalar
                        ) -> tuple[list[Tensor], Tensor, Tensor, Tensor]:
    """Dynamic loss scaling: an overflow zeroes the gradients, counts a bad step and, after
    decr_every_n_nan_or_inf of them, scales down by decr_ratio (not below 1); otherwise good
    steps are counted and every incr_every_n_steps-th scales up by incr_ratio (when finite)."""
    found = bool(_s(found_infinite, np.bool_, "FoundInfinite"))
    scale = _s(prev_loss_scaling, prev_loss_scaling.dtype, "PrevLossScaling")
    t = prev_loss_scaling.dtype.type
    p_dtype = prev_loss_scaling.dtype
    good = _count(in_good_steps, "in_good_steps")
    bad = _count(in_bad_steps, "in_bad_steps")
    outs = [np.zeros_like(v) for v in x] if found else None
    if bool(stop_update.value if isinstance(stop_update, Scalar) else stop_update):
        return (outs, prev_loss_scaling.copy(), np.array([good], np.int32),
                np.array([bad], np.int32))
    if found:
        good, bad = 0, bad + 1
        if bad == decr_every_n_nan_or_inf:
            new = scale * _f(decr_ratio, p_dtype)
            scale = new if new >= t(1) else t(1)
            bad = 0
    else:
        good, bad = good + 1, 0
        if good == incr_every_n_steps:
            new = scale * _f(incr_ratio, p_dtype)
            if np.isfinite(new):
                scale = new
            good = 0
    return (outs, np.array([scale], prev_loss_scaling.dtype), np.array([good], np.int32),
            np.array([bad], np.int32))


_K_MAX_NUM_ACCUMULATES = 16384


@register_kernel("average_accumulates", "CPU", dtypes=_F,
                 input_defs={"in_num_accumulates": _ANY_DTYPE,
                             "in_old_num_accumulates": _ANY_DTYPE,
                             "in_num_updates": _ANY_DTYPE},
                 output_defs={3: {"dtype": DataType.INT64}, 4: {"dtype": DataType.INT64},
                              5: {"dtype": DataType.INT64}})
def average_accumulates(ctx, param: Tensor, in_sum_1: Tensor, in_sum_2: Tensor,
                        in_sum_3: Tensor, in_num_accumulates: Tensor,
                        in_old_num_accumulates: Tensor, in_num_updates: Tensor,
                        average_window: float, max_average_window: Int64,
                        min_average_window: Int64
                        ) -> tuple[Tensor, Tensor, Tensor, Tensor, Tensor, Tensor]:
    """ModelAverage's sums: sum_1 += param; every 16384 updates sum_1 moves into sum_2; when
    the window is full (min_average_window, and min(max_average_window, updates *
    average_window)) sum_3 = sum_1 + sum_2 and the window restarts."""
    num_acc = _count(in_num_accumulates, "in_num_accumulates") + 1
    old_num = _count(in_old_num_accumulates, "in_old_num_accumulates")
    num_upd = _count(in_num_updates, "in_num_updates") + 1
    s1 = in_sum_1 + param
    s2 = in_sum_2.copy()
    s3 = in_sum_3.copy()
    if num_upd % _K_MAX_NUM_ACCUMULATES == 0:
        s2 = s2 + s1
        s1 = np.zeros_like(s1)
    if num_acc >= min_average_window and num_acc >= min(max_average_window,
                                                        num_upd * average_window):
        s3 = s1 + s2
        s1 = np.zeros_like(s1)
        s2 = np.zeros_like(s2)
        old_num, num_acc = num_acc, 0
    i64 = np.int64
    return (s1.astype(param.dtype), s2.astype(param.dtype), s3.astype(param.dtype),
            np.array([num_acc], i64), np.array([old_num], i64), np.array([num_upd], i64))
