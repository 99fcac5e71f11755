"""The output counts hook of check_memory_continue."""

from __future__ import annotations

from fluid_compat.framework.op_registry import op_hooks

__all__: list[str] = []


def _one_out_per_x(attrs, inputs) -> dict[str, int]:
    x = inputs.get("X")
    return {"Out": len(x) if isinstance(x, (list, tuple)) else 1}


# check_memory_continue: one Out per X
op_hooks("check_memory_continue", output_counts=_one_out_per_x)

