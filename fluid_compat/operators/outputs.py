"""How a phi kernel's results become the values of output Variables: ``dense_output`` (one
result array as its DenseTensor) and ``store_outputs`` (a kernel's results stored in the
Variables planned for them).  The dispatch path (``dispatch.compute``), the runners' fast path,
the compiled segments and the fused steps all wrap results here."""

from __future__ import annotations

import numpy as np
from phi.core.kernel import ArgKind
from phi.core.tensor import DenseTensor

__all__ = ["dense_output", "store_outputs"]


def dense_output(a, dtype, place, layout, on_cpu: bool, lod: tuple = ()) -> DenseTensor:
    """The DenseTensor of one kernel result ``a`` on ``place``: on the CPU (``on_cpu``) a
    result that is not an ndarray (a numpy scalar, a 0-d result) becomes one (``np.asarray``,
    no copy of an array).  ``dtype`` None: the array's own (``DataType.from_numpy``, what a
    device context's ``data_type`` says)."""
    if on_cpu and type(a) is not np.ndarray:
        a = np.asarray(a)
    return DenseTensor(a, dtype, place, layout, lod)


def store_outputs(outputs, result, place, on_cpu: bool) -> None:
    """Store a kernel's ``result`` in the Variables of ``outputs`` — per kernel output (kind,
    target Variable or list of them or None, dtype, layout), as a runner plans them.  A result
    of None (or a None item of a vector) leaves its Variable as it is (the kernel's nop)."""
    if len(outputs) == 1:
        result = (result,)
    for (kind, targets, dtype, layout), r in zip(outputs, result, strict=False):
        if targets is None or r is None:
            continue
        if kind is ArgKind.VECTOR:
            for var, a in zip(targets, r, strict=False):
                if a is not None:
                    var.value = dense_output(a, dtype, place, layout, on_cpu)
        else:
            targets.value = dense_output(r, dtype, place, layout, on_cpu)
