"""The CPU device context: numpy."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor, wait

import numpy as np

from phi.common.data_type import DataType
from phi.core.context import DeviceContext
from phi.flags import FLAGS

__all__ = ["CPUContext"]

_POOL: ThreadPoolExecutor | None = None
_POOL_SIZE = 0
_POOL_LOCK = threading.Lock()


def _pool(threads: int) -> ThreadPoolExecutor:
    """The process's kernel worker threads (``threads - 1`` of them: the caller works too)."""
    global _POOL, _POOL_SIZE
    with _POOL_LOCK:
        if _POOL is None or threads != _POOL_SIZE:
            if _POOL is not None:
                _POOL.shutdown(wait=False)
            _POOL = ThreadPoolExecutor(threads - 1, thread_name_prefix="phi-cpu")
            _POOL_SIZE = threads
        return _POOL


class CPUContext(DeviceContext):
    xp = np
    device = "cpu"

    def empty(self, shape, dtype: DataType) -> np.ndarray:
        return np.empty(tuple(shape), dtype=dtype.to_numpy())

    def full(self, shape, value, dtype: DataType) -> np.ndarray:
        return np.full(tuple(shape), value, dtype=dtype.to_numpy())

    def asarray(self, obj, dtype: DataType | None = None) -> np.ndarray:
        return np.asarray(obj, dtype=None if dtype is None else dtype.to_numpy())

    def astype(self, array, dtype: DataType) -> np.ndarray:
        return array.astype(dtype.to_numpy())

    def to_host(self, array) -> np.ndarray:
        return np.asarray(array)

    def from_host(self, array: np.ndarray) -> np.ndarray:
        return np.array(array, copy=True)

    def parallel_for(self, count: int, work, min_part: int = 1) -> None:
        """Split ``range(count)`` into up to FLAGS_cpu_kernel_threads slices of at least
        ``min_part``; the calling thread runs the first, workers the others.  A call made from
        a worker runs whole (no nested splitting)."""
        threads = min(FLAGS["FLAGS_cpu_kernel_threads"], count // max(1, min_part))
        if threads <= 1 or threading.current_thread().name.startswith("phi-cpu"):
            if count > 0:
                work(0, count)
            return
        bounds = [count * k // threads for k in range(threads + 1)]
        pool = _pool(FLAGS["FLAGS_cpu_kernel_threads"])
        futures = [pool.submit(work, bounds[k], bounds[k + 1]) for k in range(1, threads)]
        try:
            work(bounds[0], bounds[1])
        finally:
            wait(futures)  # never leave a worker writing after an error here
        for f in futures:
            f.result()
