"""Mapping of ``reduce_mean``: mean_raw (with reduce_all) when reduce_all is set or InferShape
asks, else mean."""

from __future__ import annotations

from argmap.context import ArgumentMappingContext
from argmap.registry import MappingFamily
from argmap.signature import UNREGISTERED, KernelSignature

MAPPINGS = MappingFamily("reduce_mean")


@MAPPINGS.arg_mapping("reduce_mean")
def reduce_mean(ctx: ArgumentMappingContext) -> KernelSignature:
    # Irregular: mean_raw (with reduce_all) when reduce_all is set or InferShape asks, since
    # InferMeta needs reduce_all; else mean.
    if not ctx.is_dense_tensor_input("X"):
        return UNREGISTERED
    if ctx.is_for_infer_shape() or ctx.attr("reduce_all"):
        return KernelSignature("mean_raw", ("X",), ("dim", "keep_dim", "reduce_all"), ("Out",))
    return KernelSignature("mean", ("X",), ("dim", "keep_dim"), ("Out",))
