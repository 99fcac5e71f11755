"""The last phi optimizer kernels of issue 13: dgc_momentum (Paddle's
impl/dgc_momentum_kernel_impl.h) and merged_adam (cpu/adam_kernel.cc MergedAdamKernel), built
on the update rules of ``phi.kernels.optimizers``.

Both run in place in Paddle's programs (ParamOut is Param, Grad_out is Grad, ...); an output
the kernel leaves unwritten is returned as None, so the variable keeps its value.
"""

from __future__ import annotations

import numpy as np

from phi.common.scalar import Scalar
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.optimizers import _adam_core, _f, _lr, _momentum_step, _s, _same_shape

__all__ = ["dgc_momentum", "merged_adam"]


@register_kernel("dgc_momentum", "CPU", dtypes=["float32"])
def dgc_momentum(ctx, param: Tensor, grad: Tensor, velocity: Tensor, learning_rate: Tensor,
                 master_param: Tensor | None, current_step: Tensor, nranks: Tensor, mu: float,
                 use_nesterov: bool, regularization_method: str, regularization_coeff: float,
                 multi_precision: bool, rescale_grad: float, rampup_begin_step: float
                 ) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """Grad_out = g / nranks; before rampup_begin_step a momentum step, from it on an sgd step
    (velocity kept); nothing at all when rampup_begin_step < 0."""
    if int(rampup_begin_step) < 0:
        return None, None, None, None
    n = int(_s(nranks, np.float32, "nranks"))
    if n <= 1:
        raise InvalidArgument(f"dgc_momentum: DGC is not useful when num_trainers <= 1, but now "
                              f"nranks={n}.")
    _same_shape("dgc_momentum", param, Grad=grad, Velocity=velocity)
    grad_out = (param.dtype.type(1.0 / n) * grad).astype(param.dtype)
    # Paddle's programs (and its kernel, which only runs so) hold Grad_out in Grad's variable:
    # the momentum / sgd step below reads the gradient already divided by nranks
    lr = _lr(learning_rate, param.dtype)
    if int(_s(current_step, np.float32, "current_step")) < int(rampup_begin_step):
        if multi_precision:  # Paddle hands the momentum kernel no master copy
            raise InvalidArgument("dgc_momentum: The Input(MasterParam) and "
                                  "Output(MasterParamOut) should not be null when the attr "
                                  "`multi_precision` is true")
        p_out, v_out = _momentum_step(param, grad_out, velocity, lr, mu, use_nesterov,
                                      regularization_method, regularization_coeff, rescale_grad)
        return p_out, v_out, None, grad_out
    # the sgd step: Paddle's CPU SGD kernel ignores the master copy
    return (param - lr * grad_out).astype(param.dtype), None, None, grad_out


def _scalar(x, dtype) -> np.generic:
    return _f(x.value if isinstance(x, Scalar) else x, dtype)


@register_kernel("merged_adam", "CPU", dtypes=["float32", "float64"])
def merged_adam(ctx, param: list[Tensor], grad: list[Tensor], learning_rate: list[Tensor],
                moment1: list[Tensor], moment2: list[Tensor], beta1_pow: list[Tensor],
                beta2_pow: list[Tensor], master_param: list[Tensor], beta1: Scalar,
                beta2: Scalar, epsilon: Scalar, multi_precision: bool,
                use_global_beta_pow: bool
                ) -> tuple[list[Tensor], list[Tensor], list[Tensor], list[Tensor], list[Tensor],
                           list[Tensor]]:
    """``adam`` on every parameter with its own learning rate and beta powers (Paddle's CPU
    AdamFunctor, the same arithmetic as adam's); the beta powers advance unless
    use_global_beta_pow; the CPU kernel ignores master copies."""
    n = len(param)
    for slot, ts in (("Grad", grad), ("LearningRate", learning_rate), ("Moment1", moment1),
                     ("Moment2", moment2), ("Beta1Pow", beta1_pow), ("Beta2Pow", beta2_pow)):
        if len(ts) != n:
            raise InvalidArgument(f"merged_adam: The size of Input({slot}) must be equal to "
                                  f"Input(Param), but got the size of Input({slot}) is "
                                  f"{len(ts)}, the size of Input(Param) is {n}.")
    outs = ([], [], [], [], [])
    for i, p in enumerate(param):
        _same_shape("merged_adam", p, Grad=grad[i], Moment1=moment1[i], Moment2=moment2[i])
        t = p.dtype
        b1, b2, eps = _scalar(beta1, t), _scalar(beta2, t), _scalar(epsilon, t)
        b1pow, b2pow = _s(beta1_pow[i], t, "Beta1Pow"), _s(beta2_pow[i], t, "Beta2Pow")
        p_out, m1, m2 = _adam_core(p, grad[i].astype(t), _lr(learning_rate[i], t), moment1[i],
                                   moment2[i], b1pow, b2pow, b1, b2, eps)
        for k, v in enumerate((p_out, m1, m2)):
            outs[k].append(v)
        if not use_global_beta_pow:
            outs[3].append(np.full(beta1_pow[i].shape, b1 * b1pow, t))
            outs[4].append(np.full(beta2_pow[i].shape, b2 * b2pow, t))
    if use_global_beta_pow:
        return outs[0], outs[1], outs[2], None, None, None
    return (*outs, None)
