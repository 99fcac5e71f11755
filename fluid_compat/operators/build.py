"""Making operators from op descriptions, checked before anything runs.

``make_operator(index, op_desc)`` creates the operator of one OpDesc (attributes checked and
runtime attributes filled) and refuses, with Unimplemented naming the op's index and type, an op
that no kernel and no operator class implements.  Control-flow operators get their block so that
they can build their sub-blocks' operators the same way.
"""

from __future__ import annotations

import argmap
from phi.core.errors import NotFound, PhiError, Unavailable, Unimplemented
from phi.core.registry import kernel_factory

from fluid_compat.framework.op_registry import create_op, get_op_info
from fluid_compat.operators.context import CompileTimeArgumentMappingContext
from fluid_compat.operators.fluid_kernels.registry import has_fluid_kernel
from fluid_compat.operators.pinning import check_pin, resolve_pin
from fluid_compat.operators.unavailable import unavailable_message, unavailable_reason
from fluid_compat.operators.with_kernel import OperatorWithKernel

__all__ = ["make_operator", "check_implemented"]


def make_operator(index: int, op_desc, where: str = "", *, pins=None, shadow=None):
    """The operator of ``op_desc`` (op #``index`` of its block), checked; ``pins`` (op type ->
    side) and a ShadowRecorder apply to it and to the ops of its sub-blocks."""
    label = f"{where}op #{index} `{op_desc.type}`"
    try:
        get_op_info(op_desc.type)
    except NotFound as exc:
        raise NotFound(f"{label}: {exc.message}") from None
    reason = unavailable_reason(op_desc.type)
    if reason is not None and not has_fluid_kernel(op_desc.type):
        # an op that cannot run here at all says so first, whatever its attributes
        raise Unavailable(unavailable_message(label, reason) + " Nothing was run.")
    try:
        op = create_op(op_desc.type, {k: list(v) for k, v in op_desc.inputs.items()},
                       {k: list(v) for k, v in op_desc.outputs.items()}, dict(op_desc.attrs))
    except PhiError as exc:
        raise type(exc)(f"{label}: {exc.message}") from None
    op.label = label  # where the op sits (errors of operator classes, the profiler)
    bind = getattr(op, "bind_block", None)
    if bind is not None:
        bind(op_desc.block, label, pins=pins, shadow=shadow)
    check_implemented(op, label, op_desc.block)
    if isinstance(op, OperatorWithKernel):
        op.index = index
        op.pin = resolve_pin(op.type, pins)
        if op.pin is not None:
            check_pin(op, op.pin, label)
        op.shadow = shadow
    return op


def check_implemented(op, label: str, block=None) -> None:
    """Refuse an op that nothing implements; ``block`` (the op's BlockDesc) lets the mapping
    see its variables' declared types (a sparse op's kernel depends on SPARSE_COO / _CSR)."""
    if not isinstance(op, OperatorWithKernel):
        return  # an operator class with its own run_impl
    if has_fluid_kernel(op.type):
        return
    reason = unavailable_reason(op.type)
    if reason is not None:
        raise Unavailable(unavailable_message(label, reason) + " Nothing was run.")
    if argmap.has_compatible_phi_kernel(op.type):
        sig = argmap.get_kernel_signature(op.type, CompileTimeArgumentMappingContext(op, block))
        if sig is not None and kernel_factory().has_kernel(sig.name):
            return
    raise Unimplemented(
        f"{label} has no kernel in this bridge (neither a phi kernel nor a fluid kernel is "
        "registered for it); nothing was run."
    )
