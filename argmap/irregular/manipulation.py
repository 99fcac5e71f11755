"""Irregular mappings: shape and layout manipulation."""

from __future__ import annotations

from argmap.context import ArgumentMappingContext
from argmap.registry import MappingFamily
from argmap.signature import KernelSignature

FAMILY = MappingFamily("manipulation")


@FAMILY.arg_mapping("reshape2")
def reshape2(ctx: ArgumentMappingContext) -> KernelSignature:
    # Irregular: checks the ShapeTensor list before the single Shape tensor, the reverse of the
    # generated order.  2.6.2 always names both outputs (the kernel takes XShape as optional).
    if ctx.input_size("ShapeTensor") > 0:
        shape = "ShapeTensor"
    elif ctx.has_input("Shape"):
        shape = "Shape"
    else:
        shape = "shape"
    return KernelSignature("reshape", ("X",), (shape,), ("Out", "XShape"))


@FAMILY.arg_mapping("split", attr_values={"num": (0, 2)})
def split(ctx: ArgumentMappingContext) -> KernelSignature:
    # Irregular: split_with_num when `num` > 0, else split with sections.
    axis = "AxisTensor" if ctx.has_input("AxisTensor") else "axis"
    if ctx.attr("num") > 0:
        return KernelSignature("split_with_num", ("X",), ("num", axis), ("Out",))
    sections = "SectionsTensorList" if ctx.input_size("SectionsTensorList") > 0 else "sections"
    return KernelSignature("split", ("X",), (sections, axis), ("Out",))


@FAMILY.arg_mapping("flatten_contiguous_range")
def flatten_contiguous_range(ctx: ArgumentMappingContext) -> KernelSignature:
    # Irregular: saved models drop the extra XShape output, and then flatten_infer runs.
    if ctx.has_output("XShape"):
        return KernelSignature("flatten", ("X",), ("start_axis", "stop_axis"), ("Out", "XShape"))
    return KernelSignature("flatten_infer", ("X",), ("start_axis", "stop_axis"), ("Out",))


@FAMILY.arg_mapping("squeeze2")
def squeeze2(ctx: ArgumentMappingContext) -> KernelSignature:
    # 2.6.2's generated mapping always names both outputs, also in saved models that dropped
    # the XShape variable (Paddle's trace of such a model shows `squeeze` with Out, XShape; unlike
    # flatten_contiguous_range, whose hand-written mapping switches to flatten_infer).
    return KernelSignature("squeeze", ("X",), ("axes",), ("Out", "XShape"))


@FAMILY.arg_mapping("unsqueeze2")
def unsqueeze2(ctx: ArgumentMappingContext) -> KernelSignature:
    # Irregular: the AxesTensorList is checked before AxesTensor. Both outputs are always named,
    # also when a saved model dropped the XShape variable (as for squeeze2).
    if ctx.input_size("AxesTensorList") > 0:
        axes = "AxesTensorList"
    elif ctx.has_input("AxesTensor"):
        axes = "AxesTensor"
    else:
        axes = "axes"
    return KernelSignature("unsqueeze", ("X",), (axes,), ("Out", "XShape"))
