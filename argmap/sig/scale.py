"""Mapping of ``scale``: scale or scale_sr by X's variable kind."""

from __future__ import annotations

from argmap.context import ArgumentMappingContext
from argmap.registry import MappingFamily
from argmap.signature import UNREGISTERED, KernelSignature

MAPPINGS = MappingFamily("scale")


@MAPPINGS.arg_mapping("scale")
def scale(ctx: ArgumentMappingContext) -> KernelSignature:
    # Irregular: the kernel is scale or scale_sr by X's variable kind.
    scale_attr = "ScaleTensor" if ctx.has_input("ScaleTensor") else "scale"
    attrs = (scale_attr, "bias", "bias_after_scale")
    if ctx.is_dense_tensor_input("X"):
        return KernelSignature("scale", ("X",), attrs, ("Out",))
    if ctx.is_selected_rows_input("X"):
        return KernelSignature("scale_sr", ("X",), attrs, ("Out",))
    return UNREGISTERED
