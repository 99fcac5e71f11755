"""Mapping of ``assign_value``: the attribute holding the values is chosen by ``dtype``."""

from __future__ import annotations

from argmap.context import ArgumentMappingContext
from argmap.registry import MappingFamily
from argmap.signature import UNREGISTERED, KernelSignature

MAPPINGS = MappingFamily("assign_value")

#: assign_value's dtype attribute (proto numbering) -> the attribute holding its values
_ASSIGN_VALUE_ATTRS = {0: "bool_values", 2: "int32_values", 3: "int64_values",
                       5: "fp32_values", 6: "fp64_values"}


@MAPPINGS.arg_mapping("assign_value", attr_values={"dtype": (0, 2, 3, 5, 6, 21)})
def assign_value(ctx: ArgumentMappingContext) -> KernelSignature:
    # Irregular: the values attribute is chosen by `dtype`, not by which list is non-empty.
    values = _ASSIGN_VALUE_ATTRS.get(ctx.attr("dtype"))
    if values is None:
        return UNREGISTERED
    return KernelSignature("assign_value", (), ("shape", "dtype", values), ("Out",))
