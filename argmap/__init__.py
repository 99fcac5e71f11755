"""argmap: which phi kernel a legacy op calls, and with which of its names.

    from argmap import get_kernel_signature
    sig = get_kernel_signature("reshape2", ctx)   # ctx: an ArgumentMappingContext
    str(sig)  # 'name: reshape; inputs: X; attributes: ShapeTensor; outputs: Out, XShape'

Regular ops are declared in ``argmap/op_compat.yaml``; irregular ones have a function in
``argmap/sig/<op>.py``; the rest get the default signature from their OpProto.  `argmap_check`
verifies every possible signature against the phi kernel registry.

argmap imports phi.common, phi.core and opmakers — never fluid_compat.
"""

from __future__ import annotations

from argmap.compat import CompatEntry, CompatFileError, TensorAttr, load_compat, parse_compat
from argmap.context import ArgumentMappingContext
from argmap.default import default_signature
from argmap.registry import (
    BASE_KERNEL_NAMES,
    DEPRECATED_OP_NAMES,
    KERNELLESS_OPS,
    ArgMappingRegistry,
    MappingFamily,
    arg_mapping,
    base_kernel_name,
    default_registry,
    fluid_op_name,
    get_kernel_signature,
    has_compatible_phi_kernel,
    is_deprecated_op,
)
from argmap.signature import UNREGISTERED, KernelSignature

__all__ = [
    "BASE_KERNEL_NAMES",
    "DEPRECATED_OP_NAMES",
    "KERNELLESS_OPS",
    "UNREGISTERED",
    "ArgMappingRegistry",
    "ArgumentMappingContext",
    "CompatEntry",
    "CompatFileError",
    "KernelSignature",
    "MappingFamily",
    "Problem",
    "TensorAttr",
    "arg_mapping",
    "argmap_check",
    "base_kernel_name",
    "default_registry",
    "default_signature",
    "enumerate_mappings",
    "fluid_op_name",
    "get_kernel_signature",
    "has_compatible_phi_kernel",
    "is_deprecated_op",
    "load_compat",
    "main_argmap_check",
    "parse_compat",
]


_CHECK_NAMES = ("Problem", "argmap_check", "enumerate_mappings", "main_argmap_check")


def __getattr__(name: str):
    # the checker (argmap.check) loads when first asked for: running a program never needs it
    if name in _CHECK_NAMES:
        from argmap import check

        return getattr(check, name)
    raise AttributeError(f"module 'argmap' has no attribute {name!r}")
