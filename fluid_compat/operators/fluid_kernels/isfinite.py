"""The fluid kernels of isinf, isnan."""

from __future__ import annotations

from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument

__all__: list[str] = []


class _OverflowKernel(FluidKernel):
    """Out = [any(test(X))] (bool, shape [1])."""

    dtype_tied_inputs = ("X",)
    test = ""

    def compute(self, ctx) -> None:
        xp = ctx.xp
        x = ctx.input_array("X")
        if x.size == 0:  # Paddle reduces the test with a reduce kernel, which refuses
            raise InvalidArgument(f"{ctx.type}: Tensor need be reduced must not empty (Input(X) "
                                  f"has shape {list(x.shape)}).")
        found = x.dtype.kind in "fc" and bool(xp.any(getattr(xp, self.test)(x)))
        ctx.set_output("Out", xp.full((1,), found, dtype=xp.bool_), DataType.BOOL)


_OVERFLOW_DTYPES = ("int32", "int64", "float32", "float64")


@register_fluid_kernel("isnan", "CPU", _OVERFLOW_DTYPES)
class IsNanV1Kernel(_OverflowKernel):
    """Out = [X holds a NaN]."""

    test = "isnan"


@register_fluid_kernel("isinf", "CPU", _OVERFLOW_DTYPES)
class IsInfV1Kernel(_OverflowKernel):
    """Out = [X holds +-inf]."""

    test = "isinf"

