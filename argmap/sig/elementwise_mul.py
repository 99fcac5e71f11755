"""Mapping of ``elementwise_mul``: multiply / multiply_raw by the legacy axis, their ``_sr``
variants for a non-dense X."""

from __future__ import annotations

from argmap.context import ArgumentMappingContext
from argmap.registry import MappingFamily
from argmap.signature import KernelSignature

MAPPINGS = MappingFamily("elementwise_mul")


@MAPPINGS.arg_mapping("elementwise_mul")
def elementwise_mul(ctx: ArgumentMappingContext) -> KernelSignature:
    # Irregular: picks multiply / multiply_raw on axis, and the _sr variants for a non-dense X.
    suffix = "" if ctx.is_dense_tensor_input("X") else "_sr"
    if ctx.attr("axis") == -1:
        return KernelSignature(f"multiply{suffix}", ("X", "Y"), (), ("Out",))
    return KernelSignature(f"multiply_raw{suffix}", ("X", "Y"), ("axis",), ("Out",))
