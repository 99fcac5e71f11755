"""The ``shuffle_batch`` and ``shuffle_batch_grad`` kernels."""

from __future__ import annotations


import numpy as np

from phi.common.data_type import DataType
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel

__all__ = ["shuffle_batch"]


_ANY = {"dtype": DataType.ALL_DTYPE}


# ---- shuffle_batch -----------------------------------------------------------------------------

_MINSTD_M = 2147483647  # std::minstd_rand0 (libstdc++'s default_random_engine)


@register_kernel("shuffle_batch", "CPU", dtypes=["float32", "float64", "int32", "int64"],
                 input_defs={"seed": _ANY},
                 output_defs={1: {"dtype": DataType.INT64}, 2: {"dtype": DataType.INT64}})
def shuffle_batch(ctx, x: Tensor, seed: Tensor, startup_seed: int
                  ) -> tuple[Tensor, Tensor, Tensor]:
    """Rows (all dims but the last) in a random order.  Paddle draws the permutation from a
    std::random_device-seeded engine, so no run repeats it: here fresh entropy too.  SeedOut is
    the first draw of default_random_engine seeded with Seed (startup_seed without one)."""
    s = int(np.asarray(seed).reshape(-1)[0]) if seed is not None and np.size(seed) else \
        int(startup_seed)
    state = s % _MINSTD_M or 1  # linear_congruential_engine::seed
    seed_out = np.array([state * 16807 % _MINSTD_M], np.int64)
    rows = int(np.prod(x.shape[:-1])) if x.ndim > 1 else 1
    idx = np.random.default_rng().permutation(rows).astype(np.int64)
    out = x.copy()
    if x.size:  # Paddle copies row i of X to row ShuffleIdx[i] of Out
        out.reshape(rows, -1)[idx] = x.reshape(rows, -1)
    return out, idx, seed_out


# -- shuffle_batch, graph message passing ------------------------------------------------------

_SEND_DTYPES = ["float32", "float64", "int32", "int64"]


@register_kernel("shuffle_batch_grad", "CPU", dtypes=_SEND_DTYPES,
                 input_defs={"shuffleidx": _ANY})
def shuffle_batch_grad(ctx, shuffleidx: Tensor, out_grad: Tensor, startup_seed: int) -> Tensor:
    """Row i of X@GRAD is row ShuffleIdx[i] of Out@GRAD (X's leading dims flattened), as
    Paddle's grad kernel copies it."""
    g = np.asarray(out_grad)
    rows = g.reshape(-1, g.shape[-1]) if g.ndim else g.reshape(1, 1)
    return rows[np.asarray(shuffleidx).reshape(-1).astype(np.int64)].reshape(g.shape)
