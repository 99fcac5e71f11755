"""Irregular mappings: reductions."""

from __future__ import annotations

from argmap.context import ArgumentMappingContext
from argmap.registry import MappingFamily
from argmap.signature import UNREGISTERED, KernelSignature

FAMILY = MappingFamily("reduction")


@FAMILY.arg_mapping("reduce_mean")
def reduce_mean(ctx: ArgumentMappingContext) -> KernelSignature:
    # Irregular: mean_raw (with reduce_all) when reduce_all is set or InferShape asks, since
    # InferMeta needs reduce_all; else mean.
    if not ctx.is_dense_tensor_input("X"):
        return UNREGISTERED
    if ctx.is_for_infer_shape() or ctx.attr("reduce_all"):
        return KernelSignature("mean_raw", ("X",), ("dim", "keep_dim", "reduce_all"), ("Out",))
    return KernelSignature("mean", ("X",), ("dim", "keep_dim"), ("Out",))


@FAMILY.arg_mapping("reduce_sum")
def reduce_sum(ctx: ArgumentMappingContext) -> KernelSignature:
    # Irregular: sum_raw (with reduce_all) when reduce_all is set or InferShape asks, since
    # InferMeta needs reduce_all; else sum.  Note the two attribute orders differ.
    if not ctx.is_dense_tensor_input("X"):
        return UNREGISTERED
    if ctx.is_for_infer_shape() or ctx.attr("reduce_all"):
        return KernelSignature("sum_raw", ("X",), ("dim", "keep_dim", "reduce_all", "out_dtype"),
                               ("Out",))
    return KernelSignature("sum", ("X",), ("dim", "out_dtype", "keep_dim"), ("Out",))
