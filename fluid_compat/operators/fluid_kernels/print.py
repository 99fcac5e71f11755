"""The `print` operator and Paddle's TensorFormatter text (paddle/fluid/operators/print_op.cc,
tensor_formatter.cc in Paddle 2.6.2).

`print` is an OperatorBase: it writes its input's description to standard output, then copies
In to Out (with the LoD).  The text is Paddle's, line by line (each line ends with a newline)::

    Variable: <name of In>         print_tensor_name
      - message: <message>         when the message is not empty
      - lod: {{0, 2, 3}{...}}      print_tensor_lod: one {...} per level, {} without LoD
      - place: Place(cpu)          always
      - shape: [2, 3]              print_tensor_shape ([] for a 0-d tensor)
      - layout: NCHW               print_tensor_layout
      - dtype: float32             print_tensor_type
      - data: [v0 v1 ...]          always: the first `summarize` values (-1: all), space apart

Values print as C++'s ``std::ostream`` prints them with its default format: floating types
(float32, float64, and float16 / bfloat16 through float) as ``%g`` with 6 significant digits
(``inf``, ``nan``, ``-nan`` with the sign bit set), bool as 1 / 0, integers in full.  Other dtypes
(uint8, int8, int16, complex...) print ``  - data: unprintable type: <dtype>``.

Which runs print: ``print_phase`` FORWARD / BACKWARD / BOTH against ``is_forward`` (the grad op
Paddle makes for print is a print with is_forward false, reading Out@GRAD); ``first_n`` > 0
prints only on the first ``first_n`` runs of this operator instance (Paddle counts per op
instance, so across the runs of one cached program), any other value on every run.
"""

from __future__ import annotations

import math
import sys
import threading

import numpy as np

from fluid_compat.framework.op_registry import op_hooks
from fluid_compat.operators.base import OperatorBase
from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument, NotFound, PreconditionNotMet
from phi.core.selected_rows import SelectedRows
from phi.core.tensor import DenseTensor

__all__ = ["PrintOp", "format_tensor", "format_values"]


PHASES = ("FORWARD", "BACKWARD", "BOTH")


_FLOATING = frozenset({DataType.FLOAT32, DataType.FLOAT64, DataType.FLOAT16, DataType.BFLOAT16})


_INTEGRAL = frozenset({DataType.INT32, DataType.INT64})


_LOCK = threading.Lock()  # one block of text at a time, as Paddle's formatter mutex


def _float_text(v: float) -> str:
    if math.isnan(v):
        # glibc prints the sign of a NaN; Python's %g drops it
        return "-nan" if math.copysign(1.0, v) < 0 else "nan"
    return f"{v:.6g}"  # C++ ostream default: 6 significant digits


def format_values(tensor: DenseTensor, summarize: int) -> str:
    """The ``  - data: ...`` line of Paddle's TensorFormatter (with its newline)."""
    dtype = tensor.dtype
    if dtype not in _FLOATING and dtype not in _INTEGRAL and dtype is not DataType.BOOL:
        return f"  - data: unprintable type: {dtype}\n"
    flat = np.asarray(tensor.numpy()).reshape(-1)
    if summarize != -1:
        # Paddle takes min(summarize, numel); a negative summarize other than -1 prints nothing
        flat = flat[:max(summarize, 0)]
    if dtype in _FLOATING:
        if dtype is DataType.FLOAT16 or dtype is DataType.BFLOAT16:
            flat = flat.astype(np.float32)  # both print through their float value
        words = [_float_text(v) for v in flat.tolist()]
    elif dtype is DataType.BOOL:
        words = ["1" if v else "0" for v in flat.tolist()]
    else:
        words = [str(v) for v in flat.tolist()]
    return "  - data: [" + " ".join(words) + "]\n"


