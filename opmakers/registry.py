"""The registry of legacy op descriptions: op type -> OpProto and runtime attributes.

Its contents are every op of ``opmakers/op_defs.json`` (Paddle 2.6.2's 784 legacy ops, read on
the first lookup: `opmakers.data`) plus what `register_op` adds, e.g. a custom op of a
plug-in.  Each proto is built from its definition on first use and then kept.  Defining or
registering an op type twice raises AlreadyExists; a failed lookup raises NotFound naming the
op and the registered types closest to it.
"""

from __future__ import annotations

import threading

from opmakers.data import load_op_entries
from opmakers.data import op_def as _make_op_def
from opmakers.maker import AttrProto, OpDef, OpProto
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

_CUSTOM: dict[str, OpDef] = {}
# the data file's entries and the custom ones, filled on first use; a data entry is
# ``(family, JSON)`` until its OpDef is first asked for (`get_op_def`)
_DEFS: dict[str, OpDef | tuple[str, str]] = {}
_BUILT: dict[str, tuple[OpProto, tuple[AttrProto, ...]]] = {}
_LOCK = threading.Lock()


def _defs() -> dict[str, OpDef | tuple[str, str]]:
    if not _DEFS:
        with _LOCK:
            if not _DEFS:
                _DEFS.update({**load_op_entries(), **_CUSTOM})
    return _DEFS


def register_op(op_def: OpDef) -> None:
    """Add a definition (a custom op); AlreadyExists if its type is registered."""
    defs = _defs()
    with _LOCK:
        previous = defs.get(op_def.type)
        if previous is not None:
            family = previous.family if isinstance(previous, OpDef) else previous[0]
            raise AlreadyExists(f"op {op_def.type} is defined by family {family} and "
                                f"again by {op_def.family}")
        _CUSTOM[op_def.type] = op_def
        defs[op_def.type] = op_def


def has_op(op_type: str) -> bool:
    """Whether `op_type` is registered."""
    return op_type in _defs()


def all_op_types() -> tuple[str, ...]:
    """Every registered op type, sorted."""
    return tuple(sorted(_defs()))


def get_op_def(op_type: str) -> OpDef:
    """The definition of `op_type`; NotFound names close matches."""
    found = _defs().get(op_type)
    if found is None:
        raise NotFound(_not_found_message(op_type))
    if not isinstance(found, OpDef):
        # made once per entry in practice; two threads racing make equal OpDefs
        found = _DEFS[op_type] = _make_op_def(op_type, found)
    return found


def _built(op_type: str) -> tuple[OpProto, tuple[AttrProto, ...]]:
    built = _BUILT.get(op_type)
    if built is None:
        built = get_op_def(op_type).make()  # the same value whichever thread builds it first
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
    return _built(op_type)[1] if op_type in _defs() else ()


def _not_found_message(op_type: str) -> str:
    import difflib  # only for a hint (a cold-start import)

    close = difflib.get_close_matches(op_type, list(_defs()), n=5, cutoff=0.6)
    hint = f" Close matches: {', '.join(close)}." if close else ""
    return (f"operator {op_type!r} is not registered in opmakers ({len(_defs())} ops are).{hint} "
            "Use opmakers.all_op_types() to list them.")
