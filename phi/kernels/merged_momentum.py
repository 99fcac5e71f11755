"""The ``merged_momentum`` kernel."""

from __future__ import annotations


from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.optimizers import learning_rate_in, momentum_step

__all__ = ["merged_momentum"]


_F = ["float32", "float64"]
_ANY_DTYPE = {"dtype": DataType.ALL_DTYPE}


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
        p_out, v_out = momentum_step(param[i], grad[i].astype(param[i].dtype), velocity[i],
                                     learning_rate_in(lr, param[i].dtype), mu, use_nesterov,
                                     method, coeff, rescale_grad)
        outs_p.append(p_out)
        outs_v.append(v_out)
    return outs_p, outs_v, None
