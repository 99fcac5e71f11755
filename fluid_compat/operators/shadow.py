"""Shadow mode: run the other side of the bridge beside the chosen kernel and compare.

For each op with both a phi and a fluid kernel, the recorder runs the kernel of the side that
was *not* chosen on the same (prepared) inputs, compares every output, and records the result.
The returned results are always those of the chosen kernel.  The same records serve
``fluid-compat compare``.  Tolerances depend on the dtype: float64 tight, float32 1e-5,
float16 1e-3, bfloat16 1e-2, integers and bools exact.
"""

from __future__ import annotations

from phi.core import records
import numpy as np
from phi.common.data_type import DataType
from phi.core.errors import NotFound, PhiError

__all__ = ["Comparison", "ShadowRecorder", "TOLERANCES", "compare_arrays"]

# (rtol, atol) per dtype; other dtypes compare exactly
TOLERANCES = {
    DataType.FLOAT64: (1e-10, 1e-12),
    DataType.FLOAT32: (1e-5, 1e-5),
    DataType.FLOAT16: (1e-3, 1e-3),
    DataType.BFLOAT16: (1e-2, 1e-2),
    DataType.COMPLEX128: (1e-10, 1e-12),
    DataType.COMPLEX64: (1e-5, 1e-5),
}


@records.frozen
class Comparison:
    """One output of one op run both ways."""

    index: int
    op_type: str
    slot: str
    chosen: str  # the side whose result the program kept
    other: str
    dtype: str
    max_abs: float
    max_rel: float
    passed: bool
    error: str = ""

    def to_dict(self) -> dict:
        return records.asdict(self)


def compare_arrays(a: np.ndarray, b: np.ndarray, dtype: DataType) -> tuple[float, float, bool]:
    """(max abs diff, max relative diff, within the dtype's tolerance)."""
    if a.shape != b.shape:
        return float("inf"), float("inf"), False
    if a.size == 0:
        return 0.0, 0.0, True
    if dtype not in TOLERANCES:
        same = bool(np.array_equal(a, b))
        diff = 0.0 if same else float(np.max(np.abs(a.astype(np.float64) - b.astype(np.float64))))
        return diff, 0.0 if same else float("inf"), same
    rtol, atol = TOLERANCES[dtype]
    wide = np.complex128 if np.iscomplexobj(a) else np.float64
    x, y = a.astype(wide), b.astype(wide)
    same = (x == y) | (np.isnan(x) & np.isnan(y))  # equal infinities and NaN/NaN agree
    with np.errstate(invalid="ignore", divide="ignore"):
        diff = np.where(same, 0.0, np.abs(x - y))
        diff = np.where(np.isnan(diff), np.inf, diff)  # NaN against a number differs
        rel = np.where(diff == 0, 0.0, np.where(np.isinf(diff), np.inf, diff / np.maximum(
            np.abs(y), np.finfo(np.float64).tiny)))
        ok = bool(np.all(same | (np.isfinite(diff) & (diff <= atol + rtol * np.abs(y)))))
    return float(np.max(diff)), float(np.max(rel)), ok


class ShadowRecorder:
    """Collects comparisons; attach it to ops (``op.shadow = recorder``)."""

    def __init__(self) -> None:
        self.records: list[Comparison] = []
        self._other: dict[tuple, object] = {}

    @property
    def divergences(self) -> list[Comparison]:
        return [r for r in self.records if not r.passed]

    def observe(self, op, choice, inputs, scope, staged, place) -> None:
        chosen = "phi" if choice.is_phi else "fluid"
        other_side = "fluid" if choice.is_phi else "phi"
        key = (id(op), place, op._signature_of(inputs))
        other = self._other.get(key)
        if other is None:
            try:
                other = op.decide(inputs, place, pin=other_side)
            except NotFound:
                other = False  # one side only: nothing to compare
            self._other[key] = other
        if other is False:
            return
        try:
            shadow = op.compute(other, inputs, scope)
        except PhiError as exc:
            for slot in staged:
                self.records.append(Comparison(op.index, op.type, slot, chosen, other_side, "",
                                               float("inf"), float("inf"), False, str(exc)))
            return
        for slot, values in staged.items():
            theirs = shadow.get(slot, [])
            for i, t in enumerate(values):
                if t is None:
                    continue
                o = theirs[i] if i < len(theirs) else None
                if o is None:
                    self.records.append(Comparison(op.index, op.type, slot, chosen, other_side,
                                                   str(t.dtype), float("inf"), float("inf"),
                                                   False, "the other kernel wrote nothing"))
                    continue
                max_abs, max_rel, ok = compare_arrays(np.asarray(t.numpy()),
                                                      np.asarray(o.numpy()), t.dtype)
                if t.dtype != o.dtype:
                    ok = False
                self.records.append(Comparison(op.index, op.type, slot, chosen, other_side,
                                               str(t.dtype), max_abs, max_rel, ok))
