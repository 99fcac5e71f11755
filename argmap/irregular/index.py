"""Irregular mappings of helper `index`'s ops (indexing / scatter)."""

from __future__ import annotations

from argmap.context import ArgumentMappingContext
from argmap.registry import MappingFamily
from argmap.signature import KernelSignature

FAMILY = MappingFamily("index")


@FAMILY.arg_mapping("repeat_interleave")
def repeat_interleave(ctx: ArgumentMappingContext) -> KernelSignature:
    # Irregular: a RepeatsTensor selects repeat_interleave_with_tensor_index.
    if ctx.has_input("RepeatsTensor"):
        return KernelSignature("repeat_interleave_with_tensor_index", ("X", "RepeatsTensor"),
                               ("dim",), ("Out",))
    return KernelSignature("repeat_interleave", ("X",), ("Repeats", "dim"), ("Out",))


@FAMILY.arg_mapping("set_value")
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
