"""Per-thread scratch buffers for kernels' intermediates (``FLAGS_kernel_scratch``).

A kernel that builds a large intermediate on every call (convolution's im2col columns, the
Winograd transforms) pays for fresh memory: numpy hands arrays of more than a few hundred KB
to glibc's mmap, the first write to every 4 KB page faults, and the pages go back to the system
when the array dies, so each call faults them in again (on a ResNet at 224, thousands of faults
per run and a third of the time of a 56x56 convolution).  ``scratch(name, shape, dtype)`` gives
instead a view of a buffer kept by the calling thread under ``name``, grown when too small and
reused across calls: after the first call of a program its pages are resident.

Rules for users: a scratch array is only valid until the same thread asks for the same name
again, so it must never escape the kernel (results are fresh arrays); its contents are
garbage (zero it where it must be zero).  Buffers are per thread (``threading.local``): runs
of one program from several threads never share one.  With the flag off every call gets a
fresh ``empty`` array (the unoptimised path).

Off by default: measured here (numpy 2, glibc), a planned re-run of ResNet-18 or MobileNetV2
takes 0-1 page faults with or without it (after the first run glibc's adaptive mmap threshold
keeps freed blocks on the heap) and the times are equal within noise (A/B in one process,
one BLAS thread: 82.4 vs 83.7 ms and 27.2 vs 26.1 ms medians), while each thread would hold
its largest buffers (some MB).  Kept for allocators that do return memory.
"""

from __future__ import annotations

import threading

import numpy as np

from phi import flags

__all__ = ["FLAG", "release", "scratch"]

FLAG = "FLAGS_kernel_scratch"
FLAGS = flags.FLAGS

_LOCAL = threading.local()


def scratch(name: str, shape, dtype) -> np.ndarray:
    """An uninitialised C-contiguous numpy array of ``shape`` and ``dtype``, a view of the
    calling thread's buffer ``name`` (module doc); a fresh array when the flag is off."""
    dtype = np.dtype(dtype)
    if not FLAGS[FLAG]:
        return np.empty(shape, dtype=dtype)
    size = dtype.itemsize
    for n in shape:
        size *= n
    buffers = getattr(_LOCAL, "buffers", None)
    if buffers is None:
        buffers = _LOCAL.buffers = {}
    buf = buffers.get(name)
    if buf is None or buf.nbytes < size:
        buf = buffers[name] = np.empty(max(size, 64), dtype=np.uint8)
    return buf[:size].view(dtype).reshape(shape)


def release() -> None:
    """Drop the calling thread's buffers (tests; a thread's buffers go when the thread ends)."""
    _LOCAL.buffers = {}
