"""phi.core.records: the attrs-style records behave as attrs' own classes (the truth here: the
same class body made by attrs), cost no attrs import, and FLAGS_attrs_records=1 gives attrs."""

from __future__ import annotations

import copy
import os
import pickle
import subprocess
import sys
import textwrap
from pathlib import Path

import attrs
import pytest

from phi.core import records

ROOT = Path(__file__).resolve().parents[2]


def _pair(body):
    """The same class body made by records and by attrs."""
    return body(records), body(attrs)


def _point(lib):
    def positive(instance, attribute, value):
        if value < 0:
            raise ValueError(f"{attribute.name} must be >= 0, got {value}")

    @lib.frozen
    class Point:
        x: int = lib.field(validator=positive)
        y: int = lib.field(default=0, converter=int)
        tags: tuple = lib.field(default=(), converter=tuple)
        note: str = lib.field(default="", eq=False)
        extra: dict = lib.field(factory=dict, eq=False)

        def norm1(self) -> int:
            return abs(self.x) + abs(self.y)

    return Point


def _state(lib):
    @lib.define
    class State:
        a: int
        b: list = lib.Factory(list)

    return State


def _identity(lib):
    @lib.frozen(eq=False)
    class Ident:
        v: int

        def __repr__(self) -> str:
            return f"Ident<{self.v}>"

    return Ident


def test_frozen_record_matches_attrs():
    for cls in _pair(_point):
        p = cls(1, "2", [3, 4], note="n")
        assert (p.x, p.y, p.tags, p.note, p.extra) == (1, 2, (3, 4), "n", {})
        assert repr(p) == "Point(x=1, y=2, tags=(3, 4), note='n', extra={})"
        assert p == cls(1, 2, (3, 4), note="other") and p != cls(2, 2, (3, 4))
        assert hash(p) == hash(cls(1, 2, (3, 4), note="other"))
        assert (p == 1) is False and p.__eq__(1) is NotImplemented
        assert cls(1).extra is not cls(1).extra
        assert p.norm1() == 3
        with pytest.raises(attrs.exceptions.FrozenInstanceError):
            p.x = 5
        with pytest.raises(attrs.exceptions.FrozenInstanceError):
            del p.x
        with pytest.raises(ValueError, match="x must be >= 0, got -1"):
            cls(-1)
        with pytest.raises(TypeError):
            cls()
        with pytest.raises(TypeError):
            cls(1, 2, 3, 4, 5, 6)
        assert not hasattr(p, "__dict__")
        assert cls.__match_args__ == ("x", "y", "tags", "note", "extra")
        assert [f.name for f in records.fields(cls)] == list(cls.__match_args__)
        assert records.asdict(p) == attrs.asdict(_point(attrs)(1, 2, (3, 4), note="n"))
        for q in (copy.copy(p), copy.deepcopy(p)):
            assert q == p and q.note == "n"


def test_mutable_record_matches_attrs():
    for cls in _pair(_state):
        s = cls(1)
        s.a = 2
        s.b.append(3)
        assert repr(s) == "State(a=2, b=[3])" and s == cls(2, [3])
        with pytest.raises(TypeError):
            hash(s)
        with pytest.raises(AttributeError):
            s.c = 1  # slotted
        assert copy.deepcopy(s) == s


@records.frozen
class FrozenForPickle:
    x: int
    tags: tuple = records.field(default=(), converter=tuple)


@records.define
class MutableForPickle:
    a: int
    b: list = records.Factory(list)


def test_records_pickle():
    for obj in (FrozenForPickle(1, [2]), MutableForPickle(1, [2])):
        for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
            assert pickle.loads(pickle.dumps(obj, protocol)) == obj


def test_eq_false_keeps_identity_and_a_class_s_own_repr():
    for cls in _pair(_identity):
        a, b = cls(1), cls(1)
        assert a != b and a == a and hash(a) == object.__hash__(a)
        assert repr(a) == "Ident<1>"


def test_validators_give_attrs_messages():
    for lib, inst, in_ in ((records, records.instance_of, records.in_),
                           (attrs, attrs.validators.instance_of, attrs.validators.in_)):
        @lib.frozen
        class V:
            name: str = lib.field(validator=inst(str))
            op: str = lib.field(default="==", validator=in_(("==", "<")))

        with pytest.raises(TypeError) as e1:
            V(1)
        with pytest.raises(ValueError) as e2:
            V("a", ">")
        assert e1.value.args[0] == ("'name' must be <class 'str'> (got 1 that is a "
                                    "<class 'int'>).")
        assert e2.value.args[0] == "'op' must be in ('==', '<') (got '>')"


def test_project_records_are_records_and_frozen():
    from argmap.signature import KernelSignature
    from opmakers.maker import OpProto
    from phi.core.kernel import Kernel, TensorArgDef
    from phi.core.registry import KernelResult

    for cls in (KernelSignature, OpProto, Kernel, TensorArgDef, KernelResult):
        assert hasattr(cls, "__attrs_records__"), cls


def test_no_attrs_import_and_the_attrs_baseline():
    code = textwrap.dedent("""
        import sys
        import fluid_compat.cli, fluid_compat.executor, fluid_compat.io, argmap, opmakers
        from phi.core.kernel import Kernel
        print("attr" in sys.modules, hasattr(Kernel, "__attrs_attrs__"))
    """)
    for flag, want in (("0", "False False"), ("1", "True True")):
        env = dict(os.environ, PYTHONPATH=str(ROOT), FLAGS_attrs_records=flag)
        done = subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == want


def test_subclassing_a_record_is_refused_by_name():
    from phi.core import records

    @records.frozen
    class Base:
        a: int

    with pytest.raises(TypeError, match="Child: a record cannot subclass the record .*Base"):
        @records.frozen
        class Child(Base):
            b: int
