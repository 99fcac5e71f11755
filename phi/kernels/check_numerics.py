"""The ``check_numerics`` kernel."""

from __future__ import annotations


import numpy as np

from phi.common.data_type import DataType
from phi.core.errors import PreconditionNotMet
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.common import on_device

__all__ = ["check_numerics"]


# -- check_numerics ----------------------------------------------------------------------------

_MT = {DataType.FLOAT64: np.float64, DataType.COMPLEX128: np.float64}


@register_kernel("check_numerics", ("CPU", "GPU"),
                 dtypes=["bfloat16", "complex128", "complex64", "float16", "float32", "float64"],
                 output_defs={0: {"dtype": DataType.INT64}, 1: {"dtype": DataType.FLOAT32}})
def check_numerics(ctx, tensor: Tensor, op_type: str, var_name: str, check_nan_inf_level: int,
                   stack_height_limit: int, output_dir: str) -> tuple[Tensor, Tensor]:
    """stats = [#NaN, #Inf, #zero], values = [max, min, mean] as float32; NaN / Inf raise
    PreconditionNotMet at level 0.  A complex tensor is only checked: NaN / Inf in either part
    raise at every level, and stats / values (unwritten by Paddle) are zeros."""
    dtype = ctx.data_type(tensor)
    mt = _MT.get(dtype, np.float32)  # Paddle's MPTypeTrait: double stays double, else float
    v = np.asarray(ctx.to_host(tensor))
    if v.dtype.kind == "c":
        if not np.all(np.isfinite(v)):
            raise PreconditionNotMet(
                f"There are NAN or INF in [device=cpu, op={op_type}, tensor={var_name}].")
        return (on_device(ctx, np.zeros(3, np.int64)), on_device(ctx, np.zeros(3, np.float32)))
    v = np.asarray(v, dtype=mt).reshape(-1)
    with np.errstate(all="ignore"):
        nan = int(np.count_nonzero(np.isnan(v)))
        inf = int(np.count_nonzero(np.isinf(v)))
        zero = int(np.count_nonzero(v == 0))
        # std::max / std::min: NaN never wins (an all -inf tensor's max is -inf, as in Paddle)
        finite = v[~np.isnan(v)]
        vmax = np.max(finite, initial=-np.inf)
        vmin = np.min(finite, initial=np.inf)
        # mean += v[i] / numel, one element after another in MT (Paddle-made cases
        # hb_check_numerics_long_*: numpy's pairwise sum differs in the last bits)
        mean = np.cumsum(v / mt(v.size), dtype=mt)[-1] if v.size else mt(0)
    if (nan or inf) and check_nan_inf_level == 0:
        raise PreconditionNotMet(
            f"There are NAN or INF (num_nan={nan}, num_inf={inf}, num_zero={zero}) in "
            f"[device=cpu, op={op_type}, tensor={var_name}, dtype={dtype.name.lower()}].")
    stats = np.array([nan, inf, zero], dtype=np.int64)
    values = np.array([vmax, vmin, mean], dtype=mt).astype(np.float32)
    return on_device(ctx, stats), on_device(ctx, values)
