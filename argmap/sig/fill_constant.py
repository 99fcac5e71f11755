"""Mapping of ``fill_constant``: full or full_sr by Out's kind; the shape and value sources by
inputs and attributes."""

from __future__ import annotations

from argmap.context import ArgumentMappingContext
from argmap.registry import MappingFamily
from argmap.signature import UNREGISTERED, KernelSignature

MAPPINGS = MappingFamily("fill_constant")


@MAPPINGS.arg_mapping("fill_constant", attr_values={"str_value": ("", "1.5")})
def fill_constant(ctx: ArgumentMappingContext) -> KernelSignature:
    # Irregular: full vs full_sr on Out's kind, and the value source ValueTensor > str_value
    # (only when non-empty) > value.
    if ctx.has_input("ShapeTensor"):
        shape = "ShapeTensor"
    elif ctx.input_size("ShapeTensorList") > 0:
        shape = "ShapeTensorList"
    else:
        shape = "shape"
    if ctx.has_input("ValueTensor"):
        value = "ValueTensor"
    elif ctx.attr("str_value"):
        value = "str_value"
    else:
        value = "value"
    if ctx.is_dense_tensor_output("Out"):
        return KernelSignature("full", (), (shape, value, "dtype"), ("Out",))
    if ctx.is_selected_rows_output("Out"):
        return KernelSignature("full_sr", (), (shape, value, "dtype"), ("Out",))
    return UNREGISTERED
