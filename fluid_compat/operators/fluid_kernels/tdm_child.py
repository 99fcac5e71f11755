"""The fluid kernels of tdm_child."""

from __future__ import annotations

import numpy as np

from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from phi.core.errors import InvalidArgument

__all__: list[str] = []


@register_fluid_kernel("tdm_child", "CPU", ("float32", "float64", "int32", "int64"))
class TdmChildKernel(FluidKernel):
    """Children of each tree node from TreeInfo rows [item_id, layer_id, parent_id, children...]
    (zeros for node 0 and leaves) and whether each child is an item (LeafMask)."""

    def compute(self, ctx) -> None:
        x, tree = ctx.input_array("X"), ctx.input_array("TreeInfo")
        k = int(ctx.attr("child_nums"))
        dt = {2: np.int32, 3: np.int64}.get(int(ctx.attr("dtype")))
        if dt is None:
            raise InvalidArgument(f"tdm_child: attribute dtype must be int32 (2) or int64 (3), "
                                  f"got {ctx.attr('dtype')}.")
        ids = x.reshape(-1).astype(np.int64)
        if ids.size and (ids.min() < 0 or ids.max() >= tree.shape[0]):
            raise InvalidArgument(f"tdm_child: input id must be in [0, {tree.shape[0]}) (the "
                                  f"rows of TreeInfo), got {ids.tolist()}.")
        child = np.zeros((ids.size, k), dt)
        mask = np.zeros((ids.size, k), dt)
        for n, node in enumerate(ids.tolist()):
            if node == 0 or tree[node, 3] == 0:
                continue
            child[n] = tree[node, 3:3 + k].astype(dt)
            mask[n] = tree[child[n].astype(np.int64), 0] != 0
        shape = (*x.shape, k)
        ctx.set_output("Child", child.reshape(shape))
        ctx.set_output("LeafMask", mask.reshape(shape))

