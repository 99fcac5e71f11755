"""The OpMaker DSL, the records, the registry, and the package's import rules."""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path

import attrs
import pytest

import opmakers
from opmakers import (
    GENERATED_ATTR_NAMES,
    REQUIRED,
    AttrType,
    Compare,
    InSet,
    OpFamily,
    OpMaker,
    VarRef,
)
from opmakers import registry as registry_module
from phi.core.errors import AlreadyExists, InvalidArgument, NotFound

PACKAGE = Path(opmakers.__file__).resolve().parent

# paddle-reference.md 8.1, framework.proto of Paddle 2.6.2
PROTO_NUMBERS = {
    "INT": 0, "FLOAT": 1, "STRING": 2, "INTS": 3, "FLOATS": 4, "STRINGS": 5, "BOOLEAN": 6,
    "BOOLEANS": 7, "BLOCK": 8, "LONG": 9, "BLOCKS": 10, "LONGS": 11, "FLOAT64S": 12, "VAR": 13,
    "VARS": 14, "FLOAT64": 15, "SCALAR": 16, "SCALARS": 17,
}


def test_attr_type_numbers() -> None:
    assert {t.name: int(t) for t in AttrType} == PROTO_NUMBERS


@pytest.mark.parametrize("name,expected", [("BOOL", AttrType.BOOLEAN),
                                           ("BOOLS", AttrType.BOOLEANS),
                                           ("LONGS", AttrType.LONGS)])
def test_attr_type_parse(name: str, expected: AttrType) -> None:
    assert AttrType.parse(name) is expected


def test_attr_type_parse_unknown() -> None:
    with pytest.raises(ValueError, match="FLOAT32"):
        AttrType.parse("FLOAT32")


def _example() -> OpMaker:
    m = OpMaker("example", comment="An example.")
    m.add_input("X", comment="the input")
    m.add_input("Xs").as_duplicable().as_dispensable()
    m.add_input("Q").as_quant().as_extra()
    m.add_output("Out")
    m.add_output("XShape").as_intermediate()
    m.add_attr("axis", AttrType.INT, default=-1, comment="the axis")
    m.add_attr("perm", AttrType.INTS)
    m.add_attr("alpha", AttrType.FLOAT, default=0.1).as_quant()
    m.add_attr("shape", AttrType.INTS, default=[1, 2]).support_tensor().as_extra()
    m.add_attr("flag", AttrType.BOOLEAN, default=False).as_generated()
    m.add_attr("mode", AttrType.STRING, default="a").in_set(["a", "b"])
    m.add_attr("k", AttrType.INT, default=1).greater_than(0).less_equal(8)
    m.add_runtime_attr("use_mkldnn", AttrType.BOOLEAN, default=False)
    return m


def test_maker_builds_the_records() -> None:
    proto, runtime = _example().build()
    assert proto.type == "example" and proto.comment == "An example."
    assert proto.input_names == ("X", "Xs", "Q")
    assert proto.output_names == ("Out", "XShape")
    assert proto.input("X").comment == "the input"
    xs = proto.input("Xs")
    assert (xs.duplicable, xs.dispensable, xs.intermediate, xs.extra, xs.quant) == (
        True, True, False, False, False)
    assert (proto.input("Q").quant, proto.input("Q").extra) == (True, True)
    assert proto.output("XShape").intermediate
    assert proto.attr_names == ("axis", "perm", "alpha", "shape", "flag", "mode", "k",
                                *GENERATED_ATTR_NAMES)
    assert proto.attr("perm").default is REQUIRED and proto.attr("perm").required
    assert proto.attr("alpha").default == pytest.approx(0.1, rel=1e-7)
    assert proto.attr("alpha").default != 0.1  # float32, as Paddle stores it
    assert proto.attr("alpha").quant
    shape = proto.attr("shape")
    assert shape.default == (1, 2) and shape.support_tensor and shape.extra
    assert proto.attr("flag").generated
    assert proto.attr("mode").checks == (InSet(("a", "b")),)
    assert proto.attr("k").checks == (Compare(">", 0), Compare("<=", 8))
    assert all(proto.attr(n).extra for n in GENERATED_ATTR_NAMES)
    assert [a.name for a in runtime] == ["use_mkldnn"] and runtime[0].extra


def test_records_are_frozen_and_hashable() -> None:
    proto, _ = _example().build()
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        proto.type = "other"  # type: ignore[misc]
    assert hash(proto) == hash(_example().build()[0])
    assert proto == _example().build()[0]


def test_lookup_errors_list_what_exists() -> None:
    proto, _ = _example().build()
    with pytest.raises(NotFound, match="no input 'Y'.*X, Xs, Q"):
        proto.input("Y")
    with pytest.raises(NotFound, match="no attribute 'axes'"):
        proto.attr("axes")


