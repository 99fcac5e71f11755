"""The legacy op registry: op type -> OpInfo (proto, checker, operator class, hooks).

OpInfo is built on first use from the op's OpProto (opmakers) and the per-op behaviour declared
in fluid_compat.operators (operator class, GetExpectedKernelType / GetKernelTypeForVar overrides,
InferShape for fluid-only ops).  ``create_op`` checks an op description against its OpInfo:
attributes checked and defaults filled, slots checked; errors name op, slot and attribute.

The registry imports no operator: fluid_compat.operators declares its ops' hooks here when
imported and installs the rest of its part with ``install_operators`` (the operator class of
ops that name none, and the loader of the fluid kernel modules that declare an op type);
importing the ``fluid_compat`` package imports fluid_compat.operators.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from phi.core import records

import opmakers
from opmakers import OpProto, check_attrs
from opmakers.grad import foreign_maker_attrs, grad_op_proto, is_grad_op_type
from phi.core.errors import InvalidArgument, NotFound

__all__ = ["OpHooks", "OpInfo", "create_op", "declare_hooks_lazily", "declare_lazy_hooks",
           "declared_hooks",
           "get_op_info", "install_operators", "op_hooks", "registered_op_types"]


@records.define
class OpHooks:
    """Per-op behaviour that differs from OperatorWithKernel's defaults (all optional)."""

    operator_class: type | None = None
    get_expected_kernel_type: Callable | None = None  # (op, ctx) -> OpKernelType
    get_kernel_type_for_var: Callable | None = None  # (op, slot, tensor, expected) -> OpKernelType
    infer_shape: Callable | None = None  # (op, ctx) for ops without a phi InferMeta
    inplace: Mapping[str, str] = records.Factory(dict)  # output slot -> input slot sharing a var
    output_counts: Callable | None = None  # (attrs, inputs) -> {slot: n} for duplicable outputs
    # output slot -> input slot (ShareLoD), or (input slot, SAME_DIM0): only while dim 0 stays
    share_lod: Mapping[str, str | tuple] = records.Factory(dict)
    # non-dispensable input slots Paddle's op runs with empty (no check at op creation)
    may_be_empty: frozenset | None = None


_HOOKS: dict[str, OpHooks] = {}


SAME_DIM0 = "same_dim0"
"""share_lod={"Out": ("X", SAME_DIM0)}: Out keeps X's LoD only when it keeps X's first dim."""


_LAZY: dict[str, Callable[[], None]] = {}


def declare_hooks_lazily(op_types, declare: Callable[[], None]) -> None:
    """``declare()`` (which calls op_hooks for ``op_types``) runs when the OpInfo of one of
    ``op_types`` is first asked for, instead of at import (hooks that need data files)."""
    for t in op_types:
        _LAZY[t] = declare


def _run_lazy(op_type: str) -> None:
    declare = _LAZY.get(op_type)
    if declare is not None:
        for t in [t for t, d in _LAZY.items() if d is declare]:
            del _LAZY[t]
        declare()


def op_hooks(op_type: str, **kwargs) -> OpHooks:
    """Declare (or extend) the hooks of ``op_type``; returns its OpHooks."""
    hooks = _HOOKS.setdefault(op_type, OpHooks())
    for name, value in kwargs.items():
        if not hasattr(hooks, name):
            raise InvalidArgument(f"op_hooks({op_type!r}): unknown hook {name!r}.")
        if getattr(hooks, name) not in (None, {}) and getattr(hooks, name) is not value:
            raise InvalidArgument(f"op_hooks({op_type!r}): hook {name!r} is declared twice.")
        setattr(hooks, name, value)
    _INFOS.pop(op_type, None)
    return hooks


@records.frozen
class OpInfo:
    type: str
    proto: OpProto
    runtime_attrs: tuple
    hooks: OpHooks
    input_slots: frozenset[str]
    output_slots: frozenset[str]
    required_inputs: tuple[str, ...]
    is_grad: bool = False  # a grad op type: no OpProto in Paddle, attributes not checked

    @property
    def operator_class(self) -> type:
        cls = self.hooks.operator_class or _OPERATORS[0]
        if cls is None:
            raise NotFound(f"Operator `{self.type}`: no operator class is installed (the "
                           "operators install theirs when fluid_compat.operators is imported).")
        return cls


_INFOS: dict[str, OpInfo] = {}


