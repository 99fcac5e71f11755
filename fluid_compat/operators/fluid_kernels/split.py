"""The output counts hook of split."""

from __future__ import annotations

from fluid_compat.framework.op_registry import op_hooks

__all__: list[str] = []


def _split_outputs(attrs, inputs) -> dict[str, int]:
    return {"Out": max(attrs.get("num", 0) or 0, len(attrs.get("sections") or ()))}


op_hooks("split", output_counts=_split_outputs)

