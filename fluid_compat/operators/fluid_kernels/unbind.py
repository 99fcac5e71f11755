"""The output counts hook of unbind."""

from __future__ import annotations

from fluid_compat.framework.op_registry import op_hooks

__all__: list[str] = []


def _unbind_outputs(attrs, inputs) -> dict[str, int]:
    x = inputs.get("X")
    x = x[0] if isinstance(x, (list, tuple)) else x
    shape = getattr(x, "shape", None)
    if shape is None or not shape:
        return {"Out": 0}
    axis = attrs.get("axis", 0)
    if not -len(shape) <= axis < len(shape):
        from phi.core.errors import InvalidArgument

        raise InvalidArgument(f"unbind: axis {axis} is out of range for Input(X) of rank "
                              f"{len(shape)} (expected [-{len(shape)}, {len(shape)})).")
    return {"Out": shape[axis]}


op_hooks("unbind", output_counts=_unbind_outputs)

