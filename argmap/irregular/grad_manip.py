"""Irregular mappings of the shape / indexing grad ops (helper gradmanip)."""

from __future__ import annotations

from argmap.context import ArgumentMappingContext
from argmap.registry import MappingFamily
from argmap.signature import KernelSignature

FAMILY = MappingFamily("grad_manip")


@FAMILY.arg_mapping("repeat_interleave_grad")
def repeat_interleave_grad(ctx: ArgumentMappingContext) -> KernelSignature:
    # Irregular as the forward op: a RepeatsTensor selects the tensor-index kernel.
    if ctx.input_size("RepeatsTensor") > 0:
        return KernelSignature("repeat_interleave_with_tensor_index_grad",
                               ("X", "RepeatsTensor", "Out@GRAD"), ("dim",), ("X@GRAD",))
    return KernelSignature("repeat_interleave_grad", ("X", "Out@GRAD"), ("Repeats", "dim"),
                           ("X@GRAD",))
