"""Small attrs-style record classes, cheap to define (a cold-start cost).

``attrs`` costs ~25 ms to import (it pulls in ``inspect``, ``ast``, ``dis``, ``tokenize``,
``platform`` ...) and ~0.8 ms per class it defines; the two dozen records imported by
``fluid-compat run`` took ~45 ms of a cold start.  :func:`frozen` and :func:`define` make the
same classes as ``attrs.frozen`` / ``attrs.define`` for the features used here, and behave the
same way:

- fields from the class annotations, in order; a default is a plain value, :class:`Factory`
  or :func:`field` (``default``, ``factory``, ``converter``, ``validator``, ``eq``);
- ``__init__(self, <fields in order>)``: converters (defaults included) applied first, then the
  validators in field order, called as ``validator(instance, attribute, value)`` with an
  attribute that has ``.name``;
- slotted (``__slots__`` plus ``__weakref__``), ``__repr__`` ``Name(a=1, b='x')``, ``__eq__``
  over the fields with ``eq`` (NotImplemented for another class), ``__hash__`` over them when
  frozen (a mutable record with eq is unhashable; ``eq=False`` keeps identity), ``__getstate__``
  / ``__setstate__`` for pickle and copy, ``__match_args__``; a method the class defines itself
  (``__repr__``, ``__eq__``, ``__hash__``) is kept;
- frozen: setting or deleting an attribute raises ``attrs.exceptions.FrozenInstanceError``
  (attrs is imported then, for the class).

:func:`fields` and :func:`asdict` answer for these records (and for attrs classes).  The
validators ``attrs.validators`` would give are :func:`instance_of` and :func:`in_`, with
attrs' messages.  ``FLAGS_attrs_records=1`` in the environment makes every record with attrs
itself instead (the comparison baseline; read at import).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

__all__ = ["Factory", "asdict", "define", "field", "fields", "frozen", "in_", "instance_of"]

# read here, before phi.flags exists (phi.flags' own FlagDef is a record); phi.flags lists it
_USE_ATTRS = os.environ.get("FLAGS_attrs_records", "").strip().lower() in (  # noqa: SIM112
    "1", "true", "yes", "on")


class _Nothing:
    __slots__ = ()

    def __repr__(self) -> str:
        return "NOTHING"

    def __reduce__(self):
        return "NOTHING"


NOTHING = _Nothing()


class Factory:
    """A default made by calling ``factory()`` for each instance (``attrs.Factory``)."""

    __slots__ = ("factory",)

    def __init__(self, factory: Callable[[], Any]) -> None:
        self.factory = factory


if _USE_ATTRS:
    import attrs

    Factory = attrs.Factory  # the baseline: attrs' own


class Attribute:
    """One field of a record: what validators receive (``.name``) and :func:`fields` lists."""

    __slots__ = ("converter", "default", "eq", "name", "validator")

    def __init__(self, name: str, default: Any, converter, validator, eq: bool) -> None:
        self.name = name
        self.default = default
        self.converter = converter
        self.validator = validator
        self.eq = eq

    def __repr__(self) -> str:
        return f"Attribute(name={self.name!r})"


class _Field:
    __slots__ = ("converter", "default", "eq", "validator")

    def __init__(self, default, converter, validator, eq) -> None:
        self.default = default
        self.converter = converter
        self.validator = validator
        self.eq = eq


def field(*, default: Any = NOTHING, factory: Callable[[], Any] | None = None,
          converter: Callable[[Any], Any] | None = None, validator=None, eq: bool = True):
    """``attrs.field`` for records."""
    if _USE_ATTRS:
        import attrs

        return attrs.field(default=default if default is not NOTHING else attrs.NOTHING,
                           factory=factory, converter=converter, validator=validator, eq=eq)
    if factory is not None:
        if default is not NOTHING:
            raise ValueError("The `default` and `factory` arguments are mutually exclusive.")
        default = Factory(factory)
    return _Field(default, converter, validator, eq)


def _frozen_setattr(self, name, value):
    from attrs.exceptions import FrozenInstanceError

    raise FrozenInstanceError()


def _frozen_delattr(self, name):
    from attrs.exceptions import FrozenInstanceError

    raise FrozenInstanceError()


def _build(cls: type, frozen: bool, eq: bool) -> type:
    for base in cls.__mro__[1:]:
        if "__attrs_records__" in base.__dict__:
            raise TypeError(f"{cls.__qualname__}: a record cannot subclass the record "
                            f"{base.__qualname__} (phi.core.records takes each class's own "
                            "fields only; use attrs for record inheritance)")
    own = cls.__dict__
    annotations = own.get("__annotations__", {})
    attributes: list[Attribute] = []
    for name, ann in annotations.items():
        if isinstance(ann, str) and ann.startswith(("ClassVar", "typing.ClassVar", "t.ClassVar")):
            continue
        if name.startswith("_"):
            raise TypeError(f"{cls.__qualname__}.{name}: records take public fields only")
        value = own.get(name, NOTHING)
        if isinstance(value, _Field):
            attributes.append(Attribute(name, value.default, value.converter, value.validator,
                                        value.eq))
        else:
            attributes.append(Attribute(name, value, None, None, True))
    names = tuple(a.name for a in attributes)
    body = {k: v for k, v in own.items()
            if k not in names and k not in ("__dict__", "__weakref__")}
    body["__slots__"] = (*names, "__weakref__")
    body["__attrs_records__"] = tuple(attributes)
    body["__match_args__"] = names

    # __init__: generated (one small compile), so that instances are as cheap as attrs' own
    globs: dict[str, Any] = {"NOTHING": NOTHING, "_setattr": object.__setattr__}
    params, lines, checks = [], [], []
    seen_default = False
    for a in attributes:
        n = a.name
        if a.default is NOTHING:
            if seen_default:
                raise ValueError(f"{cls.__qualname__}: No mandatory attributes allowed after an "
                                 f"attribute with a default value or factory.  Attribute in "
                                 f"question: {n!r}")
            params.append(n)
            value = n
        elif isinstance(a.default, Factory):
            seen_default = True
            globs[f"_factory_{n}"] = a.default.factory
            params.append(f"{n}=NOTHING")
            lines.append(f" if {n} is NOTHING: {n} = _factory_{n}()")
            value = n
        else:
            seen_default = True
            globs[f"_default_{n}"] = a.default
            params.append(f"{n}=_default_{n}")
            value = n
        if a.converter is not None:
            globs[f"_convert_{n}"] = a.converter
            value = f"_convert_{n}({n})"
        lines.append(f" _setattr(self, {n!r}, {value})")
        if a.validator is not None:
            globs[f"_validate_{n}"] = a.validator
            globs[f"_attribute_{n}"] = a
            checks.append(f" _validate_{n}(self, _attribute_{n}, self.{n})")
    source = "\n".join([f"def __init__(self, {', '.join(params)}):" if params
                        else "def __init__(self):", *lines, *checks, " return None"])
    exec(compile(source, f"<record {cls.__module__}.{cls.__qualname__}>", "exec"), globs)
    init = globs["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    body["__init__"] = init

    getter = _getter(names)
    if "__repr__" not in own:
        body["__repr__"] = _make_repr(names, getter)
    eq_names = tuple(a.name for a in attributes if a.eq)
    if eq:
        eq_getter = _getter(eq_names)
        if "__eq__" not in own:
            body["__eq__"] = _make_eq(eq_getter)
            body["__ne__"] = _ne
        if "__hash__" not in own:
            body["__hash__"] = _make_hash(eq_getter, hash(cls.__qualname__)) if frozen else None
    if frozen:
        body.setdefault("__setattr__", _frozen_setattr)
        body.setdefault("__delattr__", _frozen_delattr)
    body["__getstate__"] = _make_getstate(names)
    body["__setstate__"] = _setstate
    return type(cls)(cls.__name__, cls.__bases__, body)


def _getter(names: tuple[str, ...]) -> Callable[[Any], tuple]:
    if not names:
        return lambda self: ()
    if len(names) == 1:
        name = names[0]
        return lambda self: (getattr(self, name),)
    from operator import attrgetter

    return attrgetter(*names)


def _make_repr(names, getter):
    def __repr__(self) -> str:
        parts = ", ".join(f"{n}={v!r}" for n, v in zip(names, getter(self), strict=True))
        return f'{self.__class__.__qualname__.rsplit(">.", 1)[-1]}({parts})'

    return __repr__


def _make_eq(getter):
    def __eq__(self, other):
        if other.__class__ is not self.__class__:
            return NotImplemented
        return getter(self) == getter(other)

    return __eq__


def _ne(self, other):
    result = self.__eq__(other)
    if result is NotImplemented:
        return NotImplemented
    return not result


def _make_hash(getter, seed: int):
    def __hash__(self) -> int:
        return hash((seed, *getter(self)))

    return __hash__


def _make_getstate(names):
    def __getstate__(self) -> dict[str, Any]:
        return {n: getattr(self, n) for n in names}

    return __getstate__


def _setstate(self, state: dict[str, Any]) -> None:
    for name, value in state.items():
        object.__setattr__(self, name, value)


def frozen(cls: type | None = None, *, eq: bool = True):
    """``attrs.frozen`` (slotted, immutable, hashable when ``eq``)."""
    if _USE_ATTRS:
        import attrs

        return attrs.frozen(cls, eq=eq) if cls is not None else attrs.frozen(eq=eq)
    if cls is None:
        return lambda c: _build(c, True, eq)
    return _build(cls, True, eq)


def define(cls: type | None = None, *, eq: bool = True):
    """``attrs.define`` (slotted, mutable; unhashable when ``eq``)."""
    if _USE_ATTRS:
        import attrs

        return attrs.define(cls, eq=eq) if cls is not None else attrs.define(eq=eq)
    if cls is None:
        return lambda c: _build(c, False, eq)
    return _build(cls, False, eq)


def fields(cls: type) -> tuple:
    """The fields of a record class (``attrs.fields``), each with ``.name``."""
    found = getattr(cls, "__attrs_records__", None)
    if found is not None:
        return found
    import attrs

    return attrs.fields(cls)


def asdict(inst: Any) -> dict[str, Any]:
    """Field name -> value (``attrs.asdict``: nested records converted, collection types kept,
    every mapping a dict)."""
    if not hasattr(type(inst), "__attrs_records__"):
        import attrs

        return attrs.asdict(inst)
    return {a.name: _asdict_value(getattr(inst, a.name)) for a in fields(type(inst))}


def _asdict_value(value: Any) -> Any:
    if hasattr(type(value), "__attrs_records__") or hasattr(type(value), "__attrs_attrs__"):
        return asdict(value)
    if isinstance(value, (tuple, list, set, frozenset)):
        cls = type(value)  # kept, as attrs.asdict (attrs' next-gen API) keeps them
        items = [_asdict_value(v) for v in value]
        try:
            return cls(items)
        except TypeError:
            if not issubclass(cls, tuple):
                raise
            return cls(*items)  # a namedtuple
    if isinstance(value, dict):
        return {_asdict_value(k): _asdict_value(v) for k, v in value.items()}
    return value


class _InstanceOf:
    __slots__ = ("type",)

    def __init__(self, type_) -> None:
        self.type = type_

    def __call__(self, inst, attr, value) -> None:
        if not isinstance(value, self.type):
            msg = (f"'{attr.name}' must be {self.type!r} (got {value!r} that is a "
                   f"{value.__class__!r}).")
            raise TypeError(msg, attr, self.type, value)

    def __repr__(self) -> str:
        return f"<instance_of validator for type {self.type!r}>"


class _In:
    __slots__ = ("options",)

    def __init__(self, options) -> None:
        self.options = options

    def __call__(self, inst, attr, value) -> None:
        try:
            in_options = value in self.options
        except TypeError:
            in_options = False
        if not in_options:
            msg = f"'{attr.name}' must be in {self.options!r} (got {value!r})"
            raise ValueError(msg, attr, self.options, value)

    def __repr__(self) -> str:
        return f"<in_ validator with options {self.options!r}>"


def instance_of(type_) -> Callable:
    """``attrs.validators.instance_of``."""
    if _USE_ATTRS:
        import attrs

        return attrs.validators.instance_of(type_)
    return _InstanceOf(type_)


def in_(options) -> Callable:
    """``attrs.validators.in_``."""
    if _USE_ATTRS:
        import attrs

        return attrs.validators.in_(options)
    return _In(options)
