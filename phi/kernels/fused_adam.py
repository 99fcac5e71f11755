"""The ``fused_adam`` kernel."""

from __future__ import annotations

import numpy as np

from phi.common.data_type import DataType
from phi.common.scalar import Scalar
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import quiet


FLOATS = ["float32", "float64"]


def _adam_one(p, g, m1, m2, lr, b1p, b2p, beta1, beta2, eps, coeff):
    """One tensor of Adam (coeff None) or AdamW as Paddle's CPU jit kernels compute it."""
    t = p.dtype.type
    one = t(1)
    lr_t = lr * (np.sqrt(one - b2p) / (one - b1p))
    eps_t = eps * np.sqrt(one - b2p)
    base = p if coeff is None else p - lr * t(1.0) * coeff * p
    m1o = beta1 * m1 + (one - beta1) * g
    m2o = beta2 * m2 + (one - beta2) * g * g
    return base + (-lr_t) * (m1o / (np.sqrt(m2o) + eps_t)), m1o, m2o


@register_kernel("fused_adam", ("CPU",), dtypes=FLOATS,
                 input_defs={"skip_update": {"dtype": DataType.ALL_DTYPE}})
def fused_adam(ctx, params: list[Tensor], grads: list[Tensor], learning_rate: Tensor,
               moments1: list[Tensor], moments2: list[Tensor], beta1_pows: list[Tensor],
               beta2_pows: list[Tensor], master_params: list[Tensor],
               skip_update: Tensor | None, beta1: Scalar, beta2: Scalar, epsilon: Scalar,
               chunk_size: int, weight_decay: float, use_adamw: bool, multi_precision: bool,
               use_global_beta_pow: bool
               ) -> tuple[list[Tensor], list[Tensor], list[Tensor], list[Tensor], list[Tensor],
                          list[Tensor]]:
    """Adam (or AdamW with weight_decay) on every parameter, Paddle's Adam(w)DenseKernel per
    tensor: (ParamsOut, Moments1Out, Moments2Out, Beta1PowsOut, Beta2PowsOut, [])."""
    n = len(params)
    for name, v in (("Grads", grads), ("Moments1", moments1), ("Moments2", moments2),
                    ("Beta1Pows", beta1_pows), ("Beta2Pows", beta2_pows)):
        if len(v) != n:
            raise InvalidArgument(f"fused_adam: {name} holds {len(v)} tensors, Params {n}.")
    host = [np.asarray(ctx.to_host(a)) for a in (*params, *grads, *moments1, *moments2,
                                                 *beta1_pows, *beta2_pows)]
    ps, gs, m1s, m2s, b1s, b2s = (host[i * n:(i + 1) * n] for i in range(6))
    skip = skip_update is not None and bool(np.asarray(ctx.to_host(skip_update)).reshape(-1)[0])
    outs: tuple[list, ...] = ([], [], [], [], [])
    lr_host = np.asarray(ctx.to_host(learning_rate)).reshape(-1)
    with quiet(np):
        for p, g, m1, m2, b1p, b2p in zip(ps, gs, m1s, m2s, b1s, b2s, strict=True):
            t = p.dtype.type
            b1, b2, eps = t(float(beta1)), t(float(beta2)), t(float(epsilon))
            if skip:
                res = (p.copy(), m1.copy(), m2.copy())
                pows = (b1p.copy(), b2p.copy())
            else:
                res = _adam_one(p, g.astype(p.dtype), m1, m2, t(lr_host[0]), t(b1p.reshape(-1)[0]),
                                t(b2p.reshape(-1)[0]), b1, b2, eps,
                                t(weight_decay) if use_adamw else None)
                pows = (b1p * b1, b2p * b2)
            for out, v in zip(outs, (*res, *pows), strict=True):
                out.append(ctx.from_host(np.asarray(v, dtype=p.dtype)))
    if use_global_beta_pow:  # updated elsewhere: Paddle leaves them as they are (in place)
        outs[3][:] = [ctx.from_host(v.copy()) for v in b1s]
        outs[4][:] = [ctx.from_host(v.copy()) for v in b2s]
    # master weights exist only for float16 / bfloat16 parameters (not registered on CPU)
    return (*outs, [xp_copy(ctx, m) for m in master_params])


def xp_copy(ctx, a):
    return ctx.xp.asarray(a, copy=True)
