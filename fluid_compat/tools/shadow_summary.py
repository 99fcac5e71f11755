"""Shadow records summarized: per op and output, the largest differences seen over every run
(``summarize`` -> ``OutputComparison`` rows), with the tolerance of the dtype, and the short report
``run --shadow`` and ``train --shadow`` print (``shadow_report_lines``); ``fluid-compat compare``
prints the same rows in full."""

from __future__ import annotations

import math

import attrs
from phi.common.data_type import DataType
from phi.core.errors import PhiError

from fluid_compat.operators.shadow import TOLERANCES, Comparison

__all__ = ["OutputComparison", "format_number", "json_number", "shadow_report_lines",
           "summarize", "tolerance_text"]


@attrs.frozen
class OutputComparison:
    """One output of one op, over every time the op ran: the largest differences seen."""

    index: int
    op_type: str
    slot: str
    chosen: str
    other: str
    dtype: str
    max_abs: float
    max_rel: float
    passed: bool
    runs: int
    tolerance: str
    error: str = ""
    block: int = 0  # the block of the op (sub-blocks of control-flow ops number their own ops)

    def to_dict(self) -> dict:
        return {k: json_number(v) for k, v in attrs.asdict(self).items()}


def tolerance_text(dtype: str) -> str:
    try:
        tol = TOLERANCES.get(DataType.from_any(dtype)) if dtype else None
    except (PhiError, ValueError, KeyError):
        tol = None
    return "exact" if tol is None else f"rtol {tol[0]:g} atol {tol[1]:g}"


def summarize(records: list[Comparison], origins: list | None = None,
              blocks: dict[int, int] | None = None) -> list[OutputComparison]:
    """Shadow records grouped per op and output slot, in first-seen order.  ``origins`` (the
    operator of each record) tells apart ops of different blocks with the same index;
    ``blocks`` maps ``id(operator)`` to its block."""
    groups: dict[tuple, list[Comparison]] = {}
    for i, r in enumerate(records):
        op = origins[i] if origins is not None else None
        groups.setdefault((id(op) if op is not None else None, r.index, r.op_type, r.slot),
                          []).append(r)
    rows = []
    for (op_id, index, op_type, slot), rs in groups.items():
        first = rs[0]
        errors = sorted({r.error for r in rs if r.error})
        dtype = next((r.dtype for r in rs if r.dtype), "")
        rows.append(OutputComparison(
            index, op_type, slot, first.chosen, first.other, dtype,
            max(r.max_abs for r in rs), max(r.max_rel for r in rs), all(r.passed for r in rs),
            len(rs), tolerance_text(dtype), "; ".join(errors),
            (blocks or {}).get(op_id, 0) if op_id is not None else 0))
    return rows


def format_number(x: float) -> str:
    if isinstance(x, float) and not math.isfinite(x):
        return str(x)
    return "0" if x == 0 else f"{x:.3g}"


def json_number(v):
    if isinstance(v, float) and not math.isfinite(v):
        return str(v)  # "inf" / "nan": strict JSON has no such numbers
    return v


def shadow_report_lines(report, limit: int = 20) -> list[str]:
    """A shadow run's summary and its divergences, one line each."""
    rows = summarize(report.records)
    bad = [r for r in rows if not r.passed]
    ops = {(r.index, r.op_type) for r in rows}
    lines = [(f"shadow: {len(rows)} outputs of {len(ops)} ops compared with the other side, "
              f"{len(bad)} diverged")]
    for r in bad[:limit]:
        lines.append(f"  DIVERGED op #{r.index} {r.op_type}.{r.slot} ({r.dtype}): {r.chosen} vs "
                     f"{r.other} max abs {format_number(r.max_abs)} max rel "
                     f"{format_number(r.max_rel)}" + (f" ({r.error})" if r.error else ""))
    if len(bad) > limit:
        lines.append(f"  ... and {len(bad) - limit} more (fluid-compat compare lists them all)")
    return lines
