"""Mapping of ``unsqueeze2``: the AxesTensorList checked before AxesTensor; both outputs named."""

from __future__ import annotations

from argmap.context import ArgumentMappingContext
from argmap.registry import MappingFamily
from argmap.signature import KernelSignature

MAPPINGS = MappingFamily("unsqueeze2")


@MAPPINGS.arg_mapping("unsqueeze2")
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
