"""The output counts hook of unstack."""

from __future__ import annotations

from fluid_compat.framework.op_registry import op_hooks

__all__: list[str] = []


def _unstack_outputs(attrs, inputs) -> dict[str, int]:
    num = attrs.get("num", 0) or 0
    if num <= 0:  # Paddle's layer sets num = x.shape[axis]; a program without it has that many
        x = inputs.get("X")
        x = x[0] if isinstance(x, (list, tuple)) else x
        shape = getattr(x, "shape", None)
        axis = attrs.get("axis", 0)
        if shape is None:
            return {"Y": 0}
        if not -len(shape) <= axis < len(shape):
            from phi.core.errors import InvalidArgument

            raise InvalidArgument(f"unstack: axis {axis} is out of range for Input(X) of rank "
                                  f"{len(shape)} (expected [-{len(shape)}, {len(shape)})).")
        num = shape[axis]
    return {"Y": num}


op_hooks("unstack", output_counts=_unstack_outputs)

