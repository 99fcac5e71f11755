"""Mapping of ``reduce_sum``: sum_raw (with reduce_all) when reduce_all is set or InferShape
asks, else sum (whose attributes come in another order)."""

from __future__ import annotations

from argmap.context import ArgumentMappingContext
from argmap.registry import MappingFamily
from argmap.signature import UNREGISTERED, KernelSignature

MAPPINGS = MappingFamily("reduce_sum")


@MAPPINGS.arg_mapping("reduce_sum")
def reduce_sum(ctx: ArgumentMappingContext) -> KernelSignature:
    # Irregular: sum_raw (with reduce_all) when reduce_all is set or InferShape asks, since
    # InferMeta needs reduce_all; else sum.  Note the two attribute orders differ.
    if not ctx.is_dense_tensor_input("X"):
        return UNREGISTERED
    if ctx.is_for_infer_shape() or ctx.attr("reduce_all"):
        return KernelSignature("sum_raw", ("X",), ("dim", "keep_dim", "reduce_all", "out_dtype"),
                               ("Out",))
    return KernelSignature("sum", ("X",), ("dim", "out_dtype", "keep_dim"), ("Out",))
