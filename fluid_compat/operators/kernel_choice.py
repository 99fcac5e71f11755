"""The kernel decision of one op: ``KernelChoice`` (made by ``dispatch.decide`` once per op
instance and input signature, replayed by ``dispatch.compute``, the runners, the compiled
segments and the fused steps) and ``generation``, the registries' state a choice was made in
(a choice of an older generation is decided again)."""

from __future__ import annotations

from fluid_compat.operators.fluid_kernels.registry import FLUID_REGISTRY_GENERATION
from phi.core.registry import kernel_factory

__all__ = ["KernelChoice", "generation"]


class KernelChoice:
    """The decision for one (op instance, input signature): made once, replayed after."""

    __slots__ = (
        "attr_builders",
        "attr_values",
        "dev_ctx",
        "expected",
        "fallback",
        "fluid_kernel",
        "generation",
        "infer",
        "input_slots",
        "is_phi",
        "kernel_type",
        "outputs",
        "phi_kernel",
        "place",
        "records",
        "signature",
        "transforms",
    )

    def __str__(self) -> str:
        where = "phi" if self.is_phi else "fluid"
        kernel = self.phi_kernel.key if self.is_phi else self.fluid_kernel.kernel_type
        fb = " (CPU fallback)" if self.fallback else ""
        return f"{where} kernel {kernel}{fb}"


def generation() -> tuple[int, int]:
    """The generations of the phi and the fluid kernel registries (bumped by every
    registration): a KernelChoice is current while this is its ``generation``."""
    return (kernel_factory().generation, FLUID_REGISTRY_GENERATION[0])
