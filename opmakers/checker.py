"""The attribute checker: validate an OpDesc's attributes and fill in the defaults.

Paddle runs ``OpAttrChecker::Check`` when it creates an operator from an OpDesc; `check_attrs`
is its counterpart.  It returns a new dict holding every attribute of the OpProto (the six
generated ones included, even for a proto that lacks them) and every runtime attribute of the
op, in that order: the values given, converted to their canonical form (see
`opmakers.attr_types`), else the defaults.

Differences from Paddle 2.6.2, on purpose: an attribute the op does not know raises (Paddle
keeps it silently; pass ``unknown="keep"`` or ``"drop"`` to load programs of older versions
that carry removed attributes), and errors name the op, the attribute, what was expected and
what came.

The per-op work (which names exist, their converters, defaults and checkers) is computed once
per OpProto and reused: programs have thousands of ops.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import phi.core.records as records

from opmakers.attr_types import CONVERTERS, LIST_TYPES, AttrTypeMismatch, VarRef, expected_text
from opmakers.attr_types import show_value as _show
from opmakers.maker import AttrProto, OpProto, check_value, generated_attrs
from opmakers.registry import runtime_attrs_or_empty
from phi.core.errors import InvalidArgument

__all__ = ["UNKNOWN_POLICIES", "check_attrs"]

UNKNOWN_POLICIES = ("raise", "keep", "drop")


@records.frozen
class _Entry:
    proto: AttrProto
    convert: Callable[[Any], Any]
    is_list: bool


@records.frozen
class _Table:
    proto: OpProto
    runtime: tuple[AttrProto, ...]
    entries: dict[str, _Entry]
    order: tuple[tuple[str, _Entry], ...]


# id(proto) -> its tables (one per runtime attribute list it was checked with).  A table holds
# its proto, so the id cannot be reused by another object while the table is cached.
_TABLES: dict[int, list[_Table]] = {}


def _table_for(proto: OpProto, runtime: tuple[AttrProto, ...]) -> _Table:
    tables = _TABLES.setdefault(id(proto), [])
    for table in tables:
        if table.proto is proto and (table.runtime is runtime or table.runtime == runtime):
            return table
    entries: dict[str, _Entry] = {}
    generated = generated_attrs(proto.type)
    for attr in (*proto.attrs, *generated, *runtime):
        if attr.name not in entries:  # the proto's declaration wins over a runtime twin
            entries[attr.name] = _Entry(attr, CONVERTERS[attr.type], attr.type in LIST_TYPES)
    table = _Table(proto, runtime, entries, tuple(entries.items()))
    tables.append(table)
    return table


#: attributes Paddle's own program passes write onto ops whose OpProto does not declare them;
#: Paddle's OpDesc keeps them and programs saved after the pass carry them (the bfloat16 AMP
#: rewrite, decorate_bf16, sets mkldnn_data_type="bfloat16" on mul), so they are accepted and
#: kept on every op (a deliberate exception to "unknown attributes raise", docs/programs.md)
PASS_ATTRS = frozenset({"mkldnn_data_type", "is_test"})  # is_test: Paddle Inference's
# is_test_pass sets it on the ops of its list (softplus, relu, ...) whether or not they declare it

#: ops that Paddle Inference's oneDNN passes write by copying the OpDesc of the op they replace
#: (conv2d -> fused_conv2d, matmul / matmul_v2 -> fused_matmul, elementwise_* -> fused_*,
#: softplus, transpose2): the saved program carries that op's whole attribute map (matmul's
#: alpha / transpose_X, elementwise_add's Scale_x, use_mkldnn, use_quantizer, is_test ...),
#: which Paddle keeps as runtime attributes.  Their unknown attributes are kept.
ONEDNN_PASS_OPS = frozenset({
    "fused_conv2d", "fused_conv3d", "fused_matmul", "fused_elementwise_add",
    "fused_elementwise_sub", "fused_elementwise_mul", "fused_elementwise_div", "fused_softplus",
    "fused_transpose", "quantize", "dequantize", "requantize"})


def check_attrs(proto: OpProto, attrs: Mapping[str, Any],
                runtime_attrs: Sequence[AttrProto] | None = None, *,
                unknown: str = "raise") -> dict[str, Any]:
    """Check `attrs` against `proto` and return a new dict with every default filled in.

    `runtime_attrs`: the op's runtime attributes; None looks up those registered for
    ``proto.type`` (none for an unregistered op); pass ``()`` for none.  `unknown`: what to do
    with an attribute neither the proto nor the runtime attributes declare: ``"raise"``
    (default), ``"keep"`` it unchanged at the end of the result, or ``"drop"`` it.
    Raises InvalidArgument naming the op and the attribute for an unknown attribute, a value of
    the wrong type, a missing required attribute or a value its checker refuses.
    """
    if unknown not in UNKNOWN_POLICIES:
        raise InvalidArgument(f"unknown={unknown!r}: expected one of {UNKNOWN_POLICIES}")
    if runtime_attrs is None:
        runtime = runtime_attrs_or_empty(proto.type)
    else:
        runtime = runtime_attrs if isinstance(runtime_attrs, tuple) else tuple(runtime_attrs)
    table = _table_for(proto, runtime)
    entries = table.entries
    extra: dict[str, Any] = {}
    for name in attrs:
        if name not in entries:
            if name in PASS_ATTRS or proto.type in ONEDNN_PASS_OPS:  # written by passes: kept
                extra[name] = attrs[name]
                continue
            if unknown == "raise":
                raise InvalidArgument(_unknown_message(table, name))
            if unknown == "keep":
                extra[name] = attrs[name]

    out: dict[str, Any] = {}
    for name, entry in table.order:
        if name in attrs:
            out[name] = _checked(proto.type, entry, attrs[name])
        else:
            default = entry.proto.default
            if entry.proto.required:
                raise InvalidArgument(
                    f"attribute {name!r} of operator {proto.type} is required "
                    f"({expected_text(entry.proto.type)}, no default) but was not set")
            out[name] = list(default) if entry.is_list else default
    out.update(extra)
    return out


def _checked(op_type: str, entry: _Entry, value: Any) -> Any:
    attr = entry.proto
    if attr.support_tensor and _is_var_value(value, entry.is_list):
        return list(value) if entry.is_list and not isinstance(value, VarRef) else value
    try:
        converted = entry.convert(value)
    except AttrTypeMismatch as exc:
        detail = f": {exc}" if str(exc) else ""
        raise InvalidArgument(
            f"attribute {attr.name!r} of operator {op_type} expects "
            f"{expected_text(attr.type)}, but got {_show(value)}{detail}") from None
    if attr.checks:
        problem = check_value(attr.checks, attr.type, converted)
        if problem is not None:
            raise InvalidArgument(
                f"attribute {attr.name!r} of operator {op_type} must be {problem}, "
                f"but got {converted!r}")
    return converted


def _is_var_value(value: Any, is_list: bool) -> bool:
    if isinstance(value, VarRef):
        return True  # VAR: one Variable holds the whole value (a list for list types)
    # VARS: a list of one-element Variables
    return (is_list and isinstance(value, (list, tuple)) and len(value) > 0
            and all(isinstance(v, VarRef) for v in value))


def _unknown_message(table: _Table, name: str) -> str:
    import difflib

    proto_names = [a.name for a in table.proto.attrs]
    runtime_names = [a.name for a in table.runtime if a.name not in proto_names]
    close = difflib.get_close_matches(name, list(table.entries), n=3)
    hint = f" Did you mean {', '.join(repr(c) for c in close)}?" if close else ""
    runtime_text = f"; runtime attributes: {', '.join(runtime_names)}" if runtime_names else ""
    return (f"operator {table.proto.type} has no attribute {name!r}.{hint} "
            f"Its attributes: {', '.join(proto_names)}{runtime_text}")
