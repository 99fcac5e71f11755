"""Host memory: glibc's malloc told to keep freed memory instead of handing it back to the OS.

A planned run frees its intermediate arrays as soon as their last reader has run (memory
optimize, as Paddle's inference pass does) and allocates them again on the next run.  With
glibc's defaults, large arrays come from mmap and the heap top is trimmed once more than
twice the mmap threshold lies free: every run then faults its activation pages in afresh
(MobileNetV2 at 224: ~2,400 minor faults and ~8 ms of system time per run, 13-18% of it).
Paddle's own allocator keeps what it once took; ``keep_freed_memory`` gets the same from glibc
by raising its trim threshold (256 MB) and fixing its mmap threshold at glibc's maximum (32 MB),
once per process.  Peak memory is unchanged (what is kept was in use at the peak); the
resident size after a run stays near the peak.  It is a process-wide setting: the executor
applies it when it builds its first plan while FLAGS_host_keep_freed_memory is on (the
default); with the flag off (FLAGS_host_keep_freed_memory=0 in the environment) glibc keeps
its defaults.  Elsewhere than glibc it does nothing.
"""

from __future__ import annotations

import ctypes
import os
import threading

__all__ = ["keep_freed_memory", "kept"]

_M_TRIM_THRESHOLD = -1  # glibc's malloc.h
_M_MMAP_THRESHOLD = -3
_TRIM = 256 << 20
_MMAP = 32 << 20  # DEFAULT_MMAP_THRESHOLD_MAX on 64-bit glibc

_lock = threading.Lock()
_state: dict[str, bool] = {}


def keep_freed_memory() -> bool:
    """Apply the setting once per process; True when glibc took it."""
    applied = _state.get("applied")
    if applied is not None:
        return applied
    with _lock:
        if "applied" not in _state:
            _state["applied"] = _apply()
    return _state["applied"]


def kept() -> bool:
    """Whether this process runs with the setting applied."""
    return bool(_state.get("applied"))


def _apply() -> bool:
    try:
        libc = os.confstr("CS_GNU_LIBC_VERSION") or ""
    except (AttributeError, ValueError, OSError):  # not a POSIX system / no such name
        return False
    if not libc.startswith("glibc"):
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    return bool(mallopt(_M_TRIM_THRESHOLD, _TRIM)) and bool(mallopt(_M_MMAP_THRESHOLD, _MMAP))
