"""Mapping of ``gaussian_random`` (Paddle's gaussian_random_sig.cc): the shape source by inputs
(`argmap.sig.funcs.shape_source`)."""

from __future__ import annotations

from argmap.context import ArgumentMappingContext
from argmap.registry import MappingFamily
from argmap.sig.funcs import shape_source
from argmap.signature import KernelSignature

MAPPINGS = MappingFamily("gaussian_random")


@MAPPINGS.arg_mapping("gaussian_random")
def gaussian_random(ctx: ArgumentMappingContext) -> KernelSignature:
    # Irregular: the shape source by inputs
    return KernelSignature("gaussian", (), (shape_source(ctx), "mean", "std", "seed", "dtype"),
                           ("Out",))
