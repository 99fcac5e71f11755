"""The OpMaker DSL and the records it produces (Paddle's ``OpProtoAndCheckerMaker``).

An op definition is a function that receives an `OpMaker` and declares the op's slots and
attributes, in order, as Paddle's ``Make()`` methods do::

    @FAMILY.op("scale")
    def scale(m: OpMaker) -> None:
        m.add_input("X")
        m.add_input("ScaleTensor").as_dispensable()
        m.add_output("Out")
        m.add_attr("scale", AttrType.FLOAT, default=1.0)
        m.add_attr("bias", AttrType.FLOAT, default=0.0)
        m.add_attr("bias_after_scale", AttrType.BOOLEAN, default=True)
        m.add_runtime_attr("use_mkldnn", AttrType.BOOLEAN, default=False)

`OpMaker.build` freezes the declarations into an `OpProto` (with the six generated attributes
``op_role`` ... ``with_quant_attr`` appended, as Paddle appends them to every op) and the op's
runtime ("extra") attributes, which in Paddle 2.6 are not part of the OpProto but are written
into OpDescs and filled with their defaults.

Attribute checkers (`InSet`, `Compare`) are records too, so that a proto can be compared,
hashed and printed; `opmakers.checker` applies them.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable
from typing import Any

import phi.core.records as records

from opmakers.attr_types import (
    LIST_TYPES,
    AttrType,
    AttrTypeMismatch,
    VarRef,
    coerce,
    expected_text,
    show_value,
)
from phi.core.errors import AlreadyExists, InvalidArgument, NotFound

__all__ = [
    "GENERATED_ATTR_NAMES",
    "OP_ROLES",
    "REQUIRED",
    "AttrBuilder",
    "AttrCheck",
    "AttrProto",
    "AttrType",
    "Compare",
    "InSet",
    "OpDef",
    "OpFamily",
    "OpMaker",
    "OpProto",
    "VarBuilder",
    "VarProto",
    "VarRef",
    "check_value",
    "generated_attrs",
]


class _Required:
    """Type of `REQUIRED` (one instance): the default of an attribute that has none."""

    def __repr__(self) -> str:
        return "REQUIRED"

    def __reduce__(self) -> str:
        return "REQUIRED"  # pickles as the module-level singleton


#: Marks an attribute without default: an OpDesc must set it.
REQUIRED: Any = _Required()


def _freeze(value: Any) -> Any:
    """Lists become tuples so that records stay immutable and hashable."""
    return tuple(value) if isinstance(value, list) else value


# ---------------------------------------------------------------------------------------------
# Checkers
# ---------------------------------------------------------------------------------------------


@records.frozen
class InSet:
    """The value (each element, for a list attribute) must be one of `values` (Paddle's
    ``InEnum``)."""

    values: tuple[Any, ...] = records.field(converter=tuple)

    def violation(self, value: Any) -> str | None:
        """None when `value` passes, else what was expected."""
        if value in self.values:
            return None
        return f"one of {list(self.values)!r}"


_COMPARISONS: dict[str, tuple[str, Callable[[Any, Any], bool]]] = {
    ">": ("greater than", lambda v, b: v > b),
    ">=": ("greater than or equal to", lambda v, b: v >= b),
    "<": ("less than", lambda v, b: v < b),
    "<=": ("less than or equal to", lambda v, b: v <= b),
}


@records.frozen
class Compare:
    """The value (each element, for a list attribute) must compare with `bound` (Paddle's
    ``GreaterThan`` / ``EqualGreaterThan`` / ``LessThan`` / ``EqualLessThan``)."""

    op: str = records.field(validator=records.in_(_COMPARISONS))
    bound: float

    def violation(self, value: Any) -> str | None:
        """None when `value` passes, else what was expected."""
        text, passes = _COMPARISONS[self.op]
        return None if passes(value, self.bound) else f"{text} {self.bound!r}"


AttrCheck = InSet | Compare


def check_value(checks: tuple[AttrCheck, ...], attr_type: AttrType, value: Any) -> str | None:
    """Apply `checks` to an already converted value: None, or what was expected."""
    items = value if attr_type in LIST_TYPES else (value,)
    for check in checks:
        for item in items:
            if isinstance(item, VarRef):  # a Variable's value is only known at run time
                continue
            problem = check.violation(item)
            if problem is not None:
                return problem
    return None


# ---------------------------------------------------------------------------------------------
# Records
# ---------------------------------------------------------------------------------------------


def _name(instance: Any, attribute: records.Attribute, value: str) -> None:
    if not isinstance(value, str) or not value:
        raise InvalidArgument(f"{type(instance).__name__}.{attribute.name} must be a non-empty str")


@records.frozen
class VarProto:
    """One input or output slot of an OpProto (``OpProto.Var``)."""

    name: str = records.field(validator=_name)
    comment: str = ""
    duplicable: bool = False
    intermediate: bool = False
    dispensable: bool = False
    extra: bool = False
    quant: bool = False


@records.frozen
class AttrProto:
    """One attribute of an OpProto (``OpProto.Attr``) with its default and checkers.

    `default` is the canonical value (lists as tuples, FLOAT as float32 values) or `REQUIRED`.
    """

    name: str = records.field(validator=_name)
    type: AttrType = records.field(converter=AttrType)
    default: Any = records.field(default=REQUIRED, converter=_freeze)
    comment: str = ""
    generated: bool = False
    extra: bool = False
    quant: bool = False
    support_tensor: bool = False
    checks: tuple[AttrCheck, ...] = records.field(default=(), converter=tuple)

    @property
    def required(self) -> bool:
        """True when an OpDesc must set this attribute (it has no default)."""
        return self.default is REQUIRED


def _unique(kind: str) -> Callable[[Any, records.Attribute, tuple[Any, ...]], None]:
    def validate(instance: Any, attribute: records.Attribute, value: tuple[Any, ...]) -> None:
        seen: set[str] = set()
        for item in value:
            if item.name in seen:
                raise InvalidArgument(f"op {instance.type}: {kind} {item.name!r} declared twice")
            seen.add(item.name)

    return validate


@records.frozen
class OpProto:
    """The description of a legacy op (``paddle.framework.proto.OpProto``)."""

    type: str = records.field(validator=_name)
    inputs: tuple[VarProto, ...] = records.field(converter=tuple, validator=_unique("input"))
    outputs: tuple[VarProto, ...] = records.field(converter=tuple, validator=_unique("output"))
    attrs: tuple[AttrProto, ...] = records.field(converter=tuple, validator=_unique("attribute"))
    comment: str = ""

    def input(self, name: str) -> VarProto:
        """The input slot `name`; NotFound lists the slots."""
        return self._find(self.inputs, "input", name)

    def output(self, name: str) -> VarProto:
        """The output slot `name`; NotFound lists the slots."""
        return self._find(self.outputs, "output", name)

    def attr(self, name: str) -> AttrProto:
        """The attribute `name`; NotFound lists the attributes."""
        return self._find(self.attrs, "attribute", name)

    @property
    def input_names(self) -> tuple[str, ...]:
        return tuple(v.name for v in self.inputs)

    @property
    def output_names(self) -> tuple[str, ...]:
        return tuple(v.name for v in self.outputs)

    @property
    def attr_names(self) -> tuple[str, ...]:
        return tuple(a.name for a in self.attrs)

    def _find(self, items: tuple[Any, ...], kind: str, name: str) -> Any:
        for item in items:
            if item.name == name:
                return item
        known = ", ".join(i.name for i in items) or "none"
        raise NotFound(f"operator {self.type} has no {kind} {name!r}; its {kind}s: {known}")


# ---------------------------------------------------------------------------------------------
# The DSL
# ---------------------------------------------------------------------------------------------


class VarBuilder:
    """Declares one slot; the ``as_*`` marks return the builder, so they chain."""

    def __init__(self, name: str, comment: str = "") -> None:
        self._fields: dict[str, Any] = {"name": name, "comment": comment}

    def as_duplicable(self) -> VarBuilder:
        """The slot takes a list of variables."""
        self._fields["duplicable"] = True
        return self

    def as_dispensable(self) -> VarBuilder:
        """The slot may be absent or empty."""
        self._fields["dispensable"] = True
        return self

    def as_intermediate(self) -> VarBuilder:
        """An output kept for the backward pass (e.g. XShape), not returned by the API."""
        self._fields["intermediate"] = True
        return self

    def as_extra(self) -> VarBuilder:
        """Only used by special kernels (oneDNN, cuDNN, training)."""
        self._fields["extra"] = True
        return self

    def as_quant(self) -> VarBuilder:
        """Only used by quantization."""
        self._fields["quant"] = True
        return self

    def build(self) -> VarProto:
        return VarProto(**self._fields)


class AttrBuilder:
    """Declares one attribute; marks and checkers return the builder, so they chain."""

    def __init__(self, op_type: str, name: str, attr_type: AttrType, default: Any,
                 comment: str = "") -> None:
        self._op_type = op_type
        self._type = AttrType(attr_type)
        self._fields: dict[str, Any] = {
            "name": name, "type": self._type, "default": default, "comment": comment,
        }
        self._checks: list[AttrCheck] = []

    def as_extra(self) -> AttrBuilder:
        """Not passed to phi kernels; only read by special kernels or the framework."""
        self._fields["extra"] = True
        return self

    def as_quant(self) -> AttrBuilder:
        """Only used by quantization."""
        self._fields["quant"] = True
        return self

    def as_generated(self) -> AttrBuilder:
        """Set by the framework rather than by the user."""
        self._fields["generated"] = True
        return self

    def support_tensor(self) -> AttrBuilder:
        """The OpDesc may hold a Variable (`VarRef`) instead of a value."""
        self._fields["support_tensor"] = True
        return self

    def in_set(self, values: Iterable[Any]) -> AttrBuilder:
        """The value (each element of a list) must be one of `values`."""
        elem_type = LIST_TYPES.get(self._type, self._type)
        self._checks.append(InSet(tuple(self._coerce(elem_type, v) for v in values)))
        return self

    def greater_than(self, bound: float) -> AttrBuilder:
        self._checks.append(Compare(">", bound))
        return self

    def greater_equal(self, bound: float) -> AttrBuilder:
        self._checks.append(Compare(">=", bound))
        return self

    def less_than(self, bound: float) -> AttrBuilder:
        self._checks.append(Compare("<", bound))
        return self

    def less_equal(self, bound: float) -> AttrBuilder:
        self._checks.append(Compare("<=", bound))
        return self

    def build(self) -> AttrProto:
        fields = dict(self._fields, checks=tuple(self._checks))
        if fields["default"] is not REQUIRED:
            fields["default"] = self._coerce(self._type, fields["default"])
            problem = check_value(fields["checks"], self._type, fields["default"])
            if problem is not None:
                raise InvalidArgument(
                    f"op {self._op_type}: default {fields['default']!r} of attribute "
                    f"{fields['name']!r} fails its own checker (expected {problem})")
        return AttrProto(**fields)

    def _coerce(self, attr_type: AttrType, value: Any) -> Any:
        try:
            return coerce(attr_type, value)
        except AttrTypeMismatch as exc:
            raise InvalidArgument(
                f"op {self._op_type}: attribute {self._fields['name']!r} is declared "
                f"{expected_text(self._type)}, but its definition gives {show_value(value)}"
                + (f": {exc}" if str(exc) else "")) from None


#: Paddle's ``OpRole`` values accepted by the ``op_role`` checker (``op_proto_maker.cc``):
#: Forward, Backward, Optimize, RPC, Dist, LRSched, Loss|Forward, Loss|Backward,
#: Optimize|LRSched, NotSpecified.
OP_ROLES: tuple[int, ...] = (0x0000, 0x0001, 0x0002, 0x0004, 0x0008, 0x0010, 0x0100, 0x0101,
                             0x0012, 0x1000)


def generated_attrs(op_type: str) -> tuple[AttrProto, ...]:
    """The six attributes the framework adds to every op (`op_type` only names it in errors)."""
    # Appended to every op by OpProtoAndCheckerMaker::operator(), in this order, all extra.
    decls = [
        AttrBuilder(op_type, "op_role", AttrType.INT, 0x1000, "The role of this operator")
        .in_set(OP_ROLES),
        AttrBuilder(op_type, "op_role_var", AttrType.STRINGS, [], "Optimized for variable"),
        AttrBuilder(op_type, "op_namescope", AttrType.STRING, "", "Operator name with namescope."),
        AttrBuilder(op_type, "op_callstack", AttrType.STRINGS, [], "Callstack for Op Creation."),
        AttrBuilder(op_type, "op_device", AttrType.STRING, "", "Device type of this operator."),
        AttrBuilder(op_type, "with_quant_attr", AttrType.BOOLEAN, False,
                    "Whether the operator has attributes used by quantization. "),
    ]
    return tuple(d.as_extra().build() for d in decls)


#: The attributes the framework adds to every op, in Paddle's order.
GENERATED_ATTR_NAMES: tuple[str, ...] = tuple(a.name for a in generated_attrs("any"))


class OpMaker:
    """Collects the declarations of one op (Paddle's ``OpProtoAndCheckerMaker``)."""

    def __init__(self, op_type: str, comment: str = "") -> None:
        self.op_type = op_type
        self.comment = comment
        self._inputs: list[VarBuilder] = []
        self._outputs: list[VarBuilder] = []
        self._attrs: list[AttrBuilder] = []
        self._runtime_attrs: list[AttrBuilder] = []

    def add_input(self, name: str, comment: str = "") -> VarBuilder:
        """Declare the next input slot."""
        builder = VarBuilder(name, comment)
        self._inputs.append(builder)
        return builder

    def add_output(self, name: str, comment: str = "") -> VarBuilder:
        """Declare the next output slot."""
        builder = VarBuilder(name, comment)
        self._outputs.append(builder)
        return builder

    def add_attr(self, name: str, attr_type: AttrType, default: Any = REQUIRED,
                 comment: str = "") -> AttrBuilder:
        """Declare the next attribute; without `default` it is required."""
        if default is None:
            raise InvalidArgument(f"op {self.op_type}: attribute {name!r}: None is not a "
                                  "default; leave `default` out for a required attribute")
        builder = AttrBuilder(self.op_type, name, attr_type, default, comment)
        self._attrs.append(builder)
        return builder

    def add_runtime_attr(self, name: str, attr_type: AttrType, default: Any,
                         comment: str = "") -> AttrBuilder:
        """Declare a runtime ("extra") attribute: not in the OpProto, filled with `default`."""
        builder = AttrBuilder(self.op_type, name, attr_type, default, comment).as_extra()
        self._runtime_attrs.append(builder)
        return builder

    def build(self) -> tuple[OpProto, tuple[AttrProto, ...]]:
        """The OpProto (generated attributes appended) and the runtime attributes."""
        own = [b.build() for b in self._attrs]
        own_names = {a.name for a in own}
        clash = own_names.intersection(GENERATED_ATTR_NAMES)
        if clash:
            raise InvalidArgument(f"op {self.op_type}: attributes {sorted(clash)} are added to "
                                  "every op by the framework; do not declare them")
        proto = OpProto(
            type=self.op_type,
            inputs=[b.build() for b in self._inputs],
            outputs=[b.build() for b in self._outputs],
            attrs=own + list(generated_attrs(self.op_type)),
            comment=self.comment,
        )
        runtime = tuple(b.build() for b in self._runtime_attrs)
        names = [a.name for a in runtime]
        if len(set(names)) != len(names):
            raise InvalidArgument(f"op {self.op_type}: a runtime attribute is declared twice")
        by_name = {a.name: a for a in proto.attrs}
        for attr in runtime:
            # Paddle lists a few attributes in both places (reshape2's use_mkldnn): they must agree.
            twin = by_name.get(attr.name)
            if twin is not None and (twin.type, twin.default) != (attr.type, attr.default):
                raise InvalidArgument(
                    f"op {self.op_type}: runtime attribute {attr.name!r} disagrees with the "
                    f"OpProto attribute of that name ({attr.type.name}={attr.default!r} vs "
                    f"{twin.type.name}={twin.default!r})")
        return proto, runtime


@records.frozen
class OpDef:
    """One op definition: its type and the function that declares it to an `OpMaker`."""

    type: str = records.field(validator=_name)
    family: str
    define: Callable[[OpMaker], None] = records.field(eq=False)

    def make(self) -> tuple[OpProto, tuple[AttrProto, ...]]:
        """Run the definition: the OpProto and the runtime attributes."""
        maker = OpMaker(self.type, inspect.getdoc(self.define) or "")
        self.define(maker)
        return maker.build()


class OpFamily:
    """An ordered group of op definitions written in the DSL (custom ops of a plug-in).

    ``@FAMILY.op("my_op")`` records a definition in this family (nowhere else); pass
    ``family.definitions()`` to `opmakers.register_op`.  Defining an op twice raises.
    """

    def __init__(self, name: str) -> None:
        self.name = name
        self._defs: dict[str, OpDef] = {}

    def op(self, op_type: str) -> Callable[[Callable[[OpMaker], None]], OpDef]:
        """Decorator: record the decorated function as the definition of `op_type`."""

        def record(define: Callable[[OpMaker], None]) -> OpDef:
            if op_type in self._defs:
                raise AlreadyExists(f"op {op_type} is defined twice in family {self.name}")
            op_def = OpDef(op_type, self.name, define)
            self._defs[op_type] = op_def
            return op_def

        return record

    def definitions(self) -> tuple[OpDef, ...]:
        """The definitions in the order they were written."""
        return tuple(self._defs.values())

    def __repr__(self) -> str:
        return f"OpFamily({self.name!r}, {len(self._defs)} ops)"
