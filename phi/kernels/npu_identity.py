"""The ``npu_identity`` kernel."""

from __future__ import annotations


from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import owned

__all__ = ["npu_identity"]


# Paddle 2.6.2 CPU registrations (corpus cpu_ops.json)
NPU_IDENTITY_DTYPES = ["bool", "float16", "float32", "float64", "int16", "int32", "int64", "int8",
                       "uint8"]


@register_kernel("npu_identity", "CPU", dtypes=NPU_IDENTITY_DTYPES)
def npu_identity(ctx, x: Tensor, format: int) -> Tensor:
    """A copy of x: off NPU the storage `format` is ignored (NPUIdentityKernel copies)."""
    return owned(ctx.xp, x)
