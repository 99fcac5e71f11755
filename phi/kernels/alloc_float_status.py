"""The ``alloc_float_status`` kernel."""

from __future__ import annotations



from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.common import no_cpu_kernel

__all__ = ["alloc_float_status"]


@register_kernel("alloc_float_status", ("CPU",), dtypes=["float32"])
def alloc_float_status(ctx) -> Tensor:
    """Unimplemented on CPU, as in Paddle."""
    no_cpu_kernel("alloc_float_status")
