"""Mappings of ``repeat_interleave`` and ``repeat_interleave_grad``: a RepeatsTensor selects the
tensor-index kernels."""

from __future__ import annotations

from argmap.context import ArgumentMappingContext
from argmap.registry import MappingFamily
from argmap.signature import KernelSignature

MAPPINGS = MappingFamily("repeat_interleave")


@MAPPINGS.arg_mapping("repeat_interleave")
def repeat_interleave(ctx: ArgumentMappingContext) -> KernelSignature:
    # Irregular: a RepeatsTensor selects repeat_interleave_with_tensor_index.
    if ctx.has_input("RepeatsTensor"):
        return KernelSignature("repeat_interleave_with_tensor_index", ("X", "RepeatsTensor"),
                               ("dim",), ("Out",))
    return KernelSignature("repeat_interleave", ("X",), ("Repeats", "dim"), ("Out",))


@MAPPINGS.arg_mapping("repeat_interleave_grad")
def repeat_interleave_grad(ctx: ArgumentMappingContext) -> KernelSignature:
    # Irregular as the forward op: a RepeatsTensor selects the tensor-index kernel.
    if ctx.input_size("RepeatsTensor") > 0:
        return KernelSignature("repeat_interleave_with_tensor_index_grad",
                               ("X", "RepeatsTensor", "Out@GRAD"), ("dim",), ("X@GRAD",))
    return KernelSignature("repeat_interleave_grad", ("X", "Out@GRAD"), ("Repeats", "dim"),
                           ("X@GRAD",))
