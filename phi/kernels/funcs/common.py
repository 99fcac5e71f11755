"""Small helpers shared by kernels of several families: a host array on the kernel's device,
the CPU-less kernel's error, shapes from IntArray attributes."""

from __future__ import annotations


import numpy as np

from phi.common.int_array import IntArray
from phi.core.errors import InvalidArgument, Unimplemented

__all__ = ["no_cpu_kernel", "on_device", "shape_dims", "shape_numel"]


def on_device(ctx, array):
    return array if ctx.xp is np else ctx.from_host(array)


# -- float status: Paddle 2.6.2 has NPU kernels only; its CPU kernels throw ---------------------

def no_cpu_kernel(name: str):
    raise Unimplemented(f"Operator {name} is not supported on CPU.")


def shape_numel(shape) -> int:
    return int(np.prod(shape, dtype=np.int64))


def shape_dims(shape: IntArray | list) -> tuple[int, ...]:
    dims = tuple(int(d) for d in (shape.data if isinstance(shape, IntArray) else shape))
    if any(d < 0 for d in dims):
        raise InvalidArgument(f"The shape of a random tensor must not be negative, got "
                              f"{list(dims)}.")
    return dims
