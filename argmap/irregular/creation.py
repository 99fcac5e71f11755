"""Irregular mappings: tensor creation."""

from __future__ import annotations

from argmap.context import ArgumentMappingContext
from argmap.registry import MappingFamily
from argmap.signature import UNREGISTERED, KernelSignature

FAMILY = MappingFamily("creation")


@FAMILY.arg_mapping("fill_constant", attr_values={"str_value": ("", "1.5")})
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


#: assign_value's dtype attribute (proto numbering) -> the attribute holding its values
_ASSIGN_VALUE_ATTRS = {0: "bool_values", 2: "int32_values", 3: "int64_values",
                       5: "fp32_values", 6: "fp64_values"}


@FAMILY.arg_mapping("assign_value", attr_values={"dtype": (0, 2, 3, 5, 6, 21)})
def assign_value(ctx: ArgumentMappingContext) -> KernelSignature:
    # Irregular: the values attribute is chosen by `dtype`, not by which list is non-empty.
    values = _ASSIGN_VALUE_ATTRS.get(ctx.attr("dtype"))
    if values is None:
        return UNREGISTERED
    return KernelSignature("assign_value", (), ("shape", "dtype", values), ("Out",))
