"""Mapping of ``uniform_random`` (Paddle's uniform_random_sig.cc): uniform_raw when diag_num is
set; the shape source by inputs (`argmap.sig.funcs.shape_source`)."""

from __future__ import annotations

from argmap.context import ArgumentMappingContext
from argmap.registry import MappingFamily
from argmap.sig.funcs import shape_source
from argmap.signature import UNREGISTERED, KernelSignature

MAPPINGS = MappingFamily("uniform_random")


@MAPPINGS.arg_mapping("uniform_random", attr_values={"diag_num": (0, 2)})
def uniform_random(ctx: ArgumentMappingContext) -> KernelSignature:
    # Irregular: uniform_raw when diag_num is set, and the shape source by inputs
    if not ctx.is_dense_tensor_output("Out"):
        return UNREGISTERED
    shape = shape_source(ctx)
    if ctx.attr("diag_num"):
        return KernelSignature("uniform_raw", (), (shape, "dtype", "min", "max", "seed",
                                                   "diag_num", "diag_step", "diag_val"),
                               ("Out",))
    return KernelSignature("uniform", (), (shape, "dtype", "min", "max", "seed"), ("Out",))
