"""Helpers shared by the optimizer kernels (and selected_rows' sparse-gradient ones): scalar
inputs and attributes in the parameter's dtype, master weights, the momentum and Adam steps."""

from __future__ import annotations

import numpy as np

from phi.common.scalar import Scalar
from phi.core.errors import InvalidArgument

__all__ = ["adam_core", "adam_update", "counter", "finish_update", "float_attr", "learning_rate_in",
           "master_of", "momentum_step", "same_shape", "scalar_in", "skips_update"]


def scalar_in(x, dtype, what: str) -> np.generic:
    """A scalar (a 1-element tensor) in ``dtype``."""
    if isinstance(x, np.ndarray):
        if x.size != 1:
            raise InvalidArgument(f"Input({what}) must hold one value, got shape "
                              f"{list(x.shape)}.")
        x = x.reshape(-1)[0]
    return np.dtype(dtype).type(x)


def counter(x, what: str) -> int:
    """An integer counter held by a 1-element tensor."""
    return int(scalar_in(x, np.int64, what))


def float_attr(x, dtype) -> np.generic:
    """A float attribute (or a Scalar made from one) as Paddle's kernels see it:
    static_cast<T>(float), so a float64 kernel gets the float32 value widened."""
    if isinstance(x, Scalar):
        x = x.value
    if isinstance(x, np.ndarray):
        x = x.reshape(-1)[0]
    return np.dtype(dtype).type(np.float32(x))


def learning_rate_in(lr, dtype) -> np.generic:
    return scalar_in(lr, dtype, "LearningRate")


def same_shape(op: str, param, **others) -> None:
    for name, t in others.items():
        if t is not None and t.shape != param.shape:
            raise InvalidArgument(f"{op}: Param and {name} must have the same dims, got "
                                  f"{list(param.shape)} and {list(t.shape)}.")


def master_of(param, master, multi_precision: bool):
    """The tensor the rule updates: the float32 master copy when multi_precision holds one."""
    return master if (multi_precision and master is not None) else param


def finish_update(param, new, master, multi_precision: bool):
    """(ParamOut, MasterParamOut)."""
    if multi_precision and master is not None:
        return new.astype(param.dtype), new
    return new.astype(param.dtype), None


def momentum_step(p, g, v, lr, mu, use_nesterov, reg_method, reg_coeff, rescale):
    # Paddle 2.6.2's CPU momentum ignores rescale_grad (Paddle-made cases show it)
    mu = float_attr(mu, p.dtype)
    if reg_method == "l2_decay":
        g = g + p * float_attr(reg_coeff, p.dtype)
    v_out = v * mu + g
    p_out = p - (g + v_out * mu) * lr if use_nesterov else p - lr * v_out
    return p_out.astype(p.dtype), v_out.astype(p.dtype)


def skips_update(skip_update) -> bool:
    return skip_update is not None and bool(scalar_in(skip_update, np.bool_, "SkipUpdate"))


def adam_core(p, g, lr, m1, m2, b1pow, b2pow, beta1, beta2, eps, decay=None):
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


def adam_update(op, param, grad, learning_rate, m1, m2, b1pow, b2pow, master_param, skip_update,
          beta1, beta2, epsilon, multi_precision, use_global_beta_pow, decay=None):
    same_shape(op, param, Grad=grad, Moment1=m1, Moment2=m2)
    if skips_update(skip_update):
        return param.copy(), m1.copy(), m2.copy(), b1pow.copy(), b2pow.copy(), None
    p = master_of(param, master_param, multi_precision)
    t = p.dtype
    beta1, beta2, eps = float_attr(beta1, t), float_attr(beta2, t), float_attr(epsilon, t)
    lr = learning_rate_in(learning_rate, t)
    if decay is not None:
        decay = (float_attr(decay[0], t), float_attr(decay[1], t))
    p_out, m1_out, m2_out = adam_core(p, grad.astype(t), lr, m1, m2,
                                      scalar_in(b1pow, t, "Beta1Pow"),
                                      scalar_in(b2pow, t, "Beta2Pow"), beta1, beta2, eps, decay)
    if use_global_beta_pow:
        b1_out, b2_out = None, None
    else:
        b1_out = (b1pow * beta1.astype(b1pow.dtype)).astype(b1pow.dtype)
        b2_out = (b2pow * beta2.astype(b2pow.dtype)).astype(b2pow.dtype)
    param_out, master_out = finish_update(param, p_out, master_param, multi_precision)
    return param_out, m1_out, m2_out, b1_out, b2_out, master_out