DEFINITION_ERRORS = [
    ("duplicate input", lambda m: (m.add_input("X"), m.add_input("X")), "input 'X'"),
    ("duplicate attr", lambda m: (m.add_attr("a", AttrType.INT, default=0),
                                  m.add_attr("a", AttrType.INT, default=0)), "attribute 'a'"),
    ("default of the wrong type", lambda m: m.add_attr("a", AttrType.INT, default="0"),
     "declared INT"),
    ("default fails its checker",
     lambda m: m.add_attr("a", AttrType.INT, default=0).greater_than(0), "fails its own"),
    ("set value of the wrong type",
     lambda m: m.add_attr("a", AttrType.STRING, default="x").in_set(["x", 1]), "declared STRING"),
    ("generated attr declared", lambda m: m.add_attr("op_role", AttrType.INT, default=0),
     "every op"),
    ("runtime twin disagrees", lambda m: (m.add_attr("u", AttrType.BOOLEAN, default=False),
                                          m.add_runtime_attr("u", AttrType.BOOLEAN, default=True)),
     "disagrees"),
]


@pytest.mark.parametrize("define,fragment", [d[1:] for d in DEFINITION_ERRORS],
                         ids=[d[0] for d in DEFINITION_ERRORS])
def test_definition_errors(define: Callable[[OpMaker], object], fragment: str) -> None:
    m = OpMaker("bad_op")
    with pytest.raises(InvalidArgument, match=fragment):
        define(m)
        m.build()


def test_none_is_not_a_default() -> None:
    with pytest.raises(InvalidArgument, match="leave `default` out"):
        OpMaker("bad_op").add_attr("a", AttrType.INT, default=None)


def test_family_refuses_a_second_definition() -> None:
    family = OpFamily("test")

    @family.op("one")
    def one(m: OpMaker) -> None:
        m.add_input("X")

    with pytest.raises(AlreadyExists, match="one"):
        family.op("one")(lambda m: None)
    assert [d.type for d in family.definitions()] == ["one"]
    proto, runtime = one.make()
    assert proto.input_names == ("X",) and runtime == ()


def test_registry_lookups() -> None:
    types = opmakers.all_op_types()
    assert list(types) == sorted(types) and "conv2d" in types
    assert opmakers.get_op_proto("conv2d") is opmakers.get_op_proto("conv2d")
    assert opmakers.get_op_def("conv2d").family == "nn"
    assert opmakers.get_runtime_attrs("assign") == ()
    with pytest.raises(NotFound, match="'elementwise_ad'.*elementwise_add"):
        opmakers.get_op_proto("elementwise_ad")
    with pytest.raises(NotFound, match="'no_such_op'"):
        opmakers.get_runtime_attrs("no_such_op")


def test_register_op_refuses_overrides(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry_module, "_DEFS", dict(registry_module._DEFS))
    monkeypatch.setattr(registry_module, "_BUILT", dict(registry_module._BUILT))
    family = OpFamily("plugin")

    @family.op("my_custom_op")
    def my_custom_op(m: OpMaker) -> None:
        m.add_input("X")
        m.add_output("Out")
        m.add_runtime_attr("use_cudnn", AttrType.BOOLEAN, default=True)

    opmakers.register_op(my_custom_op)
    assert opmakers.get_op_proto("my_custom_op").output_names == ("Out",)
    assert opmakers.check_attrs(opmakers.get_op_proto("my_custom_op"), {})["use_cudnn"] is True
    with pytest.raises(AlreadyExists, match="my_custom_op"):
        opmakers.register_op(my_custom_op)
    with pytest.raises(AlreadyExists, match="conv2d"):
        opmakers.register_op(OpFamily("x").op("conv2d")(lambda m: None))


def test_var_ref() -> None:
    assert VarRef("x") == VarRef("x")
    with pytest.raises(TypeError):
        VarRef(1)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------------
# Package rules
# ---------------------------------------------------------------------------------------------


def _package_files() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_imports_only_phi_core_errors_of_the_project() -> None:
    ours = ("phi", "argmap", "fluid_compat", "opmakers")
    bad = []
    for path in _package_files():
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            for name in names:
                top = name.split(".")[0]
                # phi.core.records: the record classes, importing nothing of the project
                if top in ours and top != "opmakers" and name not in ("phi.core.errors",
                                                                      "phi.core.records"):
                    bad.append(f"{path.name}: {name}")
    assert bad == []


def test_package_does_not_reference_the_corpus() -> None:
    offenders = [p.name for p in _package_files()
                 if "shared/" in p.read_text() or "shared\\" in p.read_text()]
    assert offenders == []
