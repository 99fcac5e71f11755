"""Mapping of ``squeeze2``: both outputs always named, also when a saved model dropped XShape."""

from __future__ import annotations

from argmap.context import ArgumentMappingContext
from argmap.registry import MappingFamily
from argmap.signature import KernelSignature

MAPPINGS = MappingFamily("squeeze2")


@MAPPINGS.arg_mapping("squeeze2")
def squeeze2(ctx: ArgumentMappingContext) -> KernelSignature:
    # 2.6.2's generated mapping always names both outputs, also in saved models that dropped
    # the XShape variable (Paddle's trace of such a model shows `squeeze` with Out, XShape; unlike
    # flatten_contiguous_range, whose hand-written mapping switches to flatten_infer).
    return KernelSignature("squeeze", ("X",), ("axes",), ("Out", "XShape"))
