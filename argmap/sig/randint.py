"""Mapping of ``randint`` (Paddle's randint_sig.cc): randint_with_seed when seed is set; the
shape source by inputs (`argmap.sig.funcs.shape_source`)."""

from __future__ import annotations

from argmap.context import ArgumentMappingContext
from argmap.registry import MappingFamily
from argmap.sig.funcs import shape_source
from argmap.signature import KernelSignature

MAPPINGS = MappingFamily("randint")


@MAPPINGS.arg_mapping("randint", attr_values={"seed": (0, 5)})
def randint(ctx: ArgumentMappingContext) -> KernelSignature:
    # Irregular: randint_with_seed when seed is set (Paddle passes seed, dtype to a kernel
    # that takes dtype, seed: see phi/kernels/random_ops.randint_with_seed)
    shape = shape_source(ctx)
    if ctx.attr("seed"):
        return KernelSignature("randint_with_seed", (), ("low", "high", shape, "seed", "dtype"),
                               ("Out",))
    return KernelSignature("randint", (), ("low", "high", shape, "dtype"), ("Out",))
