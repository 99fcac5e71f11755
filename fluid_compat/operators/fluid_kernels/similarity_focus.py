"""The fluid kernels of similarity_focus."""

from __future__ import annotations

import numpy as np

from fluid_compat.operators.fluid_kernels.funcs import host_in, set_out
from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from phi.core.errors import InvalidArgument
from phi.kernels.funcs import stl_sort

__all__: list[str] = []


@register_fluid_kernel("similarity_focus", "CPU", ("float32", "float64"))
class SimilarityFocusKernel(FluidKernel):
    """A 0/1 mask: per batch and per index of ``indexes`` along ``axis`` (1, 2 or 3), the
    largest values of that 2-D slice are taken greedily (std::sort descending) so that no two
    share a row or a column, and their rows / columns across ``axis`` are set to 1."""

    dtype_tied_inputs = ("X",)

    def compute(self, ctx) -> None:
        x = host_in(ctx, "X")
        axis, indexes = int(ctx.attr("axis")), [int(i) for i in ctx.attr("indexes")]
        if x.ndim != 4:
            raise InvalidArgument(f"similarity_focus: Input(X)'s rank should be 4, but "
                                  f"received {x.ndim}.")
        if not indexes:
            raise InvalidArgument("The size of Attr(indexes) must be greater than 0, but "
                                  "received 0.")
        if not 1 <= axis <= 3:
            raise InvalidArgument(f"The value of Attr(axis) must be 1 or 2 or 3, but received "
                                  f"{axis}.")
        for i, v in enumerate(indexes):
            if not v < x.shape[axis]:
                raise InvalidArgument(f"Each value of Attr(indexes) must be less than "
                                      f"X.dim[axis], but indexes[{i}] received {v}.")
        out = np.zeros_like(x)
        moved = np.moveaxis(x, axis, 1)  # [batch, axis, a, b]: the other dims keep their order
        mask = np.moveaxis(out, axis, 1)
        a, b = moved.shape[2], moved.shape[3]
        for n in range(x.shape[0]):
            for index in indexes:
                taken_a, taken_b, tags = np.zeros(a, bool), np.zeros(b, bool), 0
                for pos in self._order(moved[n, index].reshape(-1)):
                    ia, ib = divmod(int(pos), b)
                    if taken_a[ia] or taken_b[ib]:
                        continue
                    tags += 1
                    taken_a[ia] = taken_b[ib] = True
                    mask[n, :, ia, ib] = 1
                    if tags == min(a, b):
                        break
        set_out(ctx, "Out", out)

    @staticmethod
    def _order(plane):
        """Positions in std::sort's descending order (ties as libstdc++ leaves them)."""
        if np.unique(plane).size == plane.size:
            return np.argsort(-plane, kind="stable")
        pairs = list(zip(plane.tolist(), range(plane.size), strict=True))
        stl_sort.sort(pairs, 0, len(pairs), lambda p, q: p[0] > q[0])
        return [i for _, i in pairs]

