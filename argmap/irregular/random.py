"""Irregular mappings: random ops (Paddle's uniform_random_sig.cc, gaussian_random_sig.cc,
randint_sig.cc): the kernel and the shape source depend on attributes and inputs."""

from __future__ import annotations

from argmap.context import ArgumentMappingContext
from argmap.registry import MappingFamily
from argmap.signature import UNREGISTERED, KernelSignature

FAMILY = MappingFamily("random")


def _shape(ctx: ArgumentMappingContext) -> str:
    """ShapeTensorList > ShapeTensor (only when ``shape`` is empty) > shape."""
    if ctx.input_size("ShapeTensorList") > 0:
        return "ShapeTensorList"
    if ctx.has_input("ShapeTensor") and not ctx.attr("shape"):
        return "ShapeTensor"
    return "shape"


@FAMILY.arg_mapping("uniform_random", attr_values={"diag_num": (0, 2)})
def uniform_random(ctx: ArgumentMappingContext) -> KernelSignature:
    # Irregular: uniform_raw when diag_num is set, and the shape source by inputs
    if not ctx.is_dense_tensor_output("Out"):
        return UNREGISTERED
    shape = _shape(ctx)
    if ctx.attr("diag_num"):
        return KernelSignature("uniform_raw", (), (shape, "dtype", "min", "max", "seed",
                                                   "diag_num", "diag_step", "diag_val"),
                               ("Out",))
    return KernelSignature("uniform", (), (shape, "dtype", "min", "max", "seed"), ("Out",))


@FAMILY.arg_mapping("gaussian_random")
def gaussian_random(ctx: ArgumentMappingContext) -> KernelSignature:
    # Irregular: the shape source by inputs
    return KernelSignature("gaussian", (), (_shape(ctx), "mean", "std", "seed", "dtype"),
                           ("Out",))


@FAMILY.arg_mapping("randint", attr_values={"seed": (0, 5)})
def randint(ctx: ArgumentMappingContext) -> KernelSignature:
    # Irregular: randint_with_seed when seed is set (Paddle passes seed, dtype to a kernel
    # that takes dtype, seed: see phi/kernels/random_ops.randint_with_seed)
    shape = _shape(ctx)
    if ctx.attr("seed"):
        return KernelSignature("randint_with_seed", (), ("low", "high", shape, "seed", "dtype"),
                               ("Out",))
    return KernelSignature("randint", (), ("low", "high", shape, "dtype"), ("Out",))
