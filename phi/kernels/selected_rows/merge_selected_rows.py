"""The ``merge_selected_rows`` kernel."""

from __future__ import annotations


from phi.core.kernel import LoDTensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.selected_rows import make_selected_rows, merge_rows, need_sr


_F = ["float32", "float64"]


@register_kernel("merge_selected_rows", "CPU", dtypes=_F)
def merge_selected_rows(ctx, x: LoDTensor) -> LoDTensor:
    """Repeated rows summed, rows ascending (MergeAdd)."""
    x = need_sr("merge_selected_rows", "X", x)
    rows, value = merge_rows(x)
    return make_selected_rows(ctx, rows, x.height, value)
