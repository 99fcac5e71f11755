"""Fluid kernels of helper `unary2`'s ops.

``isnan`` and ``isinf`` (v1) are deprecated names in Paddle 2.6.2 (their phi names belong to the
v2 ops): fluid OverflowKernels that reduce X to one bool of shape [1], true when any element is
NaN (inf); integer tensors never are.  ``soft_relu`` is a STRUCTURE kernel in Paddle 2.6.2 (a
fluid kernel re-registered in the phi table; its recorded signature is empty): a fluid kernel
here, over the phi family's formula.
"""

from __future__ import annotations

from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.kernels.activation import soft_relu

__all__: list[str] = []


@register_fluid_kernel("soft_relu", "CPU", ("float32", "float64"))
class SoftReluKernel(FluidKernel):
    """Out = log(1 + exp(clip(X, -threshold, threshold)))."""

    dtype_tied_inputs = ("X",)

    def compute(self, ctx) -> None:
        x = ctx.input_array("X")
        ctx.set_output("Out", soft_relu(ctx.xp, x, float(ctx.attr("threshold"))))


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
