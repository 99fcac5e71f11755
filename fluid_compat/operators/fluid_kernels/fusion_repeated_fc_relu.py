"""The output counts hook of fusion_repeated_fc_relu."""

from __future__ import annotations

from fluid_compat.framework.op_registry import op_hooks

__all__: list[str] = []


# fusion_repeated_fc_relu: ReluOut holds one tensor per W but the last
op_hooks("fusion_repeated_fc_relu", output_counts=lambda attrs, inputs: {
    "ReluOut": max(len(inputs.get("W") or ()) - 1, 0)})

