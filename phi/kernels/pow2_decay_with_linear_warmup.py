"""The ``pow2_decay_with_linear_warmup`` kernel."""

from __future__ import annotations


import numpy as np

from phi.common.data_type import DataType
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.common import on_device

__all__ = ["pow2_decay_with_linear_warmup"]


# Paddle 2.6.2 CPU registrations (corpus cpu_ops.json)
F = ["float32", "float64"]


# -- pow2_decay_with_linear_warmup --------------------------------------------------------------

@register_kernel("pow2_decay_with_linear_warmup", ("CPU", "GPU"), dtypes=F,
                 input_defs={"step": {"dtype": DataType.INT64}},
                 output_defs={1: {"dtype": DataType.INT64}})
def pow2_decay_with_linear_warmup(ctx, lr: Tensor, step: Tensor, warmup_steps: int,
                                  total_steps: int, base_lr: float, end_lr: float
                                  ) -> tuple[Tensor, Tensor]:
    """step += 1; lr = base_lr * step / warmup while step <= warmup, then
    (base_lr - end_lr) * (1 - (step - warmup) / (total - warmup))^2 + end_lr while
    step < total, else end_lr (in double, then cast to lr's dtype)."""
    now = int(np.asarray(ctx.to_host(step)).reshape(-1)[0]) + 1
    base, end = float(np.float32(base_lr)), float(np.float32(end_lr))
    if now <= warmup_steps:
        new_lr = now / warmup_steps * base
    elif now < total_steps:
        factor = 1 - (now - warmup_steps) / (total_steps - warmup_steps)
        new_lr = (base - end) * (factor * factor) + end
    else:
        new_lr = end
    lr_out = np.full(tuple(lr.shape), new_lr, dtype=lr.dtype)
    step_out = np.full(tuple(step.shape), now, dtype=np.int64)
    return on_device(ctx, lr_out), on_device(ctx, step_out)
