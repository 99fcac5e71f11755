"""The ``gather_tree`` kernel."""

from __future__ import annotations

import numpy as np

from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.indexing import to_device, to_host

__all__ = ["gather_tree"]


INTS = ["int32", "int64"]


@register_kernel("gather_tree", ("CPU", "GPU"), dtypes=INTS)
def gather_tree(ctx, ids: Tensor, parents: Tensor) -> Tensor:
    """Full beam-search paths: walk back from the last step through ``parents`` ([max_time,
    batch, beam])."""
    h_ids, h_par = to_host(ctx, ids), to_host(ctx, parents)
    if h_ids.ndim != 3 or h_ids.shape != h_par.shape:
        raise InvalidArgument(f"gather_tree: Ids {list(h_ids.shape)} and Parents "
                              f"{list(h_par.shape)} must be 3-D tensors of the same shape.")
    steps, batch, beam = h_ids.shape
    out = np.empty_like(h_ids)
    if steps == 0:
        return to_device(ctx, out)
    b = np.arange(batch).reshape(-1, 1)
    out[steps - 1] = h_ids[steps - 1]
    parent = h_par[steps - 1].astype(np.int64)
    for t in range(steps - 2, -1, -1):
        if parent.size and (parent.min() < 0 or parent.max() >= beam):
            bad = int(parent[(parent < 0) | (parent >= beam)][0])
            raise InvalidArgument(f"The parents must be less than beam size ({beam}) and >= 0, "
                                  f"but received {bad}.")
        out[t] = h_ids[t][b, parent]
        parent = h_par[t][b, parent].astype(np.int64)
    return to_device(ctx, out)
