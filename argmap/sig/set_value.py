"""Mapping of ``set_value``: set_value_with_tensor for a ValueTensor, else set_value; each bound
list from its tensor list when given."""

from __future__ import annotations

from argmap.context import ArgumentMappingContext
from argmap.registry import MappingFamily
from argmap.signature import KernelSignature

MAPPINGS = MappingFamily("set_value")


@MAPPINGS.arg_mapping("set_value")
def set_value(ctx: ArgumentMappingContext) -> KernelSignature:
    # Irregular: a ValueTensor selects set_value_with_tensor, else the values come from the
    # `values` / `shape` attributes; each bound list may come from a tensor list instead.
    bounds = tuple(f"{name}TensorList" if ctx.input_size(f"{name}TensorList") > 0 else attr
                   for name, attr in (("Starts", "starts"), ("Ends", "ends"),
                                      ("Steps", "steps")))
    axes = ("axes", "decrease_axes", "none_axes")
    if ctx.has_input("ValueTensor"):
        return KernelSignature("set_value_with_tensor", ("Input", "ValueTensor"),
                               bounds + axes, ("Out",))
    return KernelSignature("set_value", ("Input",), bounds + axes + ("shape", "values"),
                           ("Out",))
