"""The registry of legacy op descriptions: op type -> OpProto and runtime attributes.

Its contents are the families listed in ``opmakers.ops.FAMILIES`` (an explicit list, so they
do not depend on what else was imported) plus what `register_op` adds, e.g. a custom op of a
plug-in.  Each proto is built from its definition on first use and then kept.  Defining or
registering an op type twice raises AlreadyExists; a failed lookup raises NotFound naming the
op and the registered types closest to it.
"""

from __future__ import annotations

import difflib

from opmakers.maker import AttrProto, OpDef, OpProto
from opmakers.ops import FAMILIES
from phi.core.errors import AlreadyExists, NotFound

__all__ = [
    "all_op_types",
    "get_op_def",
    "get_op_proto",
    "get_runtime_attrs",
    "has_op",
    "register_op",
    "runtime_attrs_or_empty",
]

_DEFS: dict[str, OpDef] = {}
_BUILT: dict[str, tuple[OpProto, tuple[AttrProto, ...]]] = {}


def _add(op_def: OpDef) -> None:
    previous = _DEFS.get(op_def.type)
    if previous is not None:
        raise AlreadyExists(f"op {op_def.type} is defined by family {previous.family} and again "
                            f"by {op_def.family}")
    _DEFS[op_def.type] = op_def


for _family in FAMILIES:
    for _op_def in _family.definitions():
        _add(_op_def)


def register_op(op_def: OpDef) -> None:
    """Add a definition (a custom op); AlreadyExists if its type is registered."""
    _add(op_def)


def has_op(op_type: str) -> bool:
    """Whether `op_type` is registered."""
    return op_type in _DEFS


def all_op_types() -> tuple[str, ...]:
    """Every registered op type, sorted."""
    return tuple(sorted(_DEFS))


def get_op_def(op_type: str) -> OpDef:
    """The definition of `op_type`; NotFound names close matches."""
    op_def = _DEFS.get(op_type)
    if op_def is None:
        raise NotFound(_not_found_message(op_type))
    return op_def


def _built(op_type: str) -> tuple[OpProto, tuple[AttrProto, ...]]:
    built = _BUILT.get(op_type)
    if built is None:
        built = get_op_def(op_type).make()
        _BUILT[op_type] = built
    return built


def get_op_proto(op_type: str) -> OpProto:
    """The OpProto of `op_type`; NotFound names close matches."""
    return _built(op_type)[0]


def get_runtime_attrs(op_type: str) -> tuple[AttrProto, ...]:
    """The runtime ("extra") attributes of `op_type`, with types and defaults (may be empty).

    In Paddle 2.6 they are not part of the OpProto, but OpDescs built by ``append_op`` carry
    them and the hints of kernel selection read them (``use_cudnn``, ``use_mkldnn`` ...); they
    are never passed to phi kernels.  NotFound for an unregistered op.
    """
    return _built(op_type)[1]


def runtime_attrs_or_empty(op_type: str) -> tuple[AttrProto, ...]:
    """`get_runtime_attrs`, or ``()`` for an unregistered op type."""
    return _built(op_type)[1] if op_type in _DEFS else ()


def _not_found_message(op_type: str) -> str:
    close = difflib.get_close_matches(op_type, list(_DEFS), n=5, cutoff=0.6)
    hint = f" Close matches: {', '.join(close)}." if close else ""
    return (f"operator {op_type!r} is not registered in opmakers ({len(_DEFS)} ops are).{hint} "
            "Use opmakers.all_op_types() to list them.")
