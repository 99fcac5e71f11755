"""Mapping of ``flatten_contiguous_range``: flatten, or flatten_infer when a saved model dropped
the XShape output."""

from __future__ import annotations

from argmap.context import ArgumentMappingContext
from argmap.registry import MappingFamily
from argmap.signature import KernelSignature

MAPPINGS = MappingFamily("flatten_contiguous_range")


@MAPPINGS.arg_mapping("flatten_contiguous_range")
def flatten_contiguous_range(ctx: ArgumentMappingContext) -> KernelSignature:
    # Irregular: saved models drop the extra XShape output, and then flatten_infer runs.
    if ctx.has_output("XShape"):
        return KernelSignature("flatten", ("X",), ("start_axis", "stop_axis"), ("Out", "XShape"))
    return KernelSignature("flatten_infer", ("X",), ("start_axis", "stop_axis"), ("Out",))
