"""Pinning ops to one side of the bridge: fluid or phi kernels only.

Sources, first match wins: an explicit mapping given to the Executor (or ``run --pin``), then
``FLAGS_kernel_pins`` (environment or ``phi.set_flags``), e.g. ``"relu=fluid,mul=phi"`` or
``"*=fluid"`` (``*`` pins every op).  A pin to a side that has no kernel for the op is refused
when the program is planned (``check_pin``), never turned into a silent wrong answer.
"""

from __future__ import annotations

from collections.abc import Mapping

from phi import flags
from phi.core.errors import InvalidArgument, PreconditionNotMet

__all__ = ["SIDES", "parse_pins", "resolve_pin", "check_pin"]

SIDES = ("phi", "fluid")
_FLAG = "FLAGS_kernel_pins"
flags.define_flag(_FLAG, str, "", "Pin op types to one kernel side: 'relu=fluid,mul=phi' or "
                                  "'*=fluid'.")


def parse_pins(text: str | Mapping[str, str] | None) -> dict[str, str]:
    """``"relu=fluid,mul=phi"`` (or a mapping) -> ``{"relu": "fluid", "mul": "phi"}``."""
    if not text:
        return {}
    items = text.items() if isinstance(text, Mapping) else (
        part.split("=", 1) if "=" in part else (part, "")
        for part in (p.strip() for p in text.split(",")) if part)
    pins = {}
    for op_type, side in items:
        op_type, side = op_type.strip(), side.strip().lower()
        if side not in SIDES:
            raise InvalidArgument(f"kernel pin `{op_type}={side}`: the side must be one of "
                                  f"{', '.join(SIDES)}.")
        pins[op_type] = side
    return pins


_FLAG_CACHE: dict[str, dict[str, str]] = {}


def resolve_pin(op_type: str, explicit: Mapping[str, str] | None = None) -> str | None:
    """The side ``op_type`` is pinned to, or None."""
    for table in (explicit or {}, _flag_pins()):
        side = table.get(op_type) or table.get("*")
        if side:
            return side
    return None


def _flag_pins() -> dict[str, str]:
    text = flags.FLAGS[_FLAG]
    found = _FLAG_CACHE.get(text)
    if found is None:
        found = _FLAG_CACHE[text] = parse_pins(text)
    return found


def check_pin(op, side: str, label: str) -> None:
    """Refuse a pin to a side without any kernel for ``op`` (plan time)."""
    import argmap
    from phi.core.registry import kernel_factory

    from fluid_compat.operators.context import CompileTimeArgumentMappingContext
    from fluid_compat.operators.fluid_kernels.registry import has_fluid_kernel

    if side == "fluid":
        if not has_fluid_kernel(op.type):
            raise PreconditionNotMet(f"{label} is pinned to fluid, but `{op.type}` has no fluid "
                                     "kernel.")
        return
    sig = None
    if argmap.has_compatible_phi_kernel(op.type):
        sig = argmap.get_kernel_signature(op.type, CompileTimeArgumentMappingContext(op))
    if sig is None or not kernel_factory().has_kernel(sig.name):
        raise PreconditionNotMet(f"{label} is pinned to phi, but `{op.type}` has no phi "
                                 "kernel" + (f" (`{sig.name}` is not registered)." if sig
                                             else "."))
