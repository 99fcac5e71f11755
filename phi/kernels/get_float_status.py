"""The ``get_float_status`` kernel."""

from __future__ import annotations



from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.common import no_cpu_kernel

__all__ = ["get_float_status"]


@register_kernel("get_float_status", ("CPU",), dtypes=["float32"])
def get_float_status(ctx, float_status: Tensor) -> Tensor:
    """Unimplemented on CPU, as in Paddle."""
    no_cpu_kernel("get_float_status")
