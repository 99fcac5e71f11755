"""Mapping of ``split``: split_with_num when ``num`` > 0, else split with sections."""

from __future__ import annotations

from argmap.context import ArgumentMappingContext
from argmap.registry import MappingFamily
from argmap.signature import KernelSignature

MAPPINGS = MappingFamily("split")


@MAPPINGS.arg_mapping("split", attr_values={"num": (0, 2)})
def split(ctx: ArgumentMappingContext) -> KernelSignature:
    # Irregular: split_with_num when `num` > 0, else split with sections.
    axis = "AxisTensor" if ctx.has_input("AxisTensor") else "axis"
    if ctx.attr("num") > 0:
        return KernelSignature("split_with_num", ("X",), ("num", axis), ("Out",))
    sections = "SectionsTensorList" if ctx.input_size("SectionsTensorList") > 0 else "sections"
    return KernelSignature("split", ("X",), (sections, axis), ("Out",))
