"""The optional compiled path (numba): a few loops numpy cannot express without extra passes.

numba is an optional extra (``pip install fluid-phi-bridge[numba]``).  When it is importable
and ``FLAGS_kernel_numba`` is on (the default), the kernels below replace parts of the numpy
path: depthwise convolution as direct loops (phi.kernels.conv), Winograd's input and output
transforms (phi.kernels.conv), and max/avg pooling over small windows (phi.kernels.pooling).
With the flag off, or without numba, every kernel runs its numpy path, which stays complete.

numba is imported on the first call that wants it (a program without convolutions never pays
for it); functions are compiled with ``cache=True``, so their compile cost (seconds) is paid
once per machine and later processes load them from numba's cache (numba's compiler lock
serialises a first compile that several threads ask for at once).  They hold no state, release
the GIL (``nogil``) and write only into arrays their caller allocated for that call: one
executor stays safe from many threads.  Arithmetic is float32 in float32 (as numpy's and
BLAS's loops are) with no fastmath: sums are in a fixed order, so the same inputs give the same
bits on every run; against the numpy path only the order of additions differs (within a few
1e-7 relative).
"""

from __future__ import annotations

import threading

from phi import flags

__all__ = ["FLAG", "kernels"]

FLAG = "FLAGS_kernel_numba"
flags.define_flag(FLAG, bool, True,
                  "Compiled (numba) loops for depthwise convolution, Winograd transforms and "
                  "pooling when numba is installed; off: the numpy path.")
FLAGS = flags.FLAGS

_LOCK = threading.Lock()
_STATE: list = []  # [module or None] once the import was tried


def kernels():
    """The compiled kernels module (``phi.kernels._jit_loops``) when the flag is on and numba
    imports, else None."""
    if not FLAGS[FLAG]:
        return None
    if _STATE:
        return _STATE[0]
    with _LOCK:
        if not _STATE:
            try:
                from phi.kernels import _jit_loops
            except Exception:  # numba absent or broken: the numpy path
                _STATE.append(None)
            else:
                _STATE.append(_jit_loops)
    return _STATE[0]
