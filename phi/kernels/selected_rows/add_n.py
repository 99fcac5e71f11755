"""The ``add_n_sr`` kernel."""

from __future__ import annotations

import numpy as np

from phi.core.errors import InvalidArgument
from phi.core.kernel import LoDTensor
from phi.core.registry import register_kernel
from phi.core.selected_rows import SelectedRows
from phi.kernels.funcs.selected_rows import make_selected_rows, merge_rows, need_sr


@register_kernel("add_n_sr", "CPU", dtypes=["bfloat16", "float32", "float64", "int32", "int64"])
def add_n_sr(ctx, x: list[LoDTensor]) -> LoDTensor:
    """The SelectedRows inputs merged into one (MergeAdd over all of them)."""
    srs = [need_sr("add_n_sr", f"X[{i}]", t) for i, t in enumerate(x)]
    heights = {t.height for t in srs}
    if len(heights) > 1:
        raise InvalidArgument(f"add_n_sr: the SelectedRows inputs have different heights "
                              f"{sorted(heights)}.")
    values = [t.data for t in srs if t.rows]
    rows = [r for t in srs for r in t.rows]
    if not values:
        return make_selected_rows(ctx, (), srs[0].height, srs[0].data[:0])
    merged_rows, value = merge_rows(SelectedRows(rows, srs[0].height,
                                                 np.concatenate(values, axis=0)))
    return make_selected_rows(ctx, merged_rows, srs[0].height, value)
