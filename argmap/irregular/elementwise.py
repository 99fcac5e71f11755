"""Irregular mappings: elementwise arithmetic and scale."""

from __future__ import annotations

from argmap.context import ArgumentMappingContext
from argmap.registry import MappingFamily, MappingFn
from argmap.signature import UNREGISTERED, KernelSignature

FAMILY = MappingFamily("elementwise")


@FAMILY.arg_mapping("scale")
def scale(ctx: ArgumentMappingContext) -> KernelSignature:
    # Irregular: the kernel is scale or scale_sr by X's variable kind.
    scale_attr = "ScaleTensor" if ctx.has_input("ScaleTensor") else "scale"
    attrs = (scale_attr, "bias", "bias_after_scale")
    if ctx.is_dense_tensor_input("X"):
        return KernelSignature("scale", ("X",), attrs, ("Out",))
    if ctx.is_selected_rows_input("X"):
        return KernelSignature("scale_sr", ("X",), attrs, ("Out",))
    return UNREGISTERED


def plain_or_raw(kernel: str) -> MappingFn:
    def mapping(ctx: ArgumentMappingContext) -> KernelSignature:
        # Irregular: the legacy axis only reaches the kernel (`<kernel>_raw`) when it is not -1.
        if ctx.attr("axis") == -1:
            return KernelSignature(kernel, ("X", "Y"), (), ("Out",))
        return KernelSignature(f"{kernel}_raw", ("X", "Y"), ("axis",), ("Out",))

    mapping.__name__ = mapping.__qualname__ = f"{kernel}_or_{kernel}_raw"
    return mapping


#: legacy op -> phi kernel whose ``_raw`` variant takes the legacy ``axis``
_PLAIN_OR_RAW = {
    "elementwise_add": "add",
    "elementwise_sub": "subtract",
    "elementwise_div": "divide",
    "elementwise_max": "maximum",
    "elementwise_min": "minimum",
    "elementwise_pow": "elementwise_pow",
}
for _op, _kernel in _PLAIN_OR_RAW.items():
    FAMILY.add(_op, plain_or_raw(_kernel))


@FAMILY.arg_mapping("elementwise_mul")
def elementwise_mul(ctx: ArgumentMappingContext) -> KernelSignature:
    # Irregular: picks multiply / multiply_raw on axis, and the _sr variants for a non-dense X.
    suffix = "" if ctx.is_dense_tensor_input("X") else "_sr"
    if ctx.attr("axis") == -1:
        return KernelSignature(f"multiply{suffix}", ("X", "Y"), (), ("Out",))
    return KernelSignature(f"multiply_raw{suffix}", ("X", "Y"), ("axis",), ("Out",))
