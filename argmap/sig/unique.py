"""Mapping of ``unique``: unique_raw (with is_sorted) for the old unsorted behaviour."""

from __future__ import annotations

from argmap.context import ArgumentMappingContext
from argmap.registry import MappingFamily
from argmap.signature import KernelSignature

MAPPINGS = MappingFamily("unique")


@MAPPINGS.arg_mapping("unique", attr_values={"is_sorted": (True, False)})
def unique(ctx: ArgumentMappingContext) -> KernelSignature:
    # Irregular: unique_raw (with is_sorted) for the old unsorted behaviour.
    attrs = ("return_index", "return_inverse", "return_counts", "axis", "dtype")
    outs = ("Out", "Indices", "Index", "Counts")
    if ctx.attr("is_sorted"):
        return KernelSignature("unique", ("X",), attrs, outs)
    return KernelSignature("unique_raw", ("X",), (*attrs, "is_sorted"), outs)
