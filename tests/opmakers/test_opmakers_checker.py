"""check_attrs: what it accepts and converts, what it rejects and how the message reads."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import opmakers
from opmakers import GENERATED_ATTR_NAMES, AttrType, OpMaker, VarRef, check_attrs
from phi.core.errors import InvalidArgument
from tests.opmakers.opmakers_testlib import sample_value


def proto(op_type: str) -> opmakers.OpProto:
    return opmakers.get_op_proto(op_type)


# ---------------------------------------------------------------------------------------------
# Rejections: (op, attrs, fragments the message must contain)
# ---------------------------------------------------------------------------------------------

REJECTIONS: list[tuple[str, str, dict[str, Any], tuple[str, ...]]] = [
    ("unknown attribute", "conv2d", {"fuse_relu": True},
     ("conv2d", "'fuse_relu'", "no attribute", "strides", "use_cudnn")),
    ("unknown attribute, close match", "conv2d", {"stride": [1, 1]},
     ("conv2d", "'stride'", "Did you mean 'strides'")),
    ("str for INT", "conv2d", {"groups": "2"},
     ("conv2d", "'groups'", "INT", "str '2'")),
    ("bool for INT", "conv2d", {"groups": True},
     ("conv2d", "'groups'", "INT", "bool True")),
    ("float for INT", "concat", {"axis": 1.0},
     ("concat", "'axis'", "INT", "float 1.0")),
    ("int32 overflow", "concat", {"axis": 2**31},
     ("concat", "'axis'", "int32 range", str(2**31))),
    ("int64 overflow for LONGS", "fill_constant", {"shape": [2**63]},
     ("fill_constant", "'shape'", "LONGS", "element 0")),
    ("str for FLOAT", "scale", {"scale": "2.0"},
     ("scale", "'scale'", "FLOAT", "str '2.0'")),
    ("bool for FLOAT", "scale", {"bias": False},
     ("scale", "'bias'", "FLOAT", "bool False")),
    ("int for STRING", "conv2d", {"data_format": 0},
     ("conv2d", "'data_format'", "STRING", "int 0")),
    ("str for BOOLEAN", "matmul", {"transpose_X": "true"},
     ("matmul", "'transpose_X'", "BOOLEAN", "str 'true'")),
    ("scalar for INTS", "conv2d", {"strides": 2},
     ("conv2d", "'strides'", "INTS", "int 2")),
    ("bad element of INTS", "transpose2", {"axis": [0, "1"]},
     ("transpose2", "'axis'", "INTS", "element 1 is str '1'")),
    ("bool element of INTS", "transpose2", {"axis": [0, True]},
     ("transpose2", "'axis'", "element 1 is bool True")),
    ("str element of FLOATS", "mul", {"scale_y": ["1"]},
     ("mul", "'scale_y'", "FLOATS", "element 0")),
    ("str for STRINGS", "conv2d", {"op_role_var": "w"},
     ("conv2d", "'op_role_var'", "STRINGS", "str 'w'")),
    ("missing required", "feed", {},
     ("feed", "'col'", "required", "not set")),
    ("missing required list", "transpose2", {},
     ("transpose2", "'axis'", "required")),
    ("outside a set", "dropout", {"dropout_implementation": "upscale"},
     ("dropout", "'dropout_implementation'", "one of", "'downgrade_in_infer'", "'upscale'")),
    ("outside a range", "dropout", {"dropout_prob": 1.5},
     ("dropout", "'dropout_prob'", "less than or equal to 1.0", "1.5")),
    ("not greater than", "conv2d", {"groups": 0},
     ("conv2d", "'groups'", "greater than 0", "got 0")),
    ("op_role outside Paddle's roles", "relu", {"op_role": 3},
     ("relu", "'op_role'", "one of", "4096", "got 3")),
    ("VarRef where no tensor is supported", "scale", {"scale": VarRef("s")},
     ("scale", "'scale'", "FLOAT", "VarRef")),
    ("runtime attribute of the wrong type", "conv2d", {"use_cudnn": "yes"},
     ("conv2d", "'use_cudnn'", "BOOLEAN", "str 'yes'")),
]


@pytest.mark.parametrize("op_type,attrs,fragments", [r[1:] for r in REJECTIONS],
                         ids=[r[0] for r in REJECTIONS])
def test_rejection(op_type: str, attrs: dict[str, Any], fragments: tuple[str, ...]) -> None:
    with pytest.raises(InvalidArgument) as info:
        check_attrs(proto(op_type), attrs)
    message = str(info.value)
    assert message.startswith("(InvalidArgument) ")
    for fragment in fragments:
        assert fragment in message, f"{fragment!r} not in {message!r}"


def test_rejection_leaves_the_input_alone() -> None:
    attrs = {"strides": [1, 1], "groups": "x"}
    with pytest.raises(InvalidArgument):
        check_attrs(proto("conv2d"), attrs)
    assert attrs == {"strides": [1, 1], "groups": "x"}


# ---------------------------------------------------------------------------------------------
# Acceptance and conversion: (op, attr, given, expected result)
# ---------------------------------------------------------------------------------------------

CONVERSIONS: list[tuple[str, str, str, Any, Any]] = [
    ("int for FLOAT", "scale", "scale", 2, 2.0),
    ("FLOAT rounded to float32", "scale", "scale", 0.1, float(np.float32(0.1))),
    ("numpy float32", "scale", "bias", np.float32(0.5), 0.5),
    ("numpy int for INT", "concat", "axis", np.int64(-1), -1),
    ("int for BOOLEAN (Paddle converts)", "matmul", "transpose_X", 1, True),
    ("numpy bool", "matmul", "transpose_Y", np.True_, True),
    ("tuple for INTS", "conv2d", "strides", (2, 2), [2, 2]),
    ("ints for FLOATS", "mul", "scale_y", [1, 2], [1.0, 2.0]),
    ("int for LONGS", "fill_constant", "shape", [2, 2**40], [2, 2**40]),
    ("empty list", "reshape2", "shape", [], []),
    ("VarRef for a support_tensor attr", "dropout", "dropout_prob", VarRef("p"), VarRef("p")),
    ("VarRef for a support_tensor list", "pool2d", "ksize", VarRef("k"), VarRef("k")),
    ("VarRefs for a support_tensor list", "reduce_sum", "dim", (VarRef("a"), VarRef("b")),
     [VarRef("a"), VarRef("b")]),
]


@pytest.mark.parametrize("op_type,name,given,expected", [c[1:] for c in CONVERSIONS],
                         ids=[c[0] for c in CONVERSIONS])
def test_conversion(op_type: str, name: str, given: Any, expected: Any) -> None:
    required = {"transpose2": {"axis": [0]}, "pool2d": {"ksize": [2, 2]}}.get(op_type, {})
    filled = check_attrs(proto(op_type), {**required, name: given})
    assert filled[name] == expected
    assert type(filled[name]) is type(expected)
    if isinstance(expected, list):
        assert all(type(a) is type(b) for a, b in zip(filled[name], expected, strict=False))


def test_defaults_and_order() -> None:
    filled = check_attrs(proto("conv2d"), {"paddings": [1, 1]})
    assert list(filled) == [
        "strides", "paddings", "padding_algorithm", "dilations", "groups", "data_format",
        *GENERATED_ATTR_NAMES,
        "exhaustive_search", "force_fp32_output", "is_test", "use_addto", "use_cudnn",
        "use_mkldnn", "workspace_size_MB",
    ]
    assert filled["paddings"] == [1, 1]
    assert filled["strides"] == [1, 1]
    assert filled["use_cudnn"] is True
    assert filled["workspace_size_MB"] == 512
    assert filled["op_role"] == 4096


def test_float_defaults_are_float32() -> None:
    filled = check_attrs(proto("batch_norm"), {})
    assert filled["momentum"] == float(np.float32(0.9))
    assert filled["epsilon"] == float(np.float32(1e-5))


def test_result_is_new_and_lists_are_fresh() -> None:
    given = {"strides": [2, 2]}
    first = check_attrs(proto("conv2d"), given)
    first["strides"].append(9)
    first["dilations"].append(9)
    second = check_attrs(proto("conv2d"), given)
    assert given == {"strides": [2, 2]}
    assert second["strides"] == [2, 2]
    assert second["dilations"] == [1, 1]
    assert opmakers.get_op_proto("conv2d").attr("dilations").default == (1, 1)


def test_runtime_attrs_argument() -> None:
    p = proto("conv2d")
    assert "use_cudnn" not in check_attrs(p, {}, runtime_attrs=())
    with pytest.raises(InvalidArgument, match="use_cudnn"):
        check_attrs(p, {"use_cudnn": False}, runtime_attrs=())
    only = opmakers.get_runtime_attrs("conv2d")[:1]
    assert list(check_attrs(p, {}, runtime_attrs=list(only)))[-1] == only[0].name


def test_runtime_attr_twin_of_a_proto_attr_appears_once() -> None:
    # reshape2 lists use_mkldnn, use_quantizer, mkldnn_data_type in its OpProto and as runtime
    filled = check_attrs(proto("reshape2"), {"use_mkldnn": True})
    assert filled["use_mkldnn"] is True
    assert list(filled).count("use_mkldnn") == 1


@pytest.mark.parametrize("policy,expected", [("keep", {"fuse_relu": True}), ("drop", {})])
def test_unknown_policies(policy: str, expected: dict[str, Any]) -> None:
    filled = check_attrs(proto("conv2d"), {"fuse_relu": True, "groups": 2}, unknown=policy)
    assert filled["groups"] == 2
    assert {k: v for k, v in filled.items() if k == "fuse_relu"} == expected


def test_unknown_policy_is_checked() -> None:
    with pytest.raises(InvalidArgument, match="unknown="):
        check_attrs(proto("conv2d"), {"fuse_relu": True}, unknown="ignore")


# ---------------------------------------------------------------------------------------------
# The generated attributes are accepted on every op, even one whose proto lacks them
# ---------------------------------------------------------------------------------------------

GENERATED_VALUES = {
    "op_role": 256 | 1,
    "op_role_var": ["w", "w@GRAD"],
    "op_namescope": "/block/",
    "op_callstack": ['File "x.py", line 1'],
    "op_device": "gpu:0",
    "with_quant_attr": True,
}


@pytest.mark.parametrize("op_type", opmakers.all_op_types())
def test_generated_attrs_accepted(op_type: str) -> None:
    p = proto(op_type)
    required = {a.name: sample_value(a.type) for a in p.attrs if a.required}
    filled = check_attrs(p, {**required, **GENERATED_VALUES})
    for name, value in GENERATED_VALUES.items():
        assert filled[name] == value


def test_generated_attrs_accepted_on_a_bare_proto() -> None:
    bare = opmakers.OpProto(type="bare", inputs=(), outputs=(), attrs=())
    filled = check_attrs(bare, GENERATED_VALUES)
    assert filled == GENERATED_VALUES
    assert check_attrs(bare, {})["op_role"] == 4096


@pytest.mark.parametrize("role", opmakers.OP_ROLES)
def test_every_paddle_op_role_accepted(role: int) -> None:
    assert check_attrs(proto("relu"), {"op_role": role})["op_role"] == role


def test_custom_proto_built_with_the_dsl() -> None:
    m = OpMaker("my_op")
    m.add_input("X")
    m.add_output("Out")
    m.add_attr("mode", AttrType.STRING, default="a").in_set(["a", "b"])
    m.add_attr("k", AttrType.LONG)
    m.add_attr("ratios", AttrType.FLOATS, default=[0.5]).greater_than(0.0)
    m.add_runtime_attr("use_mkldnn", AttrType.BOOLEAN, default=False)
    p, runtime = m.build()
    filled = check_attrs(p, {"k": 2**40, "ratios": [1, 2.5]}, runtime_attrs=runtime)
    assert filled["k"] == 2**40
    assert filled["ratios"] == [1.0, 2.5]
    assert filled["use_mkldnn"] is False
    with pytest.raises(InvalidArgument, match=r"'ratios'.*greater than 0.0"):
        check_attrs(p, {"k": 1, "ratios": [1.0, -1.0]}, runtime_attrs=runtime)
    with pytest.raises(InvalidArgument, match=r"'mode'.*one of \['a', 'b'\]"):
        check_attrs(p, {"k": 1, "mode": "c"}, runtime_attrs=runtime)
