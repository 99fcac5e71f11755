"""Mapping of ``reshape2``: the shape source checked in its own order; both outputs named."""

from __future__ import annotations

from argmap.context import ArgumentMappingContext
from argmap.registry import MappingFamily
from argmap.signature import KernelSignature

MAPPINGS = MappingFamily("reshape2")


@MAPPINGS.arg_mapping("reshape2")
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
