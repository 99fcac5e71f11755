"""The `get_places` operator (paddle/fluid/operators/controlflow/get_places_op.cc, Paddle 2.6.2):
Out (a PLACE_LIST variable) = a list of places for a parallel executor.

``device_type`` AUTO takes the kind of the place the op runs on (a GPU place: CUDA, else CPU);
CPU / CUDA choose it.  ``device_count`` 0 means every device of that kind: the number of CUDA
devices, or for CPU the host's hardware threads (``std::thread::hardware_concurrency``, here
``os.cpu_count()``).  The list holds ``device_count`` CPUPlace()s, or GPUPlace(0 .. n-1).  As in
Paddle: a count of 0 devices fails ("Cannot indicate GPU device count"), and more CUDA places
than there are devices fail ("Only 0 CUDA devices found, cannot set to 1": Paddle's CPU wheel
sees no CUDA device; the bridge counts those cupy sees).
"""

from __future__ import annotations

import os

from fluid_compat.framework.op_registry import op_hooks
from fluid_compat.operators.base import OperatorBase
from phi.common.place import CPUPlace, GPUPlace
from phi.core.errors import InvalidArgument, NotFound

__all__ = ["GetPlacesOp", "PlaceList", "cuda_device_count"]


DEVICE_TYPES = ("CUDA", "CPU", "AUTO")


class PlaceList(list):
    """The value of a PLACE_LIST variable (Paddle's platform::PlaceList): a list of Places."""

    def __repr__(self) -> str:
        return f"PlaceList({list.__repr__(self)})"


def cuda_device_count() -> int:
    """CUDA devices the bridge can use (cupy's count; 0 without cupy or a driver)."""
    try:
        import cupy  # optional: only the GPU extra installs it
    except ImportError:
        return 0
    try:
        return int(cupy.cuda.runtime.getDeviceCount())
    except Exception:  # cupy's CUDARuntimeError when there is no driver
        return 0


class GetPlacesOp(OperatorBase):
    """Out = PlaceList of ``device_count`` places of ``device_type``."""

    def __init__(self, *args) -> None:
        super().__init__(*args)
        kind = self.attrs.get("device_type", "AUTO")
        if kind not in DEVICE_TYPES:
            # Paddle's attribute checker (InEnum) refuses the op when it is created
            raise InvalidArgument(f"Operator `get_places`: attribute device_type must be one "
                                  f"of {', '.join(DEVICE_TYPES)}, got {kind!r}.")

    def run_impl(self, scope, place) -> None:
        kind = self.attrs.get("device_type", "AUTO")
        is_gpu = place.device_type == "gpu" if kind == "AUTO" else kind == "CUDA"
        count = int(self.attrs.get("device_count", 0))
        if count < 0:
            raise InvalidArgument(f"get_places: attribute device_count must be >= 0, got "
                                  f"{count}.")
        if count == 0:
            count = cuda_device_count() if is_gpu else (os.cpu_count() or 0)
        if count == 0:
            raise InvalidArgument(f"get_places: Cannot indicate {'GPU' if is_gpu else 'CPU'} "
                                  "device count.")
        outs = self.outputs.get("Out", ())
        if not outs:
            raise NotFound("get_places: Output(Out) of get_places is not found.")
        var = scope.find_var(outs[0]) or scope.var(outs[0])  # run_op declares none
        if is_gpu:
            found = cuda_device_count()
            if count > found:
                raise InvalidArgument(f"get_places: Only {found} CUDA devices found, cannot set "
                                      f"to {count}.")
            var.value = PlaceList(GPUPlace(i) for i in range(count))
        else:
            var.value = PlaceList(CPUPlace() for _ in range(count))


op_hooks("get_places", operator_class=GetPlacesOp)

