"""Mapping of ``fill_constant_batch_size_like``: the value from str_value when it is non-empty,
else from value."""

from __future__ import annotations

from argmap.context import ArgumentMappingContext
from argmap.registry import MappingFamily
from argmap.signature import KernelSignature

MAPPINGS = MappingFamily("fill_constant_batch_size_like")


@MAPPINGS.arg_mapping("fill_constant_batch_size_like", attr_values={"str_value": ("", "1.5")})
def fill_constant_batch_size_like(ctx: ArgumentMappingContext) -> KernelSignature:
    # Irregular: the value comes from str_value when it is non-empty, else from value.
    value = "str_value" if ctx.attr("str_value") else "value"
    return KernelSignature("full_batch_size_like", ("Input",),
                           ("shape", value, "dtype", "input_dim_idx", "output_dim_idx"),
                           ("Out",))
