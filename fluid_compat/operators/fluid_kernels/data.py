"""The fluid kernels of data."""

from __future__ import annotations

from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from phi.core.errors import Unimplemented

__all__: list[str] = []


DATA_DTYPES = ("bfloat16", "bool", "complex128", "complex64", "float16", "float32", "float64",
               "int16", "int32", "int64", "int8", "uint8")


@register_fluid_kernel("data", "CPU", DATA_DTYPES)
class DataKernel(FluidKernel):
    """`data` is an op of Paddle's new IR (pd_op.data, fed by the executor): in a legacy program
    Paddle 2.6.2 cannot run it (DataOp's GetExpectedKernelType crashes the process on the INT
    `place` attribute of its OpProto).  Here it raises a typed error instead."""

    def compute(self, ctx) -> None:
        raise Unimplemented("data: the `data` op of Paddle's new IR cannot run in a legacy "
                            "program (Paddle 2.6.2 crashes on it); feed the variable instead.")

