"""The ``multiplex`` and ``multiplex_grad`` kernels."""

from __future__ import annotations



from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import as_array
from phi.kernels.funcs.backward import grad_kernel

__all__ = ["multiplex"]


_FIC = ["float32", "float64", "int32", "int64", "complex64", "complex128"]


# Ids is read as int32 whatever the kernel dtype (Paddle casts no index input)
@register_kernel("multiplex", ("CPU", "GPU"), dtypes=_FIC,
                 input_defs={"ids": {"dtype": DataType.ALL_DTYPE}})
def multiplex(ctx, ins: list[Tensor], ids: Tensor) -> Tensor:
    """Row i of the output is row i of candidate ids[i]."""
    xp = ctx.xp
    if ctx.data_type(ids) is not DataType.INT32:
        raise InvalidArgument(f"multiplex: Input(Ids) must hold int32 (Paddle reads it as "
                              f"int32), but it holds {ctx.data_type(ids)}.")
    idx = xp.reshape(ids, (-1,))
    n = len(ins)
    if idx.size and (int(idx.min()) < 0 or int(idx.max()) >= n):
        raise InvalidArgument(f"multiplex: Input(Ids) must be in [0, {n}), but received "
                              f"values in [{int(idx.min())}, {int(idx.max())}].")
    stacked = xp.stack(ins)
    rows = xp.arange(ins[0].shape[0])[: idx.size]
    return as_array(xp, stacked[idx.astype(xp.int64), rows])


@grad_kernel("multiplex_grad", ("CPU", "GPU"),
                 dtypes=["float32", "float64", "int32", "int64", "complex64", "complex128"],
                 input_defs={"ids": {"dtype": DataType.ALL_DTYPE}})
def multiplex_grad(ctx, ids: Tensor, out_grad: Tensor) -> list[Tensor]:
    """Nothing here: X@GRAD[i] (out_grad's rows where Ids is i) needs the op's count of X,
    which Paddle's kernel reads from its output vector; the multiplex_grad op writes them
    (fluid_compat/operators/fluid_kernels/multiplex.py)."""
    return None
