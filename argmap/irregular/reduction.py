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


def _reduce_or_raw(kernel: str, raw: str):
    def mapping(ctx: ArgumentMappingContext) -> KernelSignature:
        # Irregular: the `raw` kernel (with reduce_all) when reduce_all is set or InferShape
        # asks, since InferMeta needs reduce_all; else the plain one.
        if not ctx.is_dense_tensor_input("X"):
            return UNREGISTERED
        if ctx.is_for_infer_shape() or ctx.attr("reduce_all"):
            return KernelSignature(raw, ("X",), ("dim", "keep_dim", "reduce_all"), ("Out",))
        return KernelSignature(kernel, ("X",), ("dim", "keep_dim"), ("Out",))

    mapping.__name__ = mapping.__qualname__ = f"{kernel}_or_{raw}"
    return mapping


#: legacy op -> (plain kernel, kernel with reduce_all); prod's are named the other way round
_REDUCE_OR_RAW = {
    "reduce_max": ("max", "max_raw"),
    "reduce_min": ("min", "min_raw"),
    "reduce_prod": ("prod_infer", "prod"),
    "reduce_all": ("all", "all_raw"),
    "reduce_any": ("any", "any_raw"),
    "reduce_amax": ("amax", "amax_raw"),
    "reduce_amin": ("amin", "amin_raw"),
}
for _op, (_plain, _raw) in _REDUCE_OR_RAW.items():
    FAMILY.add(_op, _reduce_or_raw(_plain, _raw))


@FAMILY.arg_mapping("unique", attr_values={"is_sorted": (True, False)})
def unique(ctx: ArgumentMappingContext) -> KernelSignature:
    # Irregular: unique_raw (with is_sorted) for the old unsorted behaviour.
    attrs = ("return_index", "return_inverse", "return_counts", "axis", "dtype")
    outs = ("Out", "Indices", "Index", "Counts")
    if ctx.attr("is_sorted"):
        return KernelSignature("unique", ("X",), attrs, outs)
    return KernelSignature("unique_raw", ("X",), (*attrs, "is_sorted"), outs)