def get_op_info(op_type: str) -> OpInfo:
    """The OpInfo of ``op_type``; NotFound with the closest known types."""
    info = _INFOS.get(op_type)
    if info is not None:
        return info
    _load_declarations(op_type)
    _run_lazy(op_type)
    if not opmakers.has_op(op_type):
        if is_grad_op_type(op_type):
            return _grad_op_info(op_type)
        import difflib  # only for a hint (a cold-start import)

        close = difflib.get_close_matches(op_type, opmakers.all_op_types(), n=3)
        hint = f" Did you mean: {', '.join(close)}?" if close else ""
        raise NotFound(f"Operator `{op_type}` is not registered.{hint}")
    proto = opmakers.get_op_proto(op_type)
    hooks = _HOOKS.get(op_type, OpHooks())
    info = OpInfo(
        type=op_type,
        proto=proto,
        runtime_attrs=tuple(opmakers.get_runtime_attrs(op_type)),
        hooks=hooks,
        input_slots=frozenset(v.name for v in proto.inputs),
        output_slots=frozenset(v.name for v in proto.outputs),
        required_inputs=tuple(v.name for v in proto.inputs if not v.dispensable and not v.extra
                              and v.name not in (hooks.may_be_empty or ())),
    )
    _INFOS[op_type] = info
    return info


def _grad_op_info(op_type: str) -> OpInfo:
    proto = grad_op_proto(op_type)
    info = OpInfo(
        type=op_type,
        proto=proto,
        runtime_attrs=(),
        hooks=_HOOKS.get(op_type, OpHooks()),
        input_slots=frozenset(v.name for v in proto.inputs),
        output_slots=frozenset(v.name for v in proto.outputs),
        required_inputs=(),
        is_grad=True,
    )
    _INFOS[op_type] = info
    return info


def registered_op_types() -> list[str]:
    return opmakers.all_op_types()


_DECLARED: dict[str, frozenset[str]] = {}


def _declared_attrs(info: OpInfo) -> frozenset[str]:
    """The attribute names of ``info``'s OpProto (cached per op type)."""
    found = _DECLARED.get(info.type)
    if found is None:
        found = _DECLARED[info.type] = frozenset(a.name for a in info.proto.attrs)
    return found


#: installed by fluid_compat.operators (install_operators): [the operator class of ops that
#: name none, the loader of the modules declaring an op type's kernels and hooks]
_OPERATORS: list = [None, None]


def install_operators(default_class: type, load_declarations: Callable[[str], None]) -> None:
    """The operator system's part of the registry (fluid_compat.operators, when imported):
    ``default_class`` runs the ops whose hooks name no operator class, and
    ``load_declarations(op_type)`` imports the modules that declare ``op_type``'s kernels
    and hooks (they load on demand) before its OpInfo is built."""
    _OPERATORS[:] = [default_class, load_declarations]
    _INFOS.clear()


def _load_declarations(op_type: str) -> None:
    load = _OPERATORS[1]
    if load is not None:
        load(op_type)


def declare_lazy_hooks() -> None:
    """Run every declaration still waiting for its ops' first use (for tools and tests that
    list every op's hooks)."""
    for op_type in list(_LAZY):
        _run_lazy(op_type)


def declared_hooks() -> dict[str, OpHooks]:
    """The hooks declared so far, by op type (a copy; for tools and tests)."""
    return dict(_HOOKS)


def create_op(
    op_type: str,
    inputs: Mapping[str, Sequence[str]],
    outputs: Mapping[str, Sequence[str]],
    attrs_: Mapping[str, object] | None = None,
    *,
    checked: bool = False,
):
    """An operator instance for one op description, checked against its OpInfo."""
    info = get_op_info(op_type)
    for label, given, known in (
        ("input", inputs, info.input_slots),
        ("output", outputs, info.output_slots),
    ):
        for slot in given:
            if slot not in known:
                import difflib  # only for a hint (a cold-start import)

                close = [k for k in sorted(known) if k.lower() == slot.lower()] or (
                    difflib.get_close_matches(slot, sorted(known), n=1))
                hint = f" Did you mean `{close[0]}`?" if close else ""
                raise InvalidArgument(
                    f"Operator `{op_type}` has no {label} slot `{slot}`.{hint} Its {label}s: "
                    f"{', '.join(sorted(known))}."
                )
    for slot in info.required_inputs:
        if not inputs.get(slot):
            raise InvalidArgument(
                f"Operator `{op_type}` needs input `{slot}`, which is missing or empty."
            )
    given = dict(attrs_ or {})
    carried = {}
    declared = _declared_attrs(info)
    if any(k not in declared for k in given):  # only then can a maker's attribute be carried
        carried = {k: given.pop(k) for k in foreign_maker_attrs(op_type) & given.keys()
                   if k not in declared}
    filled = (
        dict(attrs_ or {})
        if checked or info.is_grad
        else {**check_attrs(info.proto, given, info.runtime_attrs), **carried}
    )
    cls = info.operator_class
    return cls(
        op_type,
        {k: tuple(v) for k, v in inputs.items()},
        {k: tuple(v) for k, v in outputs.items()},
        filled,
        info,
    )