def format_tensor(tensor: DenseTensor, name: str = "", message: str = "", *,
                  summarize: int = -1, print_type: bool = True, print_shape: bool = True,
                  print_layout: bool = True, print_lod: bool = True) -> str:
    """Paddle's TensorFormatter::Format: the text `print` writes for ``tensor`` (module doc)."""
    lines = []
    if name:
        lines.append(f"Variable: {name}\n")
    if message:
        lines.append(f"  - message: {message}\n")
    if print_lod:
        levels = "".join("{" + ", ".join(str(int(i)) for i in level) + "}"
                         for level in tensor.lod)
        lines.append("  - lod: {" + levels + "}\n")
    lines.append(f"  - place: {tensor.place}\n")
    if print_shape:
        lines.append("  - shape: [" + ", ".join(str(d) for d in tensor.dims) + "]\n")
    if print_layout:
        lines.append(f"  - layout: {tensor.layout}\n")
    if print_type:
        lines.append(f"  - dtype: {tensor.dtype}\n")
    lines.append(format_values(tensor, summarize))
    return "".join(lines)


class PrintOp(OperatorBase):
    """Writes In's description to stdout (when the phase and first_n allow), then Out = a copy
    of In with its LoD."""

    def __init__(self, *args) -> None:
        super().__init__(*args)
        phase = self.attrs.get("print_phase", "BOTH")
        if phase not in PHASES:
            # Paddle's attribute checker (InEnum) refuses the op when it is created
            raise InvalidArgument(f"Operator `print`: attribute print_phase must be one of "
                                  f"{', '.join(PHASES)}, got {phase!r}.")
        self._times = 0  # runs that reached the first_n check (Paddle's mutable times_)

    def _should_print(self) -> bool:
        phase = self.attrs.get("print_phase", "BOTH")
        forward = bool(self.attrs.get("is_forward", True))
        if (forward and phase == "BACKWARD") or (not forward and phase == "FORWARD"):
            return False
        first_n = int(self.attrs.get("first_n", -1))
        if first_n > 0:
            self._times += 1
            if self._times > first_n:
                return False
        return True

    def run_impl(self, scope, place) -> None:
        in_name = self.input("In")
        outs = self.outputs.get("Out", ())
        in_var = scope.find_var(in_name) if in_name else None
        if in_var is None:
            raise NotFound(f"print: The input:{in_name} not found in scope.")
        if not outs:
            raise NotFound("print: Output(Out) of print is not found.")
        # an executor declared it; a one-op run (run_op) makes it here
        out_var = scope.find_var(outs[0]) or scope.var(outs[0])
        t = in_var.value
        if isinstance(t, SelectedRows):
            # Paddle's print reads its input as a LoDTensor only
            raise InvalidArgument(f"print: input `In` (`{in_name}`) holds SelectedRows; print "
                                  "prints LoDTensors only.")
        if not isinstance(t, DenseTensor) or t.data is None:
            what = "nothing" if t is None else (
                "an uninitialized tensor" if isinstance(t, DenseTensor) else type(t).__name__)
            raise PreconditionNotMet(f"print: input `In` (`{in_name}`) must hold an initialized "
                                     f"LoDTensor, it holds {what}.")
        if self._should_print():
            text = format_tensor(
                t, in_name if self.attrs.get("print_tensor_name", True) else "",
                str(self.attrs.get("message", "") or ""),
                summarize=int(self.attrs.get("summarize", -1)),
                print_type=bool(self.attrs.get("print_tensor_type", True)),
                print_shape=bool(self.attrs.get("print_tensor_shape", True)),
                print_layout=bool(self.attrs.get("print_tensor_layout", True)),
                print_lod=bool(self.attrs.get("print_tensor_lod", True)))
            with _LOCK:
                sys.stdout.write(text)
                sys.stdout.flush()
        if out_var is in_var:
            return
        # Paddle's TensorCopy: Out owns its own copy (a later in-place op on Out leaves In be)
        data = t.data.copy()
        out_var.value = DenseTensor(data, t.dtype, t.place, t.layout, t.lod)


op_hooks("print", operator_class=PrintOp)

